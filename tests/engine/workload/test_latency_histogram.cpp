// LatencyHistogram and RunningStats: fio's bucket layout, percentile rule,
// accuracy against exact order statistics, exact moments, merging.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "workload/latency_histogram.hpp"
#include "workload/results.hpp"

using rs::workload::LatencyDistribution;
using rs::workload::LatencyHistogram;
using rs::workload::RunningStats;

namespace {

// The percentile fio's rule selects from the raw samples: the smallest value
// with at least p% of the samples at or below it.
uint64_t exact_percentile(std::vector<uint64_t> sorted, double p) {
  const long double threshold = static_cast<long double>(p) / 100.0L * sorted.size();
  size_t k = static_cast<size_t>(std::ceil(threshold));
  k = std::clamp<size_t>(k, 1, sorted.size());
  return sorted[k - 1];
}

struct Moments {
  double mean, stddev;
};
Moments two_pass(const std::vector<uint64_t>& v) {
  long double sum = 0;
  for (auto x : v) sum += x;
  const long double mean = sum / v.size();
  long double sq = 0;
  for (auto x : v) sq += (x - mean) * (x - mean);
  return {static_cast<double>(mean),
          v.size() > 1 ? static_cast<double>(std::sqrt(sq / (v.size() - 1))) : 0.0};
}

void check_percentiles_close(const std::vector<uint64_t>& samples) {
  LatencyHistogram h;
  for (auto s : samples) h.record(s);
  std::vector<uint64_t> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  const std::vector<double> plist(rs::workload::kFioDefaultPercentiles.begin(),
                                  rs::workload::kFioDefaultPercentiles.end());
  const std::vector<uint64_t> got = h.percentiles(plist);
  for (size_t i = 0; i < plist.size(); ++i) {
    const uint64_t want = exact_percentile(sorted, plist[i]);
    INFO("p=" << plist[i] << " exact=" << want << " histogram=" << got[i]);
    // The reported value is the middle of the bucket holding the exact
    // sample; buckets are at most 1/64 of their value wide.
    const double err = std::fabs(static_cast<double>(got[i]) - static_cast<double>(want));
    CHECK(err <= static_cast<double>(want) / 128.0 + 1.0);
    CHECK(h.percentile(plist[i]) == got[i]);
  }
}

}  // namespace

TEST_CASE("bucket layout is fio's below its 17 s limit", "[latency_histogram]") {
  // Values fio 3.33 prints for null-engine runs: 130 ns reports as 131,
  // anything in 37376..37887 ns as 37632.
  CHECK(LatencyHistogram::value_of(LatencyHistogram::index_of(110)) == 110);
  CHECK(LatencyHistogram::value_of(LatencyHistogram::index_of(130)) == 131);
  CHECK(LatencyHistogram::value_of(LatencyHistogram::index_of(37376)) == 37632);
  CHECK(LatencyHistogram::value_of(LatencyHistogram::index_of(37887)) == 37632);
  CHECK(LatencyHistogram::index_of(37888) == LatencyHistogram::index_of(37887) + 1);
  // Below 128 every nanosecond has its bucket.
  for (uint64_t v = 0; v < 128; ++v) CHECK(LatencyHistogram::value_of(LatencyHistogram::index_of(v)) == v);
  // fio's layout: index = (msb - 5) * 64 + the 6 bits after the msb.
  CHECK(LatencyHistogram::index_of(128) == 128);
  CHECK(LatencyHistogram::index_of(255) == 191);
  CHECK(LatencyHistogram::index_of(256) == 192);
  CHECK(LatencyHistogram::index_of((uint64_t{1} << 33) + 5) == 28 * 64);  // fio's last group starts here
}

TEST_CASE("every bucket maps back to itself and indexes only grow", "[latency_histogram]") {
  for (unsigned i = 0; i < LatencyHistogram::kBuckets; ++i)
    REQUIRE(LatencyHistogram::index_of(LatencyHistogram::value_of(i)) == i);
  unsigned last = 0;
  std::mt19937_64 rng(7);
  std::vector<uint64_t> v(20000);
  for (auto& x : v) x = rng() >> (rng() % 64);
  std::sort(v.begin(), v.end());
  for (auto x : v) {
    const unsigned i = LatencyHistogram::index_of(x);
    REQUIRE(i >= last);
    last = i;
  }
}

