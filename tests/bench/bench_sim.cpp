// How fast the simulator runs: drives 4 KiB random member reads at QD32 over
// two nvme-gm9000 models through one SimBackend on one thread, and prints
// simulated member I/Os per wall-clock second. The design asks that a 60 s
// seed benchmark replay in well under a second; this is the figure that
// bounds it. Prints figures only, asserts nothing.
//
// Usage: bench_sim [total_ios] [profile_dir]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "io/device_profile.hpp"
#include "io/sim_backend.hpp"

#ifndef RAIDSCOPE_SOURCE_DIR
#define RAIDSCOPE_SOURCE_DIR "."
#endif

namespace {

using namespace rs::io;

// One fio-like job: keeps every slot in flight until `total` have been issued.
struct Job {
  SimBackend* be = nullptr;
  uint64_t issued = 0, completed = 0, total = 0;
  uint64_t rng = 0x243F6A8885A308D3ull;
  uint64_t latency_sum_ns = 0;

  uint64_t next_random() {  // splitmix64
    uint64_t z = (rng += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  void issue(MemberIo& io) {
    const uint64_t r = next_random();
    io.member = int(r & 1);
    io.offset = ((r >> 1) % (uint64_t(1) << 28)) * 4096;  // anywhere in 1 TiB
    io.tag = be->now_ns();
    ++issued;
    be->queue(io);
  }

  static void done(MemberIo& io, int /*result*/) {
    Job& j = *static_cast<Job*>(io.owner);
    ++j.completed;
    j.latency_sum_ns += j.be->now_ns() - io.tag;
    if (j.issued < j.total) j.issue(io);
  }
};

}  // namespace

int main(int argc, char** argv) {
  const uint64_t total = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 10'000'000;
  const std::string dir = argc > 2 ? argv[2] : std::string(RAIDSCOPE_SOURCE_DIR) + "/resources/profiles";
  const unsigned qd = 32;

  std::string err;
  auto profile = find_profile("nvme-gm9000", {dir}, &err);
  if (!profile) {
    std::fprintf(stderr, "bench_sim: %s\n", err.c_str());
    return 1;
  }
  auto m0 = make_model(*profile), m1 = make_model(*profile);
  DeviceModel* members[] = {m0.get(), m1.get()};
  SimBackend be(members, nullptr, qd);

  Job job;
  job.be = &be;
  job.total = total;
  std::vector<MemberIo> slots(qd);
  for (MemberIo& io : slots) {
    io.length = 4096;
    io.done = &Job::done;
    io.owner = &job;
  }

  const auto t0 = std::chrono::steady_clock::now();
  for (MemberIo& io : slots) job.issue(io);
  while (be.in_flight()) be.reap(1);
  const auto t1 = std::chrono::steady_clock::now();

  const double wall_s = std::chrono::duration<double>(t1 - t0).count();
  const double virt_s = double(be.now_ns()) * 1e-9;
  std::printf("profile: %s x2, 4 KiB random reads, QD%u, one thread\n", profile->name.c_str(), qd);
  std::printf("member I/Os: %llu in %.3f s wall, %.3f s virtual\n", (unsigned long long)job.completed, wall_s,
              virt_s);
  std::printf("simulated IOPS (virtual time): %.0f, mean latency %.1f us\n", double(job.completed) / virt_s,
              double(job.latency_sum_ns) / double(job.completed) * 1e-3);
  std::printf("wall-clock cost per simulated I/O: %.1f ns\n", wall_s * 1e9 / double(job.completed));
  std::printf("simulated member I/Os per wall-clock second: %.0f\n", double(job.completed) / wall_s);
  return 0;
}
