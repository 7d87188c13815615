// How fast the simulator runs through the whole stack: fio-style jobs
// (workload runner and job driver) on a simulated RAID1 (array, read
// policy) of emulated disks (block layer and device models) on the
// virtual-time backend, one thread. Prints member I/Os per wall-clock
// second (the figure the design bounds: a 60 s seed benchmark must replay
// in well under a second) and per second of this process's CPU time (the
// same figure without the other processes of a shared machine). Prints
// figures only, asserts nothing.
//
// Usage: bench_sim [seconds of virtual time per row] [resources dir]
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "scenario/scenario.hpp"

#ifndef RAIDSCOPE_SOURCE_DIR
#define RAIDSCOPE_SOURCE_DIR "."
#endif

namespace {

using namespace rs;

double cpu_seconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

struct Case {
  const char* what;
  const char* policy;
  std::vector<std::string> members;
  std::vector<std::pair<std::string, std::string>> job;
};

}  // namespace

int main(int argc, char** argv) {
  const std::string seconds = argc > 1 ? argv[1] : "2";
  const std::string dir = argc > 2 ? argv[2] : std::string(RAIDSCOPE_SOURCE_DIR) + "/resources";
  const std::vector<Case> cases = {
      {"2x nvme-gm9000, md-rr, 4k randread QD32",
       "md-rr",
       {"nvme-gm9000", "nvme-gm9000"},
       {{"rw", "randread"}, {"bs", "4k"}, {"iodepth", "32"}}},
      {"2x nvme-gm9000, md-rr, 1M read QD16",
       "md-rr",
       {"nvme-gm9000", "nvme-gm9000"},
       {{"rw", "read"}, {"bs", "1M"}, {"iodepth", "16"}}},
      {"hdd-old + ssd-sata, btrfs-qlen, 32k randread QD16",
       "btrfs-qlen",
       {"hdd-old", "ssd-sata"},
       {{"rw", "randread"}, {"bs", "32k"}, {"iodepth", "16"}}},
      {"3x hdd-hdwg740, md-rr, 1M read QD16",
       "md-rr",
       {"hdd-hdwg740", "hdd-hdwg740", "hdd-hdwg740"},
       {{"rw", "read"}, {"bs", "1M"}, {"iodepth", "16"}}},
  };
  std::printf("virtual time per case: %s s\n", seconds.c_str());
  std::printf("%-52s %12s %10s %10s %14s %14s\n", "case", "member I/Os", "wall s", "cpu s", "M I/Os/wall s",
              "M I/Os/cpu s");
  uint64_t all_ios = 0;
  double all_wall = 0, all_cpu = 0;
  for (const Case& c : cases) {
    std::string err;
    std::vector<io::DeviceProfile> profiles;
    for (auto& m : c.members) {
      auto p = io::find_profile(m, {dir + "/profiles"});
      if (!p) {
        std::fprintf(stderr, "bench_sim: %s\n", p.error().message.c_str());
        return 1;
      }
      profiles.push_back(*p);
    }
    scenario::ScenarioRow row;
    row.label = c.what;
    row.members = c.members;
    row.job = c.job;
    row.job.push_back({"size", "64g"});
    row.job.push_back({"runtime", seconds});
    row.job.push_back({"time_based", "1"});
    const double cpu0 = cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    auto f = scenario::simulate_row(row, c.policy, profiles, {});
    if (!f) err = f.error().message;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double cpu = cpu_seconds() - cpu0;
    if (!f) {
      std::fprintf(stderr, "bench_sim: %s\n", err.c_str());
      return 1;
    }
    std::printf("%-52s %12llu %10.3f %10.3f %14.2f %14.2f\n", c.what, (unsigned long long)f->member_ios, wall,
                cpu, double(f->member_ios) / wall / 1e6, double(f->member_ios) / cpu / 1e6);
    all_ios += f->member_ios;
    all_wall += wall;
    all_cpu += cpu;
  }
  std::printf("%-52s %12llu %10.3f %10.3f %14.2f %14.2f\n", "all", (unsigned long long)all_ios, all_wall,
              all_cpu, double(all_ios) / all_wall / 1e6, double(all_ios) / all_cpu / 1e6);
  std::printf("simulated member I/Os per wall-clock second: %.0f\n", double(all_ios) / all_wall);
  return 0;
}
