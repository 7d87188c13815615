// What an I/O context costs, measured side by side in one run:
//  1. posts per second into a ContextThread from 1 and from 2 threads
//     (io_uring context: wakeups through the eventfd read armed in the ring;
//     pread fallback: wakeups through poll()).
//  2. the cost (wall and process CPU time) per completion of IoContext::run_once(1) against the plain
//     backend reap(1) loop on the same 4 KiB QD32 random-read workload over
//     a file on tmpfs (buffered reads from memory: almost no device time,
//     so the loop's own cost shows), for io_uring and the pread fallback.
// Prints figures and ratios only, asserts nothing.
//
// Usage: bench_context [posts_per_thread] [completions] [dir for the tmpfs file]
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "../common/result_helpers.hpp"
#include "io/context.hpp"
#include "io/member_device.hpp"
#include "io/uring_backend.hpp"

namespace {

using namespace rs::io;
using Clock = std::chrono::steady_clock;

constexpr uint32_t kBlock = 4096;
constexpr unsigned kDepth = 32;
constexpr unsigned kFileBlocks = 4096;  // 16 MiB

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Posts from `threads` threads at once, `per_thread` each; the clock stops
// when the context thread has run the last one.
double posts_per_second(const char* label, ContextThread::BackendFactory factory, unsigned threads,
                        uint64_t per_thread) {
  ContextThread ctx(label, std::move(factory));
  if (!ctx.status().ok()) {
    std::printf("  %-34s %s\n", label, ctx.status().error().message.c_str());
    return 0;
  }
  uint64_t ran = 0;  // context thread only
  std::atomic<bool> all_ran{false};
  const uint64_t total = per_thread * threads;
  const auto t0 = Clock::now();
  std::vector<std::thread> posters;
  for (unsigned t = 0; t < threads; ++t)
    posters.emplace_back([&] {
      for (uint64_t i = 0; i < per_thread; ++i)
        ctx.post([&] {
          if (++ran == total) all_ran.store(true, std::memory_order_release);
        });
    });
  for (auto& p : posters) p.join();
  while (!all_ran.load(std::memory_order_acquire)) std::this_thread::yield();
  const double s = seconds_since(t0);
  ctx.stop();
  const double rate = double(total) / s;
  std::printf("  %-34s %u thread%s  %10.0f posts/s  (%.0f ns per post)\n", label, threads,
              threads > 1 ? "s" : " ", rate, 1e9 / rate);
  return rate;
}

// 4 KiB random reads kept at QD32, each completion queueing the next.
struct Workload {
  Backend* backend = nullptr;
  std::vector<MemberIo> ios = std::vector<MemberIo>(kDepth);
  AlignedBuffer buf = rs::test::must(AlignedBuffer::allocate(size_t(kDepth) * kBlock));
  uint64_t issued = 0, completed = 0, total = 0, errors = 0;
  std::mt19937_64 rng{42};

