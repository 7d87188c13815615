// How the io_uring backend enters the kernel: the I/O that one reap's
// completion callbacks queue (a job re-arming its slots, each followed by
// submit() as fio's iodepth_batch_submit=1) goes to the kernel in one
// io_uring_enter after the batch, not in one enter per I/O; and a
// ring set up with single issuer and deferred task run wherever the kernel
// takes them (the kernel asked directly, and its refusals of another
// thread's enters observed), with its fd registered.
#include <liburing.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <iterator>
#include <set>
#include <string>
#include <thread>
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

// True when the kernel sets up a ring with `flags` (a ring of this test's
// own, closed at once).
bool kernel_takes_setup(unsigned flags) {
  io_uring ring;
  io_uring_params p{};
  p.flags = flags;
  if (io_uring_queue_init_params(8, &ring, &p) != 0) return false;
  io_uring_queue_exit(&ring);
  return true;
}

// The io_uring rings this process has open, by fd.
std::set<int> uring_fds() {
  std::set<int> fds;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    std::error_code link_ec;
    if (std::filesystem::read_symlink(e.path(), link_ec).string() == "anon_inode:[io_uring]")
      fds.insert(std::stoi(e.path().filename().string()));
  }
  return fds;
}

// The one fd in `after` that is not in `before`; -1 unless exactly one.
int the_new_fd(const std::set<int>& before, const std::set<int>& after) {
  std::vector<int> added;
  std::set_difference(after.begin(), after.end(), before.begin(), before.end(), std::back_inserter(added));
  return added.size() == 1 ? added[0] : -1;
}

// io_uring_enter(fd, to_submit, 0, flags) made from a new thread: 0 (or
// what it submitted) or -errno.
long enter_from_another_thread(int fd, unsigned to_submit, unsigned flags) {
  long rc = 0;
  std::thread t([&] {
    rc = ::syscall(__NR_io_uring_enter, fd, to_submit, 0u, flags, nullptr, size_t{0});
    if (rc < 0) rc = -errno;
  });
  t.join();
  return rc;
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

TEST_CASE("io_uring backend: where the kernel takes single issuer and deferred task run, the ring has both",
          "[uring][needs-uring]") {
  require_uring();
  // Asked of the kernel directly, not of the backend: 6.1 and later take
  // the pair (fio 3.33 sets them too); older kernels refuse with EINVAL.
  const bool kernel_takes = kernel_takes_setup(IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN);
  INFO("the kernel takes single issuer + deferred task run: " << kernel_takes);
  const std::set<int> before = uring_fds();
  auto backend = uring({}, 8);
  const int fd = the_new_fd(before, uring_fds());
  REQUIRE(fd >= 0);
  // What the kernel enforces on the backend's ring, seen from a thread
  // that did not make it: a single-issuer ring refuses its submissions,
  // a deferred-task-run ring its wait for completions (both EEXIST); a
  // plain ring takes both (nothing to submit, nothing to wait for).
  CHECK(enter_from_another_thread(fd, 1, 0) == (kernel_takes ? -EEXIST : 0));
  CHECK(enter_from_another_thread(fd, 0, IORING_ENTER_GETEVENTS) == (kernel_takes ? -EEXIST : 0));
  // A single-issuer ring's fd is registered with its thread (enters skip
  // the fd lookup); a plain ring's is not (the registration is per thread).
  CHECK(backend->ring_fd_registered() == kernel_takes);
  // And the backend says what it uses.
  CHECK((backend->describe().find("single issuer, deferred task run") != std::string::npos) == kernel_takes);
}
