// fio 3.33's rate control, per direction (read, write, trim):
//
//  - When the next I/O may start (backend.c usec_for_io). rate= is bytes
//    per second; rate_iops= becomes rate_iops x the direction's smallest
//    block size, in bytes per second (init.c __setup_rate), so with
//    variable block sizes fio's rate_iops limits bytes, not I/Os.
//    rate_process=linear (default): after B bytes were issued, the next I/O
//    starts at B / rate seconds. rate_process=poisson: each I/O adds a gap
//    of (1e6 / iops) x -ln(u) microseconds, u uniform in (0, 1] (an
//    exponential gap with mean 1e6 / iops, iops = rate / smallest bs; both
//    truncated to whole microseconds, as fio computes them).
//  - fio's minimum rates (backend.c __check_min_rate): rate_min= (bytes/s)
//    or rate_iops_min=, checked over rate_cycle ms (default 1000) after a
//    2 s settle: the bytes (I/Os) completed since the last check over the
//    milliseconds spent must reach the minimum, else the job fails with EIO.
//
// Times are on the backend's clock, from an epoch: the job's start, and
// again the end of ramp_time (fio's reset_all_stats starts the rate over).
//
// What io_submit_mode changes (the caller's part, job_driver.cpp): inline
// (fio's default) waits for the job's I/O in flight before it sleeps until
// the next I/O's time (io_u.c rate_ddir: io_u_quiesce); offload issues at
// the rate's times while a slot is free, whatever completes.
#pragma once
#include <array>
#include <cstdint>
#include <string>

#include "workload/job_options.hpp"
#include "workload/rand.hpp"

namespace rs::workload {

class RateControl {
 public:
  RateControl(const JobOptions& job, uint64_t seed);

  bool limits() const { return limits_; }           // a rate or rate_iops is set
  bool checks_minimum() const { return minimum_; }  // a rate_min or rate_iops_min is set

  // Starts the rates over from `epoch_ns` (nothing issued, nothing checked).
  void restart(uint64_t epoch_ns);
  uint64_t epoch_ns() const { return epoch_ns_; }

  // The time before which the job must not issue (every direction's next
  // I/O time; a direction that issued nothing allows the epoch).
  uint64_t next_issue_ns() const;

  // An I/O of `bytes` was issued in direction `ddir` (0 read, 1 write, 2 trim).
  void issued(int ddir, uint64_t bytes);

  // fio's check_min_rate at `now_ns`, with what the direction completed
  // since the epoch. Empty while the minimum holds, else fio's message
  // ("rate_min=1024B/s not met, got 512B/s").
  std::string check_minimum(uint64_t now_ns, int ddir, uint64_t bytes_done, uint64_t ios_done);

  // The next poisson gap in microseconds for `iops` and a draw `u` in (0, 1].
  static uint64_t poisson_gap_us(uint64_t iops, double u);

 private:
  struct Direction {
    uint64_t bps = 0;     // bytes per second; 0: not limited
    uint64_t min_bs = 0;  // the direction's smallest block
    uint64_t issued_bytes = 0;
    uint64_t last_us = 0;  // poisson: the sum of the gaps so far
    uint64_t next_us = 0;  // from the epoch
    uint64_t rate_min = 0, iops_min = 0;
    uint64_t last_check_bytes = 0, last_check_ios = 0, last_check_ns = 0;
    Rng rng;
  };
  std::array<Direction, 3> dir_;
  bool poisson_ = false;
  bool limits_ = false;
  bool minimum_ = false;
  uint64_t cycle_ms_ = 1000;
  uint64_t epoch_ns_ = 0;
};

// The rate options' cross-checks fio makes (init.c fixup_options), and
// those of io_submit_mode=offload: empty when the job may run.
std::string check_rate_options(const JobOptions& job);

}  // namespace rs::workload