TEST_CASE("relative error stays within 1/128 from 1 ns to beyond an hour", "[latency_histogram]") {
  std::mt19937_64 rng(42);
  for (int n = 0; n < 200000; ++n) {
    const unsigned bits = 1 + rng() % 44;  // up to 2^44 ns (~4.9 h)
    const uint64_t v = (rng() >> (64 - bits)) | 1;
    if (v >= LatencyHistogram::kTopOfRange) continue;
    const uint64_t r = LatencyHistogram::value_of(LatencyHistogram::index_of(v));
    const double rel = std::fabs(static_cast<double>(r) - static_cast<double>(v)) / static_cast<double>(v);
    INFO("v=" << v << " reported=" << r);
    REQUIRE(rel <= 1.0 / 128.0);
  }
  const uint64_t hour = 3'600'000'000'000ULL;
  REQUIRE(hour < LatencyHistogram::kTopOfRange);
  const uint64_t r = LatencyHistogram::value_of(LatencyHistogram::index_of(hour));
  CHECK(std::fabs(static_cast<double>(r) - 3.6e12) / 3.6e12 <= 1.0 / 128.0);
  // Past the top everything shares the last bucket, but max stays exact.
  LatencyHistogram h;
  h.record(LatencyHistogram::kTopOfRange * 4);
  CHECK(h.bucket(LatencyHistogram::kBuckets - 1) == 1);
  CHECK(h.max() == LatencyHistogram::kTopOfRange * 4);
}

TEST_CASE("percentiles follow fio's rule on small exact data", "[latency_histogram]") {
  LatencyHistogram h;
  CHECK(h.percentile(50) == 0);  // empty
  for (uint64_t v = 1; v <= 100; ++v) h.record(v);
  CHECK(h.percentile(1) == 1);
  CHECK(h.percentile(50) == 50);  // 50 of 100 samples reach 50%: fio stops there
  CHECK(h.percentile(50.5) == 51);
  CHECK(h.percentile(99.99) == 100);
  CHECK(h.percentile(100) == 100);
  const std::vector<double> list = {10, 90, 99};
  CHECK(h.percentiles(list) == std::vector<uint64_t>{10, 90, 99});
}

