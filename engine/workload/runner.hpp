// Runs a list of fio jobs against one target, fio-style: jobs up to a
// `stonewall` form a group that runs side by side; each job's numjobs
// clones are separate instances. On real targets every instance is a thread
// with its own io_uring context; on a simulated target all instances share
// the virtual-time backend on the calling thread, so a run is deterministic.
#pragma once
#include <string>
#include <vector>

#include "workload/job_driver.hpp"
#include "workload/job_log.hpp"
#include "workload/job_options.hpp"
#include "workload/results.hpp"
#include "workload/target.hpp"

namespace rs::workload {

struct RunOutcome {
  bool ok = false;
  std::string error;  // a job that could not start (bad options for this target)
  RunResults results;
  uint64_t verify_errors = 0;
  std::vector<std::string> verify_messages;  // first failure per job
};

// Checks every job against the target (sizes, alignment, verify mode, a
// page cache for direct=0 written out, mmap needing a file) and applies
// fio's fix-ups (the sync engines' depth capped at 1); returns "" or the
// first problem, naming the job.
std::string check_jobs(std::vector<JobOptions>& jobs, const Target& target);

// A job on files of its own (file_set.hpp): each file's region checked as
// a one-file job's would be (bs fits, direct=1 alignment), and what file
// sets do not support refused. Returns "" or the problem.
std::string check_file_set_job(const JobOptions& job, uint32_t block_size);

// Total bytes the run will move when none is time based (0 otherwise), and
// its longest planned duration in ns (0 if none is time limited): for
// progress and ETA.
// fio's notes about the engines, one line each, for the output: a sync
// engine's iodepth capped at 1 (per job), libaio/posixaio run on io_uring
// (once per engine). Call before check_jobs(), which caps the depth.
std::vector<std::string> engine_notes(const std::vector<JobOptions>& jobs);

uint64_t planned_bytes(const std::vector<JobOptions>& jobs);
uint64_t planned_ns(const std::vector<JobOptions>& jobs);

// `jobs` must have passed check_jobs(). `progress` may be null. Jobs that
// ask for log files get theirs from `open_logs` (fio::open_job_logs for
// fio's files); without one such a job is refused.
RunOutcome run_jobs(const std::vector<JobOptions>& jobs, const OptionList& global_options, Target& target,
                    RunProgress* progress, const JobLogOpener& open_logs = {});

}  // namespace rs::workload
