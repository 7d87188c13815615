// fio's latency target (io_u.c lat_target_*, fio 3.33): the search for the
// deepest queue whose I/Os still meet latency_target.
//
// A job starts at depth 1. Each latency_window, if latency_percentile of the
// I/Os completed in it took at most latency_target (total latency, issue to
// completion), the depth doubles (up to iodepth), or, once a window failed,
// bisects towards the depth that failed; a failed window bisects down
// towards the last depth that held. With latency_percentile=100 one I/O over
// the target fails the window at once, and one at depth 1 fails the job.
// After a ramp-down, and before the last window, the I/O in flight drains
// (fio's io_u_quiesce) before the next window starts. When a window confirms
// the depth it ran at, one more window runs with fresh statistics and the job
// ends (latency_run=1: the search goes on until the runtime ends).
#pragma once
#include <cstdint>

#include "workload/job_options.hpp"

namespace rs::workload {

class LatencySearch {
 public:
  explicit LatencySearch(const JobOptions& job);
  bool enabled() const { return target_ns_ != 0; }
  // The depth allowed now (iodepth when there is no target).
  unsigned depth() const { return qd_; }
  void start(uint64_t now_ns) { new_window(now_ns); }
  // One read or write completed, `lat_ns` after it was issued. `check`: the
  // window may be judged now (fio does not during ramp_time). Returns false
  // when the job fails (over the target at depth 1 with percentile 100).
  bool completed(uint64_t lat_ns, uint64_t now_ns, bool check);
  // Issue nothing until the job's I/O in flight drained, then call drained().
  bool quiescing() const { return quiesce_; }
  // The I/O drained: the next window starts. True when the job's statistics
  // restart now (the last window).
  bool drained(uint64_t now_ns);
  // The last window held: the job ends.
  bool done() const { return done_; }

 private:
  void new_window(uint64_t now_ns);
  bool window_failed();  // fio's __lat_target_failed; true: already at depth 1
  void window_held(uint64_t now_ns);

  uint64_t target_ns_, window_ns_;
  double percentile_;
  bool keep_searching_;
  unsigned iodepth_;
  unsigned qd_, qd_low_ = 1, qd_high_, stable_count_ = 0;
  uint64_t window_start_ns_ = 0, window_ios_ = 0, failed_ = 0, completed_ = 0;
  bool quiesce_ = false, end_run_ = false, done_ = false, reset_pending_ = false;
};

}  // namespace rs::workload
