// How the io_uring backend enters the kernel: the I/O that one reap's
// completion callbacks queue (a job re-arming its slots, each followed by
// submit() as fio's iodepth_batch_submit=1) goes to the kernel in one
// io_uring_enter after the batch, not in one enter per I/O; and a
// single-issuer ring has its fd registered.
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "io/uring_backend.hpp"
#include "real_files.hpp"

using namespace rs::io;
using namespace rs::io::test;

namespace {

constexpr unsigned kBatch = 8;

// Each I/O first completes as a timer (a completion the backend holds
// itself, so all kBatch are delivered by one reap, whatever the disk does),
// then re-arms as a read of block `index` and submits, as the job driver
// does after each I/O it issues.
struct Rearm {
  UringBackend* backend = nullptr;
  std::vector<uint64_t> enters_seen;  // backend->enters() at each re-arm
  unsigned reads_done = 0;
};

void on_done(MemberIo& io, int result) {
  auto& s = *static_cast<Rearm*>(io.owner);
  if (result == -EAGAIN) {  // the timer: re-arm as a read
    io.write = false;
    io.length = kBlock;
    s.backend->queue(io);
    s.backend->submit();
    s.enters_seen.push_back(s.backend->enters());
    return;
  }
  REQUIRE(result == int(kBlock));
  ++s.reads_done;
}

}  // namespace

TEST_CASE("io_uring backend: the I/O a reap's completions re-arm goes to the kernel in one enter",
          "[uring][needs-uring]") {
  require_uring();
  TempFile file(kBatch);
  auto dev = open_file(file);
  MemberDevice* members[] = {dev.get()};
  auto backend = uring(members, 2 * kBatch);
  Reads reads(kBatch);
  Rearm state;
  state.backend = backend.get();
  for (auto& io : reads.ios) {
    io.owner = &state;
    io.done = on_done;
    backend->queue_timer(io, 0);
  }
  const uint64_t enters0 = backend->enters(), submitted0 = backend->submitted();
  // One reap delivers the kBatch timers; their callbacks queue kBatch reads.
  CHECK(backend->reap(kBatch) >= kBatch);
  REQUIRE(state.enters_seen.size() == kBatch);
  // No submit() inside the callbacks entered the kernel...
  for (uint64_t e : state.enters_seen) CHECK(e == enters0);
  // ...and the reap handed all kBatch reads to the kernel in one enter.
  CHECK(backend->enters() == enters0 + 1);
  CHECK(backend->submitted() == submitted0 + kBatch);
  unsigned guard = 0;
  while (backend->in_flight() > 0 && guard++ < 100) backend->reap(1);
  CHECK(state.reads_done == kBatch);
  for (unsigned i = 0; i < kBatch; ++i) CHECK(reads.buf.data()[i * kBlock] == uint8_t(1 + i));
}

TEST_CASE("io_uring backend: a submit outside a reap enters the kernel at once", "[uring][needs-uring]") {
  require_uring();
  TempFile file(kBatch);
  auto dev = open_file(file);
  MemberDevice* members[] = {dev.get()};
  auto backend = uring(members, kBatch);
  Reads reads(kBatch);
  const uint64_t enters0 = backend->enters();
  reads.queue_all(*backend);  // kBatch queue() calls, one submit()
  CHECK(backend->enters() == enters0 + 1);
  CHECK(backend->submitted() == kBatch);
  unsigned guard = 0;
  while (backend->in_flight() > 0 && guard++ < 100) backend->reap(1);
  reads.check_all();
}

TEST_CASE("io_uring backend: a single-issuer ring has its fd registered", "[uring][needs-uring]") {
  require_uring();
  auto backend = uring({}, 8);
  // Kernels without single issuer (before 6.0) fall back to a plain ring,
  // whose fd is not registered (the registration is per thread).
  if (backend->describe().find("single issuer") == std::string::npos) {
    CHECK_FALSE(backend->ring_fd_registered());
    return;
  }
  CHECK(backend->ring_fd_registered());
}
