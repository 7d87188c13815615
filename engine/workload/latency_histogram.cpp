#include "workload/latency_histogram.hpp"

#include <algorithm>
#include <cmath>

namespace rs::workload {

void RunningStats::merge(const RunningStats& other) noexcept {
  if (other.samples_ == 0) return;
  if (samples_ == 0) {
    *this = other;
    return;
  }
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  const double n1 = static_cast<double>(samples_);
  const double n2 = static_cast<double>(other.samples_);
  const double delta = other.mean_ - mean_;
  mean_ = (other.mean_ * n2 + mean_ * n1) / (n1 + n2);
  m2_ = other.m2_ + m2_ + delta * delta * (n1 * n2) / (n1 + n2);
  samples_ += other.samples_;
}

void RunningStats::add_up(const RunningStats& other) noexcept {
  if (other.samples_ == 0) return;
  if (samples_ == 0) {
    *this = other;
    return;
  }
  min_ += other.min_;
  max_ += other.max_;
  samples_ += other.samples_;
  mean_ += other.mean_;
  m2_ += other.m2_;
}

double RunningStats::stddev() const noexcept {
  if (samples_ < 2) return 0.0;
  return std::sqrt(m2_ / (static_cast<double>(samples_) - 1.0));
}

LatencyHistogram::LatencyHistogram() : buckets_(kBuckets, 0) {}

void LatencyHistogram::merge(const LatencyHistogram& other) noexcept {
  for (unsigned i = 0; i < kBuckets; ++i) buckets_[i] += other.buckets_[i];
  stats_.merge(other.stats_);
}

void LatencyHistogram::reset() noexcept {
  std::fill(buckets_.begin(), buckets_.end(), 0);
  stats_.reset();
}

uint64_t LatencyHistogram::percentile(double p) const noexcept {
  const double list[] = {p};
  if (count() == 0) return 0;
  return percentiles(list).front();
}

std::vector<uint64_t> LatencyHistogram::percentiles(std::span<const double> ascending) const {
  return telemetry::percentiles_of(buckets_, ascending);
}

}  // namespace rs::workload
