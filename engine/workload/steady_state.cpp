#include "workload/steady_state.hpp"

#include <algorithm>
#include <cmath>

namespace rs::workload {

SteadyState::SteadyState(const JobOptions& job) {
  if (job.ss == JobOptions::SteadyKind::none || job.ss_dur.count() <= 0 || job.ss_interval.count() <= 0) return;
  enabled_ = true;
  use_iops_ = job.ss == JobOptions::SteadyKind::iops || job.ss == JobOptions::SteadyKind::iops_slope;
  slope_ = job.ss == JobOptions::SteadyKind::iops_slope || job.ss == JobOptions::SteadyKind::bw_slope;
  percent_ = job.ss_percent;
  limit_ = job.ss_limit;
  window_ = size_t(std::max<int64_t>(1, job.ss_dur.count() / job.ss_interval.count()));
}

bool SteadyState::add_sample(double iops, double bytes_per_s) {
  if (!enabled_) return false;
  samples_.push_back(use_iops_ ? iops : bytes_per_s);
  if (samples_.size() > window_) samples_.erase(samples_.begin());
  if (samples_.size() < window_) return false;
  const double n = double(window_);
  double sum = 0, sum_xy = 0;
  for (size_t i = 0; i < window_; ++i) sum += samples_[i], sum_xy += double(i) * samples_[i];
  const double mean = sum / n;
  double criterion = 0;
  if (slope_) {
    // Least squares over x = 0..n-1, as fio: (sum_xy - sum_x*sum_y/n) / (sum_x2 - sum_x^2/n).
    const double sum_x = n * (n - 1) / 2, sum_x2 = (n - 1) * n * (2 * n - 1) / 6;
    const double denom = sum_x2 - sum_x * sum_x / n;
    criterion = denom > 0 ? (sum_xy - sum_x * sum / n) / denom : 0;
  } else {
    for (double y : samples_) criterion = std::max(criterion, std::fabs(y - mean));
  }
  if (percent_) criterion = mean > 0 ? 100.0 * criterion / mean : 0;
  return std::fabs(criterion) < limit_;
}

}  // namespace rs::workload
