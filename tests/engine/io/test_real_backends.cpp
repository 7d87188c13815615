// The real backends (io_uring and the pread/pwrite fallback) on a file:
// every queued I/O completes exactly once with the right bytes, and the reap
// limit (fio's iodepth_batch_complete_max) caps each reap() call without
// losing or stalling completions.
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "io/member_device.hpp"
#include "io/uring_backend.hpp"

using namespace rs::io;

namespace {

constexpr unsigned kIos = 24;
constexpr uint32_t kBlock = 4096;

struct TempFile {
  std::string path;
  TempFile() {
    char tmpl[] = "/var/tmp/raidscope-backend.XXXXXX";
    int fd = ::mkstemp(tmpl);
    REQUIRE(fd >= 0);
    path = tmpl;
    // Block i holds the byte value i + 1 throughout.
    std::vector<uint8_t> block(kBlock);
    for (unsigned i = 0; i < kIos; ++i) {
      std::memset(block.data(), int(i + 1), kBlock);
      REQUIRE(::pwrite(fd, block.data(), kBlock, off_t(i) * kBlock) == ssize_t(kBlock));
    }
    ::close(fd);
  }
  ~TempFile() { ::unlink(path.c_str()); }
};

struct Completion {
  unsigned calls = 0;
  int result = 0;
};

void on_done(MemberIo& io, int result) {
  auto* c = static_cast<Completion*>(io.owner);
  ++c->calls;
  c->result = result;
}

// Queues kIos block reads, reaps with `limit` per call and checks every
// completion, the bytes, and that no reap ran more than the limit.
void read_all_with_limit(Backend& backend, unsigned limit) {
  AlignedBuffer buf(kIos * kBlock);
  std::memset(buf.data(), 0, buf.size());
  std::vector<MemberIo> ios(kIos);
  std::vector<Completion> done(kIos);
  for (unsigned i = 0; i < kIos; ++i) {
    ios[i].member = 0;
    ios[i].offset = uint64_t(i) * kBlock;
    ios[i].length = kBlock;
    ios[i].buffer = buf.data() + size_t(i) * kBlock;
    ios[i].done = on_done;
    ios[i].owner = &done[i];
    backend.queue(ios[i]);
  }
  backend.submit();
  backend.set_reap_limit(limit);
  unsigned total = 0, calls = 0;
  while (backend.in_flight() > 0 && calls < 10 * kIos) {
    const unsigned n = backend.reap(1);
    CHECK(n >= 1);  // reap(1) waits for one, however the kernel batches them
    CHECK(n <= limit);
    total += n;
    ++calls;
  }
  CHECK(total == kIos);
  if (limit == 1) CHECK(calls == kIos);
  for (unsigned i = 0; i < kIos; ++i) {
    INFO("block " << i);
    CHECK(done[i].calls == 1);
    CHECK(done[i].result == int(kBlock));
    CHECK(buf.data()[size_t(i) * kBlock] == uint8_t(i + 1));
    CHECK(buf.data()[size_t(i + 1) * kBlock - 1] == uint8_t(i + 1));
  }
}

std::unique_ptr<MemberDevice> open_file(const TempFile& f) {
  std::string err;
  auto dev = MemberDevice::open(f.path, OpenMode::ReadOnly, &err);
  INFO(err);
  REQUIRE(dev);
  return dev;
}

}  // namespace

TEST_CASE("io_uring backend: the reap limit caps each call and loses nothing", "[uring]") {
  TempFile file;
  auto dev = open_file(file);
  MemberDevice* members[] = {dev.get()};
  for (unsigned limit : {1u, 3u, 64u, ~0u}) {
    INFO("reap limit " << limit);
    std::string note;
    auto backend = make_real_backend(members, 32, &note);
    INFO(backend->describe() << " " << note);
    read_all_with_limit(*backend, limit);
  }
}

TEST_CASE("io_uring backend: completions can queue and submit from inside reap", "[uring]") {
  // The job driver submits from inside completion callbacks (fio's
  // iodepth_batch_submit=1): a chain of reads, each started by the previous
  // one's completion, must run to the end.
  TempFile file;
  auto dev = open_file(file);
  MemberDevice* members[] = {dev.get()};
  auto backend = make_real_backend(members, 4, nullptr);
  struct Chain {
    Backend* backend;
    MemberIo io;
    unsigned next = 0;
    std::vector<uint8_t> seen;
  };
  AlignedBuffer buf(kBlock);
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
  backend->set_reap_limit(1);
  backend->queue(chain.io);
  backend->submit();
  unsigned guard = 0;
  while (backend->in_flight() > 0 && guard++ < 10 * kIos) backend->reap(1);
  REQUIRE(chain.seen.size() == kIos);
  for (unsigned i = 0; i < kIos; ++i) CHECK(chain.seen[i] == uint8_t(i + 1));
}

TEST_CASE("pread/pwrite fallback backend honours the reap limit too", "[uring]") {
  TempFile file;
  auto dev = open_file(file);
  MemberDevice* members[] = {dev.get()};
  SyncBackend backend(members);
  read_all_with_limit(backend, 5);
}

TEST_CASE("io_uring backend: a timer completes with -EAGAIN after its delay, touching no device", "[uring]") {
  TempFile file;
  auto dev = open_file(file);
  MemberDevice* members[] = {dev.get()};
  auto backend = make_real_backend(members, 4, nullptr);
  Completion c;
  MemberIo timer;
  timer.member = 0;
  timer.done = on_done;
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
