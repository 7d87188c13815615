// Latency statistics as fio keeps them, so our figures mean what fio's mean.
//
// RunningStats is fio's `struct io_stat`: count, min, max and a Welford
// running mean / sum of squared deviations (add_stat_sample), merged with the
// parallel formula fio's group reporting uses (__sum_stat).
//
// LatencyHistogram is fio's clat histogram over the buckets of
// telemetry/histogram_buckets.hpp (fio's layout, extended to ~4.9 hours), so
// percentiles match fio's given the same samples.
//
// Threading: neither type locks. One job thread records into its own
// histograms; the runner merges them once the job has stopped.
#pragma once
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "telemetry/histogram_buckets.hpp"

namespace rs::workload {

class RunningStats {
 public:
  // One sample (fio add_stat_sample, including its skip of a zero delta).
  void add(uint64_t value) noexcept {
    if (value > max_) max_ = value;
    if (value < min_) min_ = value;
    const double v = static_cast<double>(value);
    const double delta = v - mean_;
    if (delta != 0.0) {
      mean_ += delta / (static_cast<double>(samples_) + 1.0);
      m2_ += delta * (v - mean_);
    }
    ++samples_;
  }
  // Pools the samples of `other` (fio __sum_stat: Chan's parallel update).
  void merge(const RunningStats& other) noexcept;
  // fio's group_reporting sum for bandwidth and IOPS samples (sum_stat with
  // pure_sum): min, max, mean and deviation of the members add up, because
  // the members ran side by side and the group's rate is their sum.
  void add_up(const RunningStats& other) noexcept;
  void reset() noexcept { *this = RunningStats{}; }

  uint64_t samples() const noexcept { return samples_; }
  uint64_t min() const noexcept { return samples_ ? min_ : 0; }  // 0 when empty, as fio prints it
  uint64_t max() const noexcept { return samples_ ? max_ : 0; }
  double mean() const noexcept { return samples_ ? mean_ : 0.0; }
  // Sample standard deviation, sqrt(S / (n - 1)); 0 for fewer than 2 samples (fio calc_lat).
  double stddev() const noexcept;
  double sum_sq_dev() const noexcept { return m2_; }

 private:
  uint64_t samples_ = 0;
  uint64_t min_ = std::numeric_limits<uint64_t>::max();
  uint64_t max_ = 0;
  double mean_ = 0.0;
  double m2_ = 0.0;
};

class LatencyHistogram {
 public:
  static constexpr unsigned kBuckets = telemetry::kBuckets;
  // Samples at or above this land in the last bucket (min/max/mean stay exact).
  static constexpr uint64_t kTopOfRange = telemetry::kTopOfRange;

  // Allocates the buckets; nothing else allocates until merge()/percentiles().
  LatencyHistogram();

  // Hot path: O(1), no allocation, no lock. `ns` is a latency in nanoseconds.
  // Not valid on a moved-from histogram (assign to it first).
  void record(uint64_t ns) noexcept {
    ++buckets_[index_of(ns)];
    stats_.add(ns);
  }
  void merge(const LatencyHistogram& other) noexcept;
  void reset() noexcept;

  uint64_t count() const noexcept { return stats_.samples(); }
  uint64_t min() const noexcept { return stats_.min(); }  // exact, 0 when empty
  uint64_t max() const noexcept { return stats_.max(); }
  double mean() const noexcept { return stats_.mean(); }
  double stddev() const noexcept { return stats_.stddev(); }
  const RunningStats& stats() const noexcept { return stats_; }

  // The value fio reports for percentile p (0 < p <= 100): the representative
  // value of the first bucket at which the running count reaches p% of the
  // samples (fio calc_clat_percentiles). 0 when empty.
  uint64_t percentile(double p) const noexcept;
  // Same for a list sorted ascending, in one pass; one value per entry.
  std::vector<uint64_t> percentiles(std::span<const double> ascending) const;

  uint64_t bucket(unsigned index) const noexcept { return buckets_[index]; }

  static constexpr unsigned index_of(uint64_t ns) noexcept { return telemetry::bucket_index(ns); }
  static constexpr uint64_t value_of(unsigned index) noexcept { return telemetry::bucket_value(index); }

 private:
  std::vector<uint64_t> buckets_;  // kBuckets entries, sized once
  RunningStats stats_;
};

}  // namespace rs::workload
