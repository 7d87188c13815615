// The real backends (io_uring and the pread/pwrite fallback) on a file:
// every queued I/O completes exactly once with the right bytes, reap() after
// reap(), without losing or stalling completions. (How many completions a job
// handles per reap is the load generator's business, not the backend's.)
#include <catch2/catch.hpp>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../../common/result_helpers.hpp"
#include "io/fault_backend.hpp"
#include "io/member_device.hpp"
#include "io/uring_backend.hpp"
#include "real_files.hpp"

using namespace rs::io;
using namespace rs::io::test;

namespace {

constexpr unsigned kIos = 24;

// Queues kIos block reads, reaps until none is in flight and checks every
// completion and the bytes.
void read_all(Backend& backend) {
  Reads reads(kIos);
  reads.queue_all(backend);
  unsigned total = 0, calls = 0;
  while (backend.in_flight() > 0 && calls < 10 * kIos) {
    const unsigned n = backend.reap(1);
    CHECK(n >= 1);  // reap(1) waits for one, however the kernel batches them
    total += n;
    ++calls;
  }
  CHECK(total == kIos);
  reads.check_all();
}

}  // namespace

TEST_CASE("io_uring backend: every completion is reaped once, none lost", "[uring]") {
  TempFile file(kIos);
  auto dev = open_file(file);
  MemberDevice* members[] = {dev.get()};
  auto [backend, note] = make_real_backend(members, 32);
  INFO(backend->describe() << " " << note);
  read_all(*backend);
}

TEST_CASE("io_uring backend: completions can queue and submit from inside reap", "[uring]") {
  // The job driver submits from inside completion callbacks (fio's
  // iodepth_batch_submit=1): a chain of reads, each started by the previous
  // one's completion, must run to the end.
  TempFile file(kIos);
  auto dev = open_file(file);
  MemberDevice* members[] = {dev.get()};
  auto backend = make_real_backend(members, 4).backend;
  struct Chain {
    Backend* backend;
    MemberIo io;
    unsigned next = 0;
    std::vector<uint8_t> seen;
  };
  AlignedBuffer buf = rs::test::must(AlignedBuffer::allocate(kBlock));
  Chain chain{backend.get(), {}, 0, {}};
  chain.io.member = 0;
  chain.io.length = kBlock;
  chain.io.buffer = buf.data();
  chain.io.owner = &chain;
  chain.io.done = [](MemberIo& io, int result) {
    auto& c = *static_cast<Chain*>(io.owner);
    REQUIRE(result == int(kBlock));
    c.seen.push_back(static_cast<uint8_t*>(io.buffer)[0]);
    if (++c.next < kIos) {
      io.offset = uint64_t(c.next) * kBlock;
      c.backend->queue(io);
      c.backend->submit();
    }
  };
  backend->queue(chain.io);
  backend->submit();
  unsigned guard = 0;
  while (backend->in_flight() > 0 && guard++ < 10 * kIos) backend->reap(1);
  REQUIRE(chain.seen.size() == kIos);
  for (unsigned i = 0; i < kIos; ++i) CHECK(chain.seen[i] == uint8_t(i + 1));
}

TEST_CASE("pread/pwrite fallback backend: every completion is reaped once, none lost", "[uring]") {
  TempFile file(kIos);
  auto dev = open_file(file);
  MemberDevice* members[] = {dev.get()};
  SyncBackend backend(members);
  read_all(backend);
}

TEST_CASE("io_uring backend: a timer completes with -EAGAIN after its delay, touching no device", "[uring]") {
  TempFile file(kIos);
  auto dev = open_file(file);
  MemberDevice* members[] = {dev.get()};
  auto backend = make_real_backend(members, 4).backend;
  Completion c;
  MemberIo timer;
  timer.member = 0;
  timer.done = count_completion;
  timer.owner = &c;
  const uint64_t t0 = monotonic_ns();
  // Long enough that even a loaded machine reaches reap(0) before it is due.
  constexpr uint64_t kDelay = 100000000;  // 100 ms
  backend->queue_timer(timer, kDelay);
  CHECK(backend->in_flight() == 1);
  CHECK(backend->reap(0) == 0);  // not due yet
  CHECK(c.calls == 0);
  CHECK(backend->reap(1) == 1);
  CHECK(monotonic_ns() - t0 >= kDelay);
  CHECK(c.calls == 1);
  CHECK(c.result == -EAGAIN);
  CHECK(backend->in_flight() == 0);
}