TEST_CASE("percentiles match exact order statistics on synthetic data", "[latency_histogram]") {
  std::mt19937_64 rng(2024);
  SECTION("uniform 50 us .. 5 ms") {
    std::uniform_int_distribution<uint64_t> d(50'000, 5'000'000);
    std::vector<uint64_t> s(100000);
    for (auto& x : s) x = d(rng);
    check_percentiles_close(s);
  }
  SECTION("lognormal around 200 us with a long tail") {
    std::lognormal_distribution<double> d(std::log(200'000.0), 1.2);
    std::vector<uint64_t> s(100000);
    for (auto& x : s) x = static_cast<uint64_t>(d(rng)) + 1;
    check_percentiles_close(s);
  }
  SECTION("nanosecond-scale values") {
    std::uniform_int_distribution<uint64_t> d(1, 400);
    std::vector<uint64_t> s(50000);
    for (auto& x : s) x = d(rng);
    check_percentiles_close(s);
  }
}

TEST_CASE("min, max, mean and stddev are exact", "[latency_histogram]") {
  std::mt19937_64 rng(99);
  std::lognormal_distribution<double> d(std::log(80'000.0), 0.8);
  std::vector<uint64_t> s(50000);
  for (auto& x : s) x = static_cast<uint64_t>(d(rng));
  LatencyHistogram h;
  for (auto x : s) h.record(x);
  const Moments m = two_pass(s);
  CHECK(h.count() == s.size());
  CHECK(h.min() == *std::min_element(s.begin(), s.end()));
  CHECK(h.max() == *std::max_element(s.begin(), s.end()));
  CHECK(h.mean() == Approx(m.mean).epsilon(1e-12));
  CHECK(h.stddev() == Approx(m.stddev).epsilon(1e-10));

  LatencyHistogram one;
  one.record(1234);
  CHECK(one.mean() == 1234.0);
  CHECK(one.stddev() == 0.0);  // fio: no deviation from a single sample
  CHECK(one.min() == 1234);
  CHECK(one.max() == 1234);
}

TEST_CASE("merging equals recording everything in one histogram", "[latency_histogram]") {
  std::mt19937_64 rng(5);
  std::lognormal_distribution<double> fast(std::log(20'000.0), 0.5), slow(std::log(3'000'000.0), 0.7);
  LatencyHistogram a, b, all;
  std::vector<uint64_t> samples;
  for (int i = 0; i < 30000; ++i) {
    const uint64_t x = static_cast<uint64_t>(fast(rng));
    a.record(x);
    all.record(x);
    samples.push_back(x);
  }
  for (int i = 0; i < 7000; ++i) {
    const uint64_t x = static_cast<uint64_t>(slow(rng));
    b.record(x);
    all.record(x);
    samples.push_back(x);
  }
  LatencyHistogram merged = a;
  merged.merge(b);
  for (unsigned i = 0; i < LatencyHistogram::kBuckets; ++i) REQUIRE(merged.bucket(i) == all.bucket(i));
  CHECK(merged.count() == all.count());
  CHECK(merged.min() == all.min());
  CHECK(merged.max() == all.max());
  const Moments m = two_pass(samples);
  CHECK(merged.mean() == Approx(m.mean).epsilon(1e-12));
  CHECK(merged.stddev() == Approx(m.stddev).epsilon(1e-10));
  for (double p : rs::workload::kFioDefaultPercentiles) CHECK(merged.percentile(p) == all.percentile(p));

  LatencyHistogram empty;
  merged.merge(empty);
  CHECK(merged.count() == all.count());
  empty.merge(a);
  CHECK(empty.mean() == a.mean());
  CHECK(empty.min() == a.min());
}

TEST_CASE("reset empties the histogram", "[latency_histogram]") {
  LatencyHistogram h;
  for (uint64_t v : {5ULL, 500ULL, 5'000'000ULL}) h.record(v);
  h.reset();
  CHECK(h.count() == 0);
  CHECK(h.min() == 0);
  CHECK(h.max() == 0);
  CHECK(h.mean() == 0.0);
  CHECK(h.percentile(99) == 0);
  for (unsigned i = 0; i < LatencyHistogram::kBuckets; ++i) REQUIRE(h.bucket(i) == 0);
  h.record(77);
  CHECK(h.min() == 77);
  CHECK(h.percentile(50) == 77);
}

TEST_CASE("add_up sums rates the way fio's group_reporting does", "[latency_histogram]") {
  RunningStats a, b;
  for (uint64_t v : {100ULL, 200ULL, 300ULL}) a.add(v);
  for (uint64_t v : {1000ULL, 3000ULL}) b.add(v);
  RunningStats s = a;
  s.add_up(b);
  CHECK(s.min() == 1100);
  CHECK(s.max() == 3300);
  CHECK(s.mean() == Approx(2200.0));
  CHECK(s.samples() == 5);
  CHECK(s.sum_sq_dev() == Approx(a.sum_sq_dev() + b.sum_sq_dev()));
  RunningStats none;
  none.add_up(a);
  CHECK(none.mean() == a.mean());
}

TEST_CASE("latency distribution bands are fio's", "[latency_histogram]") {
  LatencyDistribution d;
  d.record(1);              // ns "2"
  d.record(2);              // ns "4"
  d.record(249);            // ns "250"
  d.record(999);            // ns "1000"
  d.record(1000);           // us "2" (1 us)
  d.record(2000);           // us "4"
  d.record(999'999);        // us "1000"
  d.record(1'000'000);      // ms "2"
  d.record(999'999'999);    // ms "1000"
  d.record(1'500'000'000);  // ms "2000"
  d.record(7'000'000'000);  // ms ">=2000"
  CHECK(d.ns == std::array<uint64_t, 10>{1, 1, 0, 0, 0, 0, 1, 0, 0, 1});
  CHECK(d.us == std::array<uint64_t, 10>{1, 1, 0, 0, 0, 0, 0, 0, 0, 1});
  CHECK(d.ms == std::array<uint64_t, 12>{1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1});
  CHECK(d.total() == 11);

  LatencyHistogram h;
  for (uint64_t v : {3ULL, 120ULL, 40'000ULL, 40'000ULL, 3'000'000ULL}) h.record(v);
  LatencyDistribution approx;
  approx.add_histogram(h);
  CHECK(approx.ns[1] == 1);
  CHECK(approx.ns[6] == 1);
  CHECK(approx.us[4] == 2);
  CHECK(approx.ms[1] == 1);
  CHECK(approx.total() == 5);
}

TEST_CASE("depth distribution bands are fio's", "[latency_histogram]") {
  rs::workload::DepthDistribution d;
  d.record_depth(1, 3);
  d.record_depth(3, 1);
  d.record_depth(8, 2);
  d.record_depth(64, 1);
  CHECK(d.level == std::array<uint64_t, 7>{3, 1, 0, 2, 0, 0, 1});
  d.record_submit(1);
  d.record_submit(4);
  d.record_submit(5);
  d.record_submit(65);
  d.record_complete(0);
  CHECK(d.submit == std::array<uint64_t, 7>{0, 2, 1, 0, 0, 0, 1});
  CHECK(d.complete == std::array<uint64_t, 7>{1, 0, 0, 0, 0, 0, 0});
  CHECK(d.total_submit == 4);
  CHECK(d.total_complete == 1);
}
