// A context whose ring fails (io_uring_enter returns an error that is not
// a retry) does not end the process: the I/O the kernel never took fails
// with the ring's errno, what it took completes with its own result, later
// I/O fails with the errno, and the context thread keeps running posted
// work until it is stopped. Injected two ways: RingFaultBackend around the
// pread fallback (runs everywhere), and UringBackend::inject_enter_error on
// a real ring ([needs-uring]).
#include <atomic>
#include <catch2/catch.hpp>
#include <cerrno>

#include "../../common/wait_until.hpp"
#include "io/context.hpp"
#include "io/ring_fault_backend.hpp"
#include "io/uring_backend.hpp"
#include "real_files.hpp"

using namespace rs::io;
using namespace rs::io::test;
using rs::test::wait_until;

namespace {

// `n` reads of blocks `first`.. of member 0; completions counted in `done`
// (written on the context thread, read after `done` says all came).
struct Batch {
  Reads reads;
  std::atomic<unsigned> done{0};
  bool ring_failed[16] = {};
  explicit Batch(unsigned n, unsigned first = 0) : reads(n) {
    for (unsigned i = 0; i < n; ++i) {
      reads.ios[i].offset = uint64_t(first + i) * kBlock;
      reads.ios[i].owner = this;
      reads.ios[i].done = [](MemberIo& io, int result) {
        auto* b = static_cast<Batch*>(io.owner);
        const size_t i = size_t(&io - b->reads.ios.data());
        b->reads.done[i].calls++;
        b->reads.done[i].result = result;
        b->ring_failed[i] = io.ring_failed;
        b->done.fetch_add(1, std::memory_order_release);
      };
    }
  }
  void queue(Backend& b, bool submit) {
    for (auto& io : reads.ios) b.queue(io);
    if (submit) b.submit();
  }
  bool all_done() const { return done.load(std::memory_order_acquire) == reads.ios.size(); }
  void check(int want, bool want_ring_failed) const {
    for (size_t i = 0; i < reads.ios.size(); ++i) {
      INFO("read " << i);
      CHECK(reads.done[i].calls == 1);
      CHECK(reads.done[i].result == want);
      CHECK(ring_failed[i] == want_ring_failed);
    }
  }
};

}  // namespace

TEST_CASE("context thread: a ring that fails fails its I/O with the errno and the thread goes on",
          "[context][ring]") {
  TempFile file(16);
  auto dev = open_file(file);
  MemberDevice* members[] = {dev.get()};
  RingFaultBackend* fault = nullptr;  // owned by the context, used on its thread only
  ContextThread thread("ring-fault", [&]() -> std::unique_ptr<Backend> {
    auto b = std::make_unique<RingFaultBackend>(std::make_unique<SyncBackend>(members));
    fault = b.get();
    return b;
  });
  REQUIRE(thread.status().ok());

  Batch healthy(4);
  thread.post([&] { healthy.queue(thread.context().backend(), true); });
  REQUIRE(wait_until([&] { return healthy.all_done(); }));
  healthy.check(int(kBlock), false);

  // The ring fails at the next submit that carries I/O: none of it reaches
  // a device, all of it fails with the ring's errno.
  Batch refused(4, 4);
  std::atomic<bool> failed_seen{false};
  std::string failure;  // written on the thread before failed_seen
  thread.post([&] {
    fault->fail_after_submits(1, EOWNERDEAD);
    refused.queue(thread.context().backend(), true);
  });
  REQUIRE(wait_until([&] { return refused.all_done(); }));
  refused.check(-EOWNERDEAD, true);
  thread.post([&] {
    failure = thread.context().failed() ? thread.context().failure().error().message : "";
    failed_seen = true;
  });
  REQUIRE(wait_until([&] { return failed_seen.load(); }));
  CHECK(failure.find("context 'ring-fault'") != std::string::npos);
  CHECK(failure.find(std::strerror(EOWNERDEAD)) != std::string::npos);

  // The thread still runs posted work, and later I/O fails the same way.
  Batch later(4, 8);
  thread.post([&] { later.queue(thread.context().backend(), true); });
  REQUIRE(wait_until([&] { return later.all_done(); }));
  later.check(-EOWNERDEAD, true);
  thread.stop();
  CHECK(thread.status().ok());
}

TEST_CASE(
    "io_uring: a failed io_uring_enter fails the unsubmitted I/O, completes the submitted, and the thread "
    "goes on",
    "[context][ring][needs-uring]") {
  require_uring();
  TempFile file(16);
  auto dev = open_file(file);
  MemberDevice* members[] = {dev.get()};
  ContextThread thread("uring-fault", [&]() -> std::unique_ptr<Backend> { return uring(members, 16); });
  REQUIRE(thread.status().ok());

  // Four reads the kernel takes, then the ring fails before four more are
  // submitted: the first four complete as the kernel finishes them (their
  // buffers are the kernel's until then), the other four fail at once.
  Batch taken(4), never_taken(4, 4);
  thread.post([&] {
    auto& ring = static_cast<UringBackend&>(thread.context().backend());
    taken.queue(ring, true);
    never_taken.queue(ring, false);
    ring.inject_enter_error(EOWNERDEAD);
  });
  REQUIRE(wait_until([&] { return taken.all_done() && never_taken.all_done(); }));
  taken.check(int(kBlock), false);
  for (unsigned i = 0; i < 4; ++i) CHECK(taken.reads.buf.data()[i * kBlock] == uint8_t(1 + i));
  never_taken.check(-EOWNERDEAD, true);

  // No exception left the thread: it runs posted work, new I/O fails with
  // the ring's errno without reaching the kernel, and stop() drains.
  Batch later(4, 8);
  std::atomic<bool> failed{false};
  thread.post([&] {
    failed = thread.context().failed();
    later.queue(thread.context().backend(), true);
  });
  REQUIRE(wait_until([&] { return later.all_done(); }));
  CHECK(failed.load());
  later.check(-EOWNERDEAD, true);
  thread.stop();
}
