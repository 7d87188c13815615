#include "telemetry/histogram_buckets.hpp"

#include <algorithm>
#include <numeric>

namespace rs::telemetry {

std::vector<uint64_t> percentiles_of(std::span<const uint64_t> counts, std::span<const double> ascending) {
  std::vector<uint64_t> out(ascending.size(), 0);
  const size_t buckets = std::min<size_t>(counts.size(), kBuckets);
  const uint64_t n = std::accumulate(counts.begin(), counts.begin() + buckets, uint64_t{0});
  if (n == 0 || ascending.empty()) return out;
  // fio compares the running count with p/100*n in long double; doing the
  // same keeps ties (e.g. exactly 50% of the samples) on fio's side.
  size_t j = 0;
  uint64_t sum = 0;
  unsigned last_nonempty = 0;
  for (unsigned i = 0; i < buckets && j < ascending.size(); ++i) {
    if (counts[i] == 0) continue;
    last_nonempty = i;
    sum += counts[i];
    while (j < ascending.size() &&
           static_cast<long double>(sum) >=
               static_cast<long double>(std::clamp(ascending[j], 0.0, 100.0)) / 100.0L * n) {
      out[j++] = bucket_value(i);
    }
  }
  // Only reachable through rounding at p = 100: report the top bucket.
  for (; j < ascending.size(); ++j) out[j] = bucket_value(last_nonempty);
  return out;
}

}  // namespace rs::telemetry