TEST_CASE("io_uring backend: a member replaced (even by none) while its emulated-disk I/O is in flight",
          "[uring][needs-uring]") {
  // Completions must go to the model the I/O was scheduled on, not to
  // whatever the member table holds when they arrive (once a null pointer).
  require_uring();
  TempFile old_file(kIos), new_file(kIos, 101);
  auto old_dev = open_file(old_file), new_dev = open_file(new_file);
  auto model = std::make_shared<FixedLatencyModel>(50'000'000);  // 50 ms
  old_dev->set_model(model);
  MemberDevice* members[] = {old_dev.get()};
  auto backend_owner = uring(members, 32);
  UringBackend& backend = *backend_owner;
  Reads reads(kIos);
  reads.queue_all(backend);
  const bool to_none = GENERATE(true, false);
  INFO((to_none ? "replaced by no device" : "replaced by another device"));
  backend.replace_member(0, to_none ? nullptr : new_dev.get());
  REQUIRE(backend.in_flight() == kIos);  // held for 50 ms by the emulated disk
  for (unsigned guard = 0; backend.in_flight() > 0 && guard < 10 * kIos; ++guard) backend.reap(1);
  CHECK(backend.in_flight() == 0);
  CHECK(model->completed.load() == kIos);
  reads.check_all();  // from the old file
  // I/O queued after the replacement goes to the new member (or fails).
  Completion after;
  MemberIo io = reads.ios[0];
  io.owner = &after;
  backend.queue(io);
  backend.submit();
  while (backend.in_flight() > 0) backend.reap(1);
  CHECK(after.calls == 1);
  if (to_none) {
    CHECK(after.result == -ENODEV);
  } else {
    CHECK(after.result == int(kBlock));
    CHECK(reads.buf.data()[0] == uint8_t(101));
  }
  CHECK(model->completed.load() == kIos);  // the new member has no model
}

TEST_CASE("pread/pwrite fallback backend: I/O queued before a member is replaced goes to the old device",
          "[uring]") {
  TempFile old_file(1), new_file(1, 101);
  auto old_dev = open_file(old_file), new_dev = open_file(new_file);
  MemberDevice* members[] = {old_dev.get()};
  SyncBackend backend(members);
  AlignedBuffer buf = rs::test::must(AlignedBuffer::allocate(kBlock));
  Completion c;
  MemberIo io;
  io.member = 0;
  io.length = kBlock;
  io.buffer = buf.data();
  io.done = count_completion;
  io.owner = &c;
  backend.queue(io);
  backend.replace_member(0, new_dev.get());
  CHECK(backend.reap(1) == 1);
  CHECK(c.result == int(kBlock));
  CHECK(buf.data()[0] == uint8_t(1));
  backend.queue(io);
  CHECK(backend.reap(1) == 1);
  CHECK(buf.data()[0] == uint8_t(101));
  backend.replace_member(0, nullptr);
  backend.queue(io);
  CHECK(backend.reap(1) == 1);
  CHECK(c.result == -ENODEV);
}

TEST_CASE("io_uring backend: I/O into registered buffers reads and writes the right bytes",
          "[uring][needs-uring]") {
  require_uring();
  TempFile file(8);
  std::string err;
  auto dev = rs::test::or_empty(MemberDevice::open(file.path, OpenMode::ReadWrite), &err);
  INFO(err);
  REQUIRE(dev);
  MemberDevice* members[] = {dev.get()};
  auto backend_owner = uring(members, 16);
  UringBackend& backend = *backend_owner;
  // Two regions: a read into the second must carry the second's index (the
  // kernel refuses an address outside the buffer it is told).
  auto first = rs::test::must(AlignedBuffer::allocate(2 * kBlock));
  auto second = rs::test::must(AlignedBuffer::allocate(2 * kBlock));
  auto outside = rs::test::must(AlignedBuffer::allocate(2 * kBlock));
  const int h1 = backend.register_buffer(first.data(), first.size());
  const int h2 = backend.register_buffer(second.data(), second.size());
  REQUIRE(h1 >= 0);
  REQUIRE(h2 >= 0);
  CHECK(h1 != h2);
  CHECK(backend.describe().find("registered buffers") != std::string::npos);
  auto run = [&](uint8_t* buffer, uint32_t length, uint64_t block, bool write) {
    Completion c;
    MemberIo io;
    io.member = 0;
    io.offset = block * kBlock;
    io.length = length;
    io.buffer = buffer;
    io.write = write;
    io.done = count_completion;
    io.owner = &c;
    backend.queue(io);
    backend.submit();
    REQUIRE(backend.reap(1) == 1);
    CHECK(c.calls == 1);
    return c.result;
  };
  // Block i of the file holds 1 + i (TempFile).
  CHECK(run(second.data() + kBlock, kBlock, 5, false) == int(kBlock));
  CHECK(second.data()[kBlock] == uint8_t(6));
  CHECK(second.data()[2 * kBlock - 1] == uint8_t(6));
  CHECK(run(first.data(), 2 * kBlock, 2, false) == int(2 * kBlock));
  CHECK(first.data()[0] == uint8_t(3));
  CHECK(first.data()[2 * kBlock - 1] == uint8_t(4));
  // Memory nobody registered goes the usual way.
  CHECK(run(outside.data(), kBlock, 7, false) == int(kBlock));
  CHECK(outside.data()[0] == uint8_t(8));
  // A write from a registered buffer lands in the file.
  std::memset(second.data(), 0xab, kBlock);
  CHECK(run(second.data(), kBlock, 0, true) == int(kBlock));
  CHECK(run(outside.data(), kBlock, 0, false) == int(kBlock));
  CHECK(outside.data()[0] == uint8_t(0xab));
  CHECK(outside.data()[kBlock - 1] == uint8_t(0xab));
  // Unregistered, the memory still works; its slot is free for the next.
  backend.unregister_buffer(h1);
  CHECK(run(first.data(), kBlock, 1, false) == int(kBlock));
  CHECK(first.data()[0] == uint8_t(2));
  CHECK(backend.register_buffer(outside.data(), outside.size()) == h1);
  backend.unregister_buffer(h2);
  backend.unregister_buffer(h1);
  CHECK(backend.describe().find("registered buffers") == std::string::npos);
  // Nothing the kernel cannot take: empty, or over its 1 GiB per buffer.
  CHECK(backend.register_buffer(first.data(), 0) == -1);
}

