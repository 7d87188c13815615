#include "telemetry/live_histogram.hpp"

namespace rs::telemetry {

void LiveHistogram::add_to(std::vector<uint64_t>& out) const {
  if (out.size() < kBuckets) out.resize(kBuckets, 0);
  for (unsigned i = 0; i < kBuckets; ++i) out[i] += buckets_[i].load(std::memory_order_relaxed);
}

std::shared_ptr<LiveHistogram> LiveLatencySet::add() {
  auto h = std::make_shared<LiveHistogram>();
  std::lock_guard lock(mutex_);
  all_.push_back(h);
  return h;
}

std::vector<uint64_t> LiveLatencySet::cumulative() const {
  std::vector<uint64_t> sum(kBuckets, 0);
  std::lock_guard lock(mutex_);
  for (const auto& h : all_) h->add_to(sum);
  return sum;
}

uint64_t percentile_of(std::span<const uint64_t> counts, double p) {
  const double list[] = {p};
  return percentiles_of(counts, list).front();
}

}  // namespace rs::telemetry
