// A job by what it does, for programs that build jobs rather than read
// them (the GUI's presets and live workloads): typed fields in, the
// JobOptions the runner reads out, with no fio option strings in between.
// What is not named here keeps fio's default, as for a job given only
// these options. fio's option language stays at the edges (job files, the
// command line); this is the typed way in.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>

#include "base/result.hpp"
#include "workload/job_options.hpp"

namespace rs::workload {

struct JobSpec {
  std::string name = "job";
  RwMode rw = RwMode::read;
  uint32_t block_bytes = 4096;  // both directions (fio's bs=)
  unsigned iodepth = 1;
  unsigned numjobs = 1;  // clones of the job, each with its own seed
  IoEngine ioengine = IoEngine::io_uring;
  bool direct = true;
  unsigned rwmixread = 50;          // readwrite and randrw: percent of I/Os that read
  std::chrono::seconds runtime{0};  // 0: no limit
  bool time_based = false;          // run for `runtime` whatever the region's size
};

// The JobOptions of `spec`: fio's defaults but for the fields above, and
// `given` listing them by fio's names (fio JSON's "job options", as the
// CLI's `--bs=1M ...` would list them). Errc::invalid_argument naming the
// field for a block size of 0, a depth or job count of 0, a read mix above
// 100 or a time based job without a runtime.
Result<JobOptions> to_job_options(const JobSpec& spec);

}  // namespace rs::workload
