// Each I/O's priority, as fio picks it (engines/cmdprio.c, fio 3.33): the
// job's own (prio= / prioclass=, else 0: the thread's), or for a share of
// the I/Os the cmdprio_* options' value. cmdprio_percentage gives
// cmdprio_class/cmdprio to that share of a direction's I/Os;
// cmdprio_bssplit gives each block size its shares, each with its priority.
// The value goes into the I/O's io_uring sqe (ioprio) and the logs.
#pragma once
#include <cstdint>
#include <vector>

#include "workload/job_options.hpp"
#include "workload/rand.hpp"

namespace rs::workload {

class IoPriorities {
 public:
  IoPriorities(const JobOptions& job, uint64_t seed);
  // The job's priority (fio's td->ioprio): prio/prioclass, 0 when not given.
  uint16_t job_ioprio() const { return job_ioprio_; }
  // The priority of one read or write (ddir 0 or 1) of `length` bytes.
  uint16_t pick(int ddir, uint32_t length);
  // The priorities fio keeps latency figures for in a direction the job
  // does (engines/cmdprio.c init_cmdprio_values, assign_clat_prio_index):
  // the job's own first, then each cmdprio value in the order given, once
  // each; empty when no share of the direction's I/Os gets a cmdprio.
  std::vector<uint16_t> stat_prios(int ddir) const;

 private:
  const JobOptions& job_;
  uint16_t job_ioprio_;
  bool bssplit_;
  Rng rng_;
};

}  // namespace rs::workload
