#include "workload/steady_state.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace rs::workload {

namespace {

uint64_t sum_of(std::span<const uint64_t> y) {
  uint64_t sum = 0;
  for (uint64_t v : y) sum += v;
  return sum;
}

// Samples are rates: a count over `elapsed_ns`, per second, rounded down
// as fio's integer rates are.
uint64_t per_second(uint64_t count, uint64_t elapsed_ns) {
  return uint64_t((unsigned __int128)count * 1'000'000'000u / std::max<uint64_t>(elapsed_ns, 1));
}

}  // namespace

double steady_slope(std::span<const uint64_t> y) {
  // Least squares over x = 0..n-1: (sum_xy - sum_x*sum_y/n) / (sum_x2 - sum_x^2/n).
  const double n = double(y.size());
  if (y.size() < 2) return 0;
  double sum_xy = 0;
  for (size_t i = 0; i < y.size(); ++i) sum_xy += double(i) * double(y[i]);
  const double sum_x = n * (n - 1) / 2, sum_x2 = (n - 1) * n * (2 * n - 1) / 6;
  return (sum_xy - sum_x * double(sum_of(y)) / n) / (sum_x2 - sum_x * sum_x / n);
}

double steady_max_deviation(std::span<const uint64_t> y) {
  if (y.empty()) return 0;
  const double mean = double(sum_of(y)) / double(y.size());
  double worst = 0;
  for (uint64_t v : y) worst = std::max(worst, std::fabs(double(v) - mean));
  return worst;
}

SteadyState::SteadyState(const JobOptions& job) {
  spec_.iops = steady_measures_iops(job.ss);
  spec_.slope = steady_is_slope(job.ss);
  spec_.percent = job.ss_percent;
  spec_.limit = job.ss_limit;
  spec_.duration_s = uint64_t(job.ss_dur.count() / 1'000'000);
  if (job.ss_dur.count() > 0 && job.ss_interval.count() > 0)
    window_ = size_t(job.ss_dur.count() / job.ss_interval.count());
}

bool SteadyState::add_sample(uint64_t iops, uint64_t bytes_per_s) {
  if (!enabled()) return false;
  iops_.push_back(iops);
  bw_.push_back(bytes_per_s);
  if (iops_.size() > window_) iops_.erase(iops_.begin()), bw_.erase(bw_.begin());
  if (iops_.size() < window_) return false;
  const std::span<const uint64_t> y = spec_.iops ? iops_ : bw_;
  const uint64_t sum = sum_of(y);
  if (spec_.slope) {
    slope_ = steady_slope(y);
    // fio divides by the mean in whole units (sum_y / n in integers); a
    // window of zeros gives no verdict (fio's 0/0).
    const uint64_t mean = sum / window_;
    criterion_ = !spec_.percent ? slope_
                 : mean > 0     ? 100.0 * slope_ / double(mean)
                                : std::numeric_limits<double>::quiet_NaN();
  } else {
    deviation_ = steady_max_deviation(y);
    const double mean = double(sum) / double(window_);
    criterion_ = !spec_.percent ? deviation_
                 : mean > 0     ? 100.0 * deviation_ / mean
                                : std::numeric_limits<double>::quiet_NaN();
  }
  return std::fabs(criterion_) < spec_.limit;
}

SteadyStateReport SteadyState::report(bool attained) const {
  SteadyStateReport r = spec_;
  r.attained = attained;
  r.criterion = criterion_;
  r.max_deviation = deviation_;
  r.slope_value = slope_;
  r.iops_data = iops_;
  r.bw_data = bw_;
  r.iops_data.resize(window_, 0);
  r.bw_data.resize(window_, 0);
  return r;
}

SteadyGroup::SteadyGroup(const JobOptions& job, unsigned members)
    : state_(job),
      members_(members),
      counts_(new Counts[members]),
      ramp_ns_(uint64_t(job.ss_ramp.count()) * 1000),
      interval_ns_(uint64_t(std::max<int64_t>(job.ss_interval.count(), 1)) * 1000) {}

void SteadyGroup::start(uint64_t start_ns) {
  if (!state_.enabled()) return;
  std::lock_guard lock(sample_mutex_);
  if (primed_) return;  // a member started after the ramp was over: the group's clock runs
  const uint64_t ramp_over = start_ns + ramp_ns_;
  const uint64_t next = next_ns_.load(std::memory_order_relaxed);
  if (next == ~uint64_t{0} || ramp_over > next) next_ns_.store(ramp_over, std::memory_order_relaxed);
}

void SteadyGroup::sample(uint64_t now_ns) {
  uint64_t ios = 0, bytes = 0;
  for (unsigned m = 0; m < members_; ++m) {
    ios += counts_[m].ios.load(std::memory_order_relaxed);
    bytes += counts_[m].bytes.load(std::memory_order_relaxed);
  }
  // The first call (the ramp over) takes the snapshot the first sample
  // starts from. Later, the intervals that ended since the last sample
  // (several when no completion came for a while) share its rate.
  const uint64_t next = next_ns_.load(std::memory_order_relaxed);
  const uint64_t due = primed_ ? 1 + (now_ns - next) / interval_ns_ : 0;
  next_ns_.store(primed_ ? next + due * interval_ns_ : now_ns + interval_ns_, std::memory_order_relaxed);
  if (primed_) {
    const uint64_t elapsed = now_ns - prev_ns_;
    const uint64_t iops = per_second(ios - prev_ios_, elapsed), bw = per_second(bytes - prev_bytes_, elapsed);
    for (uint64_t i = 0; i < std::min<uint64_t>(due, state_.window()) && !attained(); ++i)
      if (state_.add_sample(iops, bw)) {
        attained_.store(true, std::memory_order_relaxed);
        next_ns_.store(~uint64_t{0}, std::memory_order_relaxed);
      }
  }
  primed_ = true;
  prev_ns_ = now_ns, prev_ios_ = ios, prev_bytes_ = bytes;
}

std::string check_steady_state_group(const JobOptions& job, const JobOptions& other) {
  const auto secs = [](std::chrono::microseconds d) { return d.count() / 1'000'000; };
  const bool on = job.ss_dur.count() > 0, other_on = other.ss_dur.count() > 0;
  if (!on && !other_on) return {};
  if (on != other_on || job.ss != other.ss || job.ss_limit != other.ss_limit ||
      job.ss_percent != other.ss_percent || secs(job.ss_dur) != secs(other.ss_dur) ||
      job.ss_ramp != other.ss_ramp || job.ss_interval != other.ss_interval)
    return "steadystate options must be consistent within reporting groups (as fio, which rejects the job): "
           "job '" +
           other.name + "' of the same group has other ss, ss_dur or ss_ramp values";
  return {};
}

}  // namespace rs::workload
