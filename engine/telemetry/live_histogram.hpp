// Completion-latency histograms that a sampler can read while I/O runs.
//
// Each submitting thread records into its own LiveHistogram (one writer: the
// bucket increment is a relaxed load + store, as cheap as a plain add, no
// lock-prefixed instruction); any thread may read the cumulative counts at
// any time. The sampler sums every thread's buckets and subtracts the
// previous sum to get the interval's histogram, so p50/p99 are per interval
// and merged across job threads.
//
// Buckets are fio's clat buckets (histogram_buckets.hpp), so a percentile
// here means what fio's means.
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "telemetry/histogram_buckets.hpp"

namespace rs::telemetry {

// Cache-line aligned so two threads' histograms never share a line.
class alignas(64) LiveHistogram {
 public:
  // Hot path, owning thread only (a second writer would lose counts, not
  // corrupt memory).
  void record(uint64_t ns) noexcept {
    auto& b = buckets_[bucket_index(ns)];
    b.store(b.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  // Any thread: adds this histogram's cumulative counts into `out`, which
  // is resized to kBuckets entries if it is shorter.
  void add_to(std::vector<uint64_t>& out) const;

 private:
  std::array<std::atomic<uint64_t>, kBuckets> buckets_{};
};

// The histograms of one session: a thread registers one, records into it,
// and it stays readable after the thread ends (counts are cumulative).
class LiveLatencySet {
 public:
  std::shared_ptr<LiveHistogram> add();
  // Sum of every histogram's cumulative counts (kBuckets entries).
  std::vector<uint64_t> cumulative() const;

 private:
  mutable std::mutex mutex_;  // taken to register and by the sampler, never per I/O
  std::vector<std::shared_ptr<LiveHistogram>> all_;
};

// fio's percentile over bucket counts (percentiles_of for one p): the
// representative value of the first bucket where the running count reaches
// p% (0 < p <= 100) of the total. 0 when the counts are all zero.
uint64_t percentile_of(std::span<const uint64_t> counts, double p);

}  // namespace rs::telemetry