TEST_CASE(
    "io_uring backend: a buffer registered for its owner keeps the owner until unregistered or the "
    "backend goes",
    "[uring][needs-uring]") {
  require_uring();
  TempFile file(8);
  auto dev = open_file(file);
  MemberDevice* members[] = {dev.get()};
  // Through a decorator, as an array's backend may be: the calls reach the ring.
  auto inner = uring(members, 16);
  UringBackend& ring = *inner;
  auto owned = std::make_unique<FaultBackend>(std::move(inner), members);
  Backend& backend = *owned;
  auto memory = std::make_shared<AlignedBuffer>(rs::test::must(AlignedBuffer::allocate(4 * kBlock)));
  uint8_t* base = memory->data();
  std::weak_ptr<AlignedBuffer> alive = memory;
  const int h = backend.register_owned_buffer(base, 4 * kBlock, std::move(memory));
  REQUIRE(h >= 0);
  CHECK_FALSE(alive.expired());  // only the backend holds it now
  // Lookups: any range inside the region, nothing crossing its end.
  CHECK(backend.registered_buffer(base, 4 * kBlock) == h);
  CHECK(backend.registered_buffer(base + 3 * kBlock, kBlock) == h);
  CHECK(backend.registered_buffer(base + 3 * kBlock, 2 * kBlock) == -1);
  CHECK(backend.registered_buffer(base + 4 * kBlock, kBlock) == -1);
  // A read into its third page goes as READ_FIXED and lands there, not at
  // the region's start (block i of the file holds 1 + i).
  std::memset(base, 0, 4 * kBlock);
  Completion c;
  MemberIo io;
  io.member = 0;
  io.offset = 5 * kBlock;
  io.length = kBlock;
  io.buffer = base + 2 * kBlock;
  io.done = count_completion;
  io.owner = &c;
  const uint64_t fixed0 = ring.fixed_ios();
  backend.queue(io);
  backend.submit();
  REQUIRE(backend.reap(1) == 1);
  CHECK(c.result == int(kBlock));
  CHECK(ring.fixed_ios() == fixed0 + 1);
  CHECK(base[0] == 0);
  CHECK(base[2 * kBlock] == uint8_t(6));
  CHECK(base[3 * kBlock - 1] == uint8_t(6));
  CHECK(base[3 * kBlock] == 0);
  backend.unregister_buffer(h);
  CHECK(alive.expired());
  CHECK(backend.registered_buffer(base, kBlock) == -1);

  // Still registered when the backend goes: released with it.
  auto again = std::make_shared<AlignedBuffer>(rs::test::must(AlignedBuffer::allocate(kBlock)));
  std::weak_ptr<AlignedBuffer> alive_again = again;
  uint8_t* p = again->data();
  REQUIRE(backend.register_owned_buffer(p, kBlock, std::move(again)) >= 0);
  owned.reset();
  CHECK(alive_again.expired());
}
