// What telemetry costs. Prints figures only, asserts nothing.
//
// 1. ns per record() on the I/O path: telemetry::LiveHistogram (relaxed
//    load + store, readable by the sampler while it runs) against
//    workload::LatencyHistogram (plain ++ on the bucket plus fio's running
//    min/max/mean/variance, which LiveHistogram does not keep), on 1 and 2
//    threads, each thread recording into its own histogram as jobs do.
// 2. The sampler's own CPU at 50 Hz with 16 members, 4 job histograms and a
//    JSON-lines listener (what `bench --telemetry=FILE` adds): per sample
//    (a tight loop of sample_now()) and as a share of one CPU (the thread
//    running for a few seconds, process CPU time over wall time).
//
// Usage: bench_telemetry [records_per_thread] [sampler_seconds]
#include <time.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "telemetry/live_histogram.hpp"
#include "telemetry/sampler.hpp"
#include "workload/latency_histogram.hpp"

namespace {

using namespace rs::telemetry;
using Steady = std::chrono::steady_clock;

// Latencies from 20 µs to ~2 ms, spread over many buckets, precomputed so the
// loop measures the histogram, not the generator.
std::vector<uint64_t> latencies() {
  std::vector<uint64_t> v(4096);
  uint64_t x = 0x9E3779B97F4A7C15ull;
  for (auto& ns : v) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    ns = 20'000 + x % 2'000'000;
  }
  return v;
}

uint64_t cpu_ns(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000u + uint64_t(ts.tv_nsec);
}

// Thread CPU time, not wall time: on a shared 2-core machine a descheduled
// thread would otherwise count its neighbours' work.
template <class Histogram>
double ns_per_record(Histogram& h, const std::vector<uint64_t>& values, uint64_t records) {
  const uint64_t t0 = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
  for (uint64_t i = 0; i < records; ++i) h.record(values[i & 4095]);
  return double(cpu_ns(CLOCK_THREAD_CPUTIME_ID) - t0) / double(records);
}

// Each of `threads` threads records `records` values into its own histogram;
// returns the mean ns per record per thread.
template <class Histogram>
double run(unsigned threads, uint64_t records, const std::vector<uint64_t>& values) {
  std::vector<std::unique_ptr<Histogram>> hs;
  for (unsigned t = 0; t < threads; ++t) hs.push_back(std::make_unique<Histogram>());
  std::vector<double> ns(threads);
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&, t] { ns[t] = ns_per_record(*hs[t], values, records); });
  for (auto& p : pool) p.join();
  double sum = 0;
  for (double x : ns) sum += x;
  return sum / threads;
}

uint64_t process_cpu_ns() {
  return cpu_ns(CLOCK_PROCESS_CPUTIME_ID);
}

struct SixteenMembers : TelemetrySource {
  std::array<MemberCounters, 16> members;
  MemberCounters array;
  std::vector<MemberReading> read_members() const override {
    std::vector<MemberReading> out;
    out.reserve(members.size());
    for (size_t m = 0; m < members.size(); ++m)
      out.push_back({"/dev/disk/by-id/member-" + std::to_string(m), "active sync", members[m].snapshot()});
    return out;
  }
  MemberCountersSnapshot read_array() const override { return array.snapshot(); }
  std::vector<Section> read_sections() const override {
    return {{"raid5", {{"stripes_active", 12}, {"handle_list", 3}, {"bypass_count", 7}}}};
  }
};

// Four job threads' histograms with samples spread over many buckets.
void fill(LiveLatencySet& set) {
  const auto values = latencies();
  for (int j = 0; j < 4; ++j) {
    auto h = set.add();
    for (int i = 0; i < 100000; ++i) h->record(values[size_t(i) & 4095]);
  }
}

// CPU per sample in a tight loop of sample_now() (the counters move between
// samples), with or without the JSON-lines listener.
double us_per_sample(bool json, uint64_t* bytes_per_line) {
  SixteenMembers src;
  LiveLatencySet set;
  fill(set);
  EventLog events;
  Sampler sampler(src, &set, &events, {});
  uint64_t json_bytes = 0;
  if (json) sampler.add_listener([&](const Sample& s) { json_bytes += to_json_line(s).size() + 1; });
  constexpr int kLoop = 2000;
  sampler.begin();
  const uint64_t c0 = process_cpu_ns();
  for (int i = 0; i < kLoop; ++i) {
    for (auto& m : src.members) m.reads.fetch_add(7, std::memory_order_relaxed);
    sampler.sample_now();
  }
  const double us = double(process_cpu_ns() - c0) / kLoop / 1000.0;
  if (bytes_per_line) *bytes_per_line = json_bytes / kLoop;
  return us;
}

void bench_sampler(double seconds) {
  uint64_t line_bytes = 0;
  const double bare = us_per_sample(false, nullptr);
  const double with_json = us_per_sample(true, &line_bytes);
  std::printf("sampler, 16 members + 4 job histograms, CPU per sample (loop of 2000 sample_now()):\n");
  std::printf(
      "  build + publish: %.1f us; with the JSON line (%llu B): %.1f us -> at 50 Hz %.2f%% of one CPU\n",
      bare, static_cast<unsigned long long>(line_bytes), with_json, with_json * 50 / 1e4);

  // The thread itself at 50 Hz with the JSON listener, the main thread asleep.
  SixteenMembers src;
  LiveLatencySet set;
  fill(set);
  EventLog events;
  SamplerOptions o;
  o.rate_hz = 50;
  Sampler sampler(src, &set, &events, o);
  uint64_t json_bytes = 0;
  sampler.add_listener([&](const Sample& s) { json_bytes += to_json_line(s).size() + 1; });
  const uint64_t cpu0 = process_cpu_ns();
  const auto w0 = Steady::now();
  if (!sampler.start().ok()) return;
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  sampler.stop();
  const double wall = std::chrono::duration<double>(Steady::now() - w0).count();
  const double cpu = double(process_cpu_ns() - cpu0) / 1e9;
  std::printf("sampler thread at 50 Hz for %.1f s: %llu samples, %.2f%% of one CPU (process CPU / wall)\n",
              wall, static_cast<unsigned long long>(sampler.last_seq()), 100.0 * cpu / wall);
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t records = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 50'000'000;
  const double seconds = argc > 2 ? std::atof(argv[2]) : 3.0;
  const auto values = latencies();

  std::printf("record(), %llu records per thread, thread CPU ns per record:\n",
              static_cast<unsigned long long>(records));
  std::printf("  threads  LiveHistogram  workload::LatencyHistogram  ratio live/workload\n");
  for (unsigned threads : {1u, 2u}) {
    // Alternate the order so neither always runs on a warmer CPU.
    const double live = run<LiveHistogram>(threads, records, values);
    const double fio = run<rs::workload::LatencyHistogram>(threads, records, values);
    const double live2 = run<LiveHistogram>(threads, records, values);
    const double l = (live + live2) / 2;
    std::printf("  %7u  %13.2f  %26.2f  %19.2f\n", threads, l, fio, l / fio);
  }
  std::printf(
      "  (LatencyHistogram::record also keeps fio's min/max/mean/variance; LiveHistogram only buckets)\n");

  bench_sampler(seconds);
  return 0;
}
