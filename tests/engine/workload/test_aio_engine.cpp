// The queued engines on files: libaio (aio_engine.hpp, Linux AIO through
// its system calls) and posixaio (posix_aio_engine.hpp, glibc's POSIX AIO).
// For each: reads return the file's bytes at the right offsets, writes
// land, a batch of queued I/O is reaped at most max_per_reap per call, a timer
// completes with -EAGAIN, an I/O to a missing member fails with -ENODEV and
// one the kernel refuses with its error.
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "../../common/result_helpers.hpp"
#include "../../common/temp_dir.hpp"
#include "fio_run_on_file.hpp"
#include "io/member_device.hpp"
#include "workload/aio_engine.hpp"
#include "workload/posix_aio_engine.hpp"

using namespace rs;
using namespace rs::workload;
using namespace rs::fio;

namespace {

struct Done {
  int calls = 0;
  int result = 0;
};

void on_done(io::MemberIo& io, int result) {
  auto* d = static_cast<Done*>(io.owner);
  ++d->calls;
  d->result = result;
}

void* aligned(size_t bytes) {
  void* p = nullptr;
  REQUIRE(::posix_memalign(&p, 4096, bytes) == 0);
  return p;
}

// Block b (4 KiB) of a 1 MiB file holds the byte b: offsets mixed up show.
std::unique_ptr<io::MemberDevice> numbered_blocks_file(const std::string& path) {
  fio_test::write_filled_file(path, 1 << 20, 0x11);
  const int fd = ::open(path.c_str(), O_WRONLY);
  REQUIRE(fd >= 0);
  std::vector<uint8_t> block(4096);
  for (int b = 0; b < 256; ++b) {
    std::memset(block.data(), b, block.size());
    REQUIRE(::pwrite(fd, block.data(), block.size(), off_t(b) * 4096) == 4096);
  }
  ::close(fd);
  std::string err;
  auto dev = rs::test::or_empty(io::MemberDevice::open(path, io::OpenMode::ReadWrite), &err);
  INFO(err);
  REQUIRE(dev);
  REQUIRE(dev->info().direct);
  return dev;
}

// `aio` was made with members {the numbered file, nullptr} and depth 8.
void check_queued_engine(io::Backend* aio) {
  // Eight reads queued, one submit, all reaped.
  std::vector<Done> done(8);
  std::vector<io::MemberIo> ios(8);
  std::vector<void*> bufs;
  for (int i = 0; i < 8; ++i) {
    bufs.push_back(aligned(4096));
    ios[size_t(i)] = {};
    ios[size_t(i)].member = 0;
    ios[size_t(i)].offset = uint64_t(10 + 3 * i) * 4096;
    ios[size_t(i)].length = 4096;
    ios[size_t(i)].buffer = bufs.back();
    ios[size_t(i)].done = on_done;
    ios[size_t(i)].owner = &done[size_t(i)];
    aio->queue(ios[size_t(i)]);
  }
  CHECK(aio->in_flight() == 8);
  aio->submit();
  unsigned reaped = 0;
  while (reaped < 8) {
    const unsigned n = aio->reap(1);
    CHECK(n >= 1);
    CHECK(n <= 3);  // at most max_per_reap per call
    reaped += n;
  }
  CHECK(aio->in_flight() == 0);
  for (int i = 0; i < 8; ++i) {
    CHECK(done[size_t(i)].calls == 1);
    CHECK(done[size_t(i)].result == 4096);
    const auto* p = static_cast<const uint8_t*>(bufs[size_t(i)]);
    CHECK(p[0] == uint8_t(10 + 3 * i));
    CHECK(p[4095] == uint8_t(10 + 3 * i));
  }

  // A write, then a read of the same block sees it.
  std::memset(bufs[0], 0xc3, 4096);
  ios[0].write = true;
  ios[0].offset = 200 * 4096;
  done[0] = {};
  aio->queue(ios[0]);
  CHECK(aio->reap(1) == 1);  // reap submits what is queued
  CHECK(done[0].result == 4096);
  std::memset(bufs[1], 0, 4096);
  ios[1].offset = 200 * 4096;
  done[1] = {};
  aio->queue(ios[1]);
  CHECK(aio->reap(1) == 1);
  CHECK(static_cast<const uint8_t*>(bufs[1])[100] == 0xc3);

  // A missing member (index 1 is null) fails; a timer completes with -EAGAIN.
  ios[2].member = 1;
  done[2] = {};
  aio->queue(ios[2]);
  done[3] = {};
  aio->queue_timer(ios[3], 2'000'000);
  CHECK(aio->reap(1) >= 1);
  CHECK(done[2].result == -ENODEV);
  while (done[3].calls == 0) aio->reap(1);
  CHECK(done[3].result == -EAGAIN);
  CHECK(aio->in_flight() == 0);
  // A request the kernel refuses (misaligned for O_DIRECT) fails with its error.
  ios[4].member = 0;
  ios[4].length = 100;
  done[4] = {};
  aio->queue(ios[4]);
  aio->reap(1);
  CHECK(done[4].calls == 1);
  CHECK(done[4].result == -EINVAL);
  for (void* b : bufs) ::free(b);
}

}  // namespace

TEST_CASE("libaio engine: reads and writes the right bytes, batches, timers, missing members",
          "[engines][aio]") {
  test::TempDir dir("rs-aio");
  auto dev = numbered_blocks_file(dir.file("data"));
  auto aio = test::must(AioBackend::make({dev.get(), nullptr}, 8, 3));
  REQUIRE(aio);
  check_queued_engine(aio.get());
}

TEST_CASE("posixaio engine: reads and writes the right bytes, batches, timers, missing members",
          "[engines][aio]") {
  test::TempDir dir("rs-paio");
  auto dev = numbered_blocks_file(dir.file("data"));
  auto aio = test::must(PosixAioBackend::make({dev.get(), nullptr}, 8, 3));
  REQUIRE(aio);
  check_queued_engine(aio.get());
  CHECK_THAT(aio->describe(), Catch::Contains("glibc POSIX AIO"));
}
