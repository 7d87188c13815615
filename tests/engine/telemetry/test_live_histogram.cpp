// fio's bucket maths, LiveHistogram / LiveLatencySet and percentile_of,
// against bucket indexes and values computed by hand from fio's formulas.
#include <catch2/catch.hpp>
#include <thread>
#include <vector>

#include "telemetry/histogram_buckets.hpp"
#include "telemetry/live_histogram.hpp"

using namespace rs::telemetry;

// Hand computation (fio plat_val_to_idx / plat_idx_to_val, 6 sub-bits):
//   1000 ns: msb 9, error_bits 3, index (3+1)*64 + (1000>>3 & 63) = 256 + 61 = 317,
//            value 2^9 + 61*2^3 + 2^2 = 512 + 488 + 4 = 1004.
//   50000 ns: msb 15, error_bits 9, index 10*64 + (97 & 63) = 640 + 33 = 673,
//             value 2^15 + 33*2^9 + 2^8 = 32768 + 16896 + 256 = 49920.
//   256 ns: msb 8, error_bits 2, index 3*64 + 0 = 192, value 256 + 0 + 2 = 258.
TEST_CASE("bucket index and value follow fio's formulas", "[histogram]") {
  CHECK(bucket_index(0) == 0);
  CHECK(bucket_index(127) == 127);
  CHECK(bucket_value(127) == 127);
  CHECK(bucket_index(128) == 128);
  CHECK(bucket_index(255) == 191);
  CHECK(bucket_index(256) == 192);
  CHECK(bucket_value(192) == 258);
  CHECK(bucket_index(1000) == 317);
  CHECK(bucket_value(317) == 1004);
  CHECK(bucket_index(50000) == 673);
  CHECK(bucket_value(673) == 49920);
  CHECK(kBuckets == 39 * 64);
  CHECK(bucket_index(kTopOfRange) == kBuckets - 1);
  CHECK(bucket_index(~uint64_t{0}) == kBuckets - 1);
}

TEST_CASE("percentile_of follows fio's calc_clat_percentiles rule", "[histogram]") {
  // 10 samples of 100 ns, 80 of ~1000 ns, 10 of ~50000 ns: 100 in all.
  std::vector<uint64_t> counts(kBuckets, 0);
  counts[100] = 10;
  counts[317] = 80;
  counts[673] = 10;
  CHECK(percentile_of(counts, 1) == 100);
  CHECK(percentile_of(counts, 10) == 100);  // the running count reaches 10 exactly at bucket 100
  CHECK(percentile_of(counts, 10.5) == 1004);
  CHECK(percentile_of(counts, 50) == 1004);
  CHECK(percentile_of(counts, 90) == 1004);  // 90 reached exactly: stays on fio's side
  CHECK(percentile_of(counts, 90.01) == 49920);
  CHECK(percentile_of(counts, 99) == 49920);
  CHECK(percentile_of(counts, 100) == 49920);

  const double list[] = {50, 99, 99.9};
  CHECK(percentiles_of(counts, list) == std::vector<uint64_t>{1004, 49920, 49920});

  CHECK(percentile_of(std::vector<uint64_t>(kBuckets, 0), 50) == 0);
  CHECK(percentile_of(std::vector<uint64_t>{}, 50) == 0);
  // A shorter count vector is read as far as it goes.
  CHECK(percentile_of(std::vector<uint64_t>{0, 0, 3}, 50) == 2);
}

TEST_CASE("a live histogram's counts are its records, cumulative", "[histogram]") {
  LiveHistogram h;
  h.record(100);
  h.record(1000);
  h.record(1001);  // same bucket as 1000 (1000..1007)
  h.record(50000);
  std::vector<uint64_t> out;
  h.add_to(out);
  REQUIRE(out.size() == kBuckets);
  CHECK(out[100] == 1);
  CHECK(out[317] == 2);
  CHECK(out[673] == 1);
  uint64_t total = 0;
  for (auto c : out) total += c;
  CHECK(total == 4);
  h.add_to(out);  // adds, does not replace
  CHECK(out[317] == 4);
}

TEST_CASE("a latency set sums its threads' histograms, also after a thread ended", "[histogram]") {
  LiveLatencySet set;
  CHECK(set.cumulative() == std::vector<uint64_t>(kBuckets, 0));
  auto a = set.add();
  a->record(1000);
  std::thread([h = set.add()] {
    for (int i = 0; i < 3; ++i) h->record(50000);
  }).join();
  a->record(1000);
  const auto sum = set.cumulative();
  CHECK(sum[317] == 2);
  CHECK(sum[673] == 3);
  CHECK(percentile_of(sum, 40) == 1004);
  CHECK(percentile_of(sum, 41) == 49920);
}
