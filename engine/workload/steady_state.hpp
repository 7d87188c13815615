// fio's steady-state detection (steadystate.c). A job with ss_dur samples
// its IOPS and bandwidth every ss_interval (1 s), from one interval after
// ss_ramp on; once ss_dur / ss_interval samples fill the window, the job has
// reached a steady state when the window's criterion is under the limit:
//   ss=iops:X or bw:X              the largest distance of a sample from the
//                                  window's mean
//   ss=iops_slope:X or bw_slope:X  the least-squares slope (per interval)
// with X%, the criterion is a percentage of the window's mean. Then the job
// ends, as fio ends it. fio's default is iops_slope:0.01%.
//
// A group_reporting group is judged as one (fio pools it): each job
// publishes its completions to the group's SteadyGroup, and the group's
// last job (fio keeps the samples there) samples their sums; when the group
// is steady, all its jobs end.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include "workload/job_options.hpp"
#include "workload/results.hpp"

namespace rs::workload {

// fio's criteria over one window of samples taken at x = 0, 1, ..., n-1:
// the least-squares slope of y over x, and the largest |y - mean|.
double steady_slope(std::span<const uint64_t> y);
double steady_max_deviation(std::span<const uint64_t> y);

// One window of samples and its verdict.
class SteadyState {
 public:
  explicit SteadyState(const JobOptions& job);
  bool enabled() const { return window_ > 0; }
  size_t window() const { return window_; }
  // One interval's I/Os per second and bytes per second; true once the
  // window is full and its criterion is under the limit.
  bool add_sample(uint64_t iops, uint64_t bytes_per_s);
  // The figures fio reports: the last window's criterion and samples.
  SteadyStateReport report(bool attained) const;

 private:
  SteadyStateReport spec_;  // kind, limit, duration
  size_t window_ = 0;
  // The latest `window_` samples, oldest first (a window is a few dozen:
  // dropping the oldest moves them, and the criterion reads them in place).
  std::vector<uint64_t> iops_, bw_;
  double criterion_ = 0, deviation_ = 0, slope_ = 0;
};

// A reporting group's steady state, shared by its jobs' threads.
class SteadyGroup {
 public:
  SteadyGroup(const JobOptions& job, unsigned members);
  // Member `m`'s completed I/Os and bytes so far (any thread).
  void publish(unsigned m, uint64_t ios, uint64_t bytes) {
    counts_[m].ios.store(ios, std::memory_order_relaxed);
    counts_[m].bytes.store(bytes, std::memory_order_relaxed);
  }
  bool attained() const { return attained_.load(std::memory_order_relaxed); }
  // start(): each member's, when its job starts: the ramp runs from the
  // latest start. tick(): any member's, at each completion: one of them
  // samples the intervals that ended since the last sample (fio samples
  // from its helper thread, so a group is still judged once some of its
  // jobs have ended).
  void start(uint64_t start_ns);
  void tick(uint64_t now_ns) {
    if (now_ns < next_ns_.load(std::memory_order_relaxed)) return;
    std::unique_lock lock(sample_mutex_, std::try_to_lock);  // another member samples it
    if (lock && now_ns >= next_ns_.load(std::memory_order_relaxed)) sample(now_ns);
  }
  // After the jobs ended.
  SteadyStateReport report() const { return state_.report(attained()); }

 private:
  void sample(uint64_t now_ns);

  SteadyState state_;
  unsigned members_;
  // A cache line per member: each job writes its own at every completion,
  // and packed counters made the group's threads contend for one line.
  struct alignas(64) Counts {
    std::atomic<uint64_t> ios{0}, bytes{0};
  };
  std::unique_ptr<Counts[]> counts_;
  std::atomic<bool> attained_{false};
  uint64_t ramp_ns_ = 0, interval_ns_ = 0;
  std::atomic<uint64_t> next_ns_{~uint64_t{0}};
  // Held by the member that samples; guards what follows and state_.
  std::mutex sample_mutex_;
  bool primed_ = false;  // the first snapshot, at the end of the ramp, taken
  uint64_t prev_ns_ = 0, prev_ios_ = 0, prev_bytes_ = 0;
};

// fio rejects a job whose steady-state options differ from those of another
// job in its reporting group (td_steadystate_init). Returns the problem, or "".
std::string check_steady_state_group(const JobOptions& job, const JobOptions& other);

}  // namespace rs::workload