  void issue(MemberIo& io) {
    io.offset = rng() % kFileBlocks * kBlock;
    ++issued;
    backend->queue(io);
  }
  static void done(MemberIo& io, int result) {
    auto& w = *static_cast<Workload*>(io.owner);
    ++w.completed;
    if (result != int(kBlock)) ++w.errors;
    if (w.issued < w.total) w.issue(io);
  }
  void start(Backend& b, uint64_t n) {
    backend = &b;
    total = n;
    for (unsigned i = 0; i < kDepth; ++i) {
      ios[i].member = 0;
      ios[i].length = kBlock;
      ios[i].buffer = buf.data() + size_t(i) * kBlock;
      ios[i].done = done;
      ios[i].owner = this;
      issue(ios[i]);
    }
    b.submit();
  }
};

// ns per completion of one loop over a fresh backend.
struct LoopCost {
  double wall_ns = 1e30, cpu_ns = 1e30;  // per completion
};

double process_cpu_seconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

// Wall and CPU time per completion of one loop over a fresh backend. CPU
// time is the process's (io_uring's workers included): it counts what the
// loop costs, not the time a neighbour held the core.
LoopCost loop_cost(std::unique_ptr<Backend> backend, bool through_context, uint64_t n) {
  Workload w;
  std::unique_ptr<IoContext> ctx;
  Backend* b = backend.get();
  if (through_context) ctx = std::make_unique<IoContext>(std::move(backend), "bench");
  w.start(*b, n);
  const auto t0 = Clock::now();
  const double cpu0 = process_cpu_seconds();
  if (ctx) {
    while (w.completed < n) ctx->run_once(1);
  } else {
    while (w.completed < n) b->reap(1);
  }
  LoopCost c{seconds_since(t0) * 1e9 / double(n), (process_cpu_seconds() - cpu0) * 1e9 / double(n)};
  if (w.errors) std::printf("  (%llu reads failed)\n", static_cast<unsigned long long>(w.errors));
  return c;
}

void compare_loops(const char* label, const std::function<std::unique_ptr<Backend>()>& make, uint64_t n) {
  // Alternate the two loops and keep each one's best of five, so a
  // neighbour's burst on the shared cores does not decide the ratio.
  LoopCost plain, context;
  for (int round = 0; round < 5; ++round) {
    for (bool through_context : {false, true}) {
      const LoopCost c = loop_cost(make(), through_context, n);
      LoopCost& best = through_context ? context : plain;
      best.wall_ns = std::min(best.wall_ns, c.wall_ns);
      best.cpu_ns = std::min(best.cpu_ns, c.cpu_ns);
    }
  }
  std::printf(
      "  %-16s wall: reap(1) %6.0f ns  run_once(1) %6.0f ns  ratio %.2f | "
      "cpu: reap(1) %6.0f ns  run_once(1) %6.0f ns  ratio %.2f\n",
      label, plain.wall_ns, context.wall_ns, context.wall_ns / plain.wall_ns, plain.cpu_ns, context.cpu_ns,
      context.cpu_ns / plain.cpu_ns);
}

std::string make_tmpfs_file(const std::string& dir) {
  std::string path = dir + "/raidscope-bench-context.XXXXXX";
  int fd = ::mkstemp(path.data());
  if (fd < 0) return {};
  std::vector<uint8_t> block(kBlock, 0x5a);
  for (unsigned i = 0; i < kFileBlocks; ++i)
    if (::pwrite(fd, block.data(), kBlock, off_t(i) * kBlock) != ssize_t(kBlock)) {
      ::close(fd);
      ::unlink(path.c_str());
      return {};
    }
  ::close(fd);
  return path;
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t posts = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2'000'000;
  const uint64_t completions = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1'000'000;
  const std::string dir = argc > 3 ? argv[3] : "/dev/shm";

  auto uring_none = [] { return std::unique_ptr<Backend>(rs::test::must(UringBackend::create({}, 8))); };
  auto sync_none = [] { return std::make_unique<SyncBackend>(std::span<MemberDevice* const>{}); };
  std::printf("posts into a ContextThread (%llu per posting thread)\n",
              static_cast<unsigned long long>(posts));
  if (auto probe = UringBackend::create({}, 8); probe)
    for (unsigned threads : {1u, 2u}) posts_per_second("io_uring context", uring_none, threads, posts);
  else
    std::printf("  io_uring context: %s\n", probe.error().message.c_str());
  for (unsigned threads : {1u, 2u})
    posts_per_second("pread-fallback context (poll)", sync_none, threads, posts);

  const std::string path = make_tmpfs_file(dir);
  if (path.empty()) {
    std::printf("cannot make a 16 MiB file in %s\n", dir.c_str());
    return 1;
  }
  std::string err;
  auto dev = rs::test::or_empty(MemberDevice::open(path, OpenMode::ReadOnly), &err);
  ::unlink(path.c_str());  // the open descriptor keeps it
  if (!dev) {
    std::printf("%s\n", err.c_str());
    return 1;
  }
  MemberDevice* members[] = {dev.get()};
  std::printf(
      "\n4 KiB random reads, QD%u, %llu completions per loop, file on %s%s (per completion, best of 5)\n",
      kDepth, static_cast<unsigned long long>(completions), dir.c_str(),
      dev->info().direct ? " (O_DIRECT)" : "");
  if (auto probe = UringBackend::create({}, 8); probe)
    compare_loops(
        "io_uring",
        [&] { return std::unique_ptr<Backend>(rs::test::must(UringBackend::create(members, kDepth))); },
        completions);
  else
    std::printf("  io_uring: %s\n", probe.error().message.c_str());
  compare_loops(
      "pread fallback", [&] { return std::make_unique<SyncBackend>(members); }, completions);
  return 0;
}
