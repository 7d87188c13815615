// fio's completion-latency buckets (stat.c plat_val_to_idx / plat_idx_to_val,
// FIO_IO_U_PLAT_BITS = 6): values below 128 ns have a bucket each; above,
// every power of two is split into 64 equal buckets, so a bucket is at most
// 1/64 of its value wide (a reported value is within 0.8% of any sample in
// its bucket). fio stops at 29 groups (~17 s, later samples all land in its
// last bucket); we keep 39 so the log-linear range reaches 2^44 ns (~4.9 h).
// Below 17 s indexes and values are identical to fio's, so percentiles match
// fio's given the same samples. Shared by the workload's fio histograms and
// the live telemetry histograms.
#pragma once
#include <bit>
#include <cstdint>
#include <span>
#include <vector>

namespace rs::telemetry {

inline constexpr unsigned kSubBits = 6;                  // fio FIO_IO_U_PLAT_BITS
inline constexpr unsigned kSubBuckets = 1u << kSubBits;  // fio FIO_IO_U_PLAT_VAL
inline constexpr unsigned kGroups = 39;                  // fio has 29
inline constexpr unsigned kBuckets = kGroups * kSubBuckets;
// Samples at or above this land in the last bucket.
inline constexpr uint64_t kTopOfRange = uint64_t{1} << (kGroups + kSubBits - 1);

// fio plat_val_to_idx, with our larger clamp.
constexpr unsigned bucket_index(uint64_t ns) noexcept {
  if (ns < (uint64_t{2} << kSubBits)) return static_cast<unsigned>(ns);
  const unsigned msb = 63u - static_cast<unsigned>(std::countl_zero(ns));
  const unsigned error_bits = msb - kSubBits;
  const unsigned index =
      ((error_bits + 1) << kSubBits) + static_cast<unsigned>((ns >> error_bits) & (kSubBuckets - 1));
  return index < kBuckets ? index : kBuckets - 1;
}

// fio plat_idx_to_val: the middle of the bucket (its only value below 128).
constexpr uint64_t bucket_value(unsigned index) noexcept {
  if (index < (2u << kSubBits)) return index;
  const unsigned error_bits = (index >> kSubBits) - 1;
  const uint64_t base = uint64_t{1} << (error_bits + kSubBits);
  const uint64_t k = index & (kSubBuckets - 1);
  return base + (k << error_bits) + (uint64_t{1} << (error_bits - 1));
}

// fio's calc_clat_percentiles over bucket counts (at most kBuckets entries,
// indexed as above): for each p of `ascending` (0 < p <= 100, sorted
// ascending), the bucket_value() of the first non-empty bucket at which the
// running count reaches p% of the total. All 0 when every count is 0.
std::vector<uint64_t> percentiles_of(std::span<const uint64_t> counts, std::span<const double> ascending);

}  // namespace rs::telemetry
