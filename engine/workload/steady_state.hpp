// fio's steady-state detection (steadystate.c): every ss_interval the job's
// IOPS or bandwidth over that interval is a sample; once ss_ramp has passed
// and ss_dur / ss_interval samples fill the window, the job has reached a
// steady state when
//   ss=iops:X or bw:X              every sample is within X of the mean
//   ss=iops_slope:X or bw_slope:X  the least-squares slope (per sample) is
//                                  within X
// (with X%, X is a percentage of the mean), and then the job ends, as fio
// ends it. Samples are per job: fio pools a group_reporting group's jobs.
#pragma once
#include <cstdint>
#include <vector>

#include "workload/job_options.hpp"

namespace rs::workload {

class SteadyState {
 public:
  explicit SteadyState(const JobOptions& job);
  bool enabled() const { return enabled_; }
  // One interval's figures; true once the steady state is reached.
  bool add_sample(double iops, double bytes_per_s);

 private:
  bool enabled_ = false;
  bool use_iops_ = true, slope_ = false, percent_ = false;
  double limit_ = 0;
  size_t window_ = 0;
  std::vector<double> samples_;  // the latest `window_`, oldest first
};

}  // namespace rs::workload
