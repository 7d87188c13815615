// The sampler at 50 Hz while 4 writer threads record latencies and bump
// member and array counters and 3 reader threads read the ring. Run under
// TSan (-DRAIDSCOPE_SANITIZE=thread): it must be clean, and every count
// must reach the samples exactly once.
#include <atomic>
#include <catch2/catch.hpp>
#include <cmath>
#include <thread>
#include <vector>

#include "telemetry/sampler.hpp"

using namespace rs::telemetry;

namespace {

// An array of live counters as the array front keeps them.
struct LiveSource : TelemetrySource {
  static constexpr int kMembers = 4;
  MemberCounters members[kMembers];
  MemberCounters array;

  std::vector<MemberReading> read_members() const override {
    std::vector<MemberReading> out;
    for (int m = 0; m < kMembers; ++m)
      out.push_back({"m" + std::to_string(m), "active sync", members[m].snapshot()});
    return out;
  }
  MemberCountersSnapshot read_array() const override { return array.snapshot(); }
};

}  // namespace

TEST_CASE("writers, the 50 Hz sampler and readers together, totals add up", "[sampler][threads]") {
  LiveSource src;
  LiveLatencySet latencies;
  EventLog events;
  SamplerOptions o;
  o.rate_hz = 50;
  o.history = 8;  // small, so readers race with slots being overwritten
  Sampler sampler(src, &latencies, &events, o);

  // The listener sees every sample, including the tail.
  uint64_t heard_member_reads[LiveSource::kMembers] = {};
  uint64_t heard_clat = 0, heard_events = 0, heard_samples = 0;
  double heard_array_reads = 0;
  uint64_t last_heard_seq = 0;
  bool seq_in_order = true;
  sampler.add_listener([&](const Sample& s) {
    seq_in_order = seq_in_order && s.seq == last_heard_seq + 1;
    last_heard_seq = s.seq;
    ++heard_samples;
    for (size_t m = 0; m < s.members.size(); ++m) heard_member_reads[m] += s.members[m].reads;
    heard_clat += s.array.clat_samples;
    heard_array_reads += s.array.read_iops * double(s.interval_ns) / 1e9;
    heard_events += s.events.size();
  });
  REQUIRE(sampler.start().ok());

  constexpr uint64_t kMinOpsPerWriter = 20000;
  constexpr uint64_t kMinSamples = 10;
  std::atomic<bool> writers_done{false};
  std::atomic<uint64_t> reader_problems{0}, reader_reads{0};
  std::vector<uint64_t> ops(4, 0);

  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w) {
    writers.emplace_back([&, w] {
      auto h = latencies.add();
      MemberCounters& c = src.members[w];
      uint64_t n = 0;
      // Enough work that the sampler interleaves with it, however fast.
      while (n < kMinOpsPerWriter || sampler.last_seq() < kMinSamples) {
        c.account_pending(monotonic_now_ns());
        c.nr_pending.fetch_add(1, std::memory_order_relaxed);
        h->record(1000 + (n % 64) * 100);
        c.account_pending(monotonic_now_ns());
        c.nr_pending.fetch_sub(1, std::memory_order_relaxed);
        c.reads.fetch_add(1, std::memory_order_relaxed);
        c.read_bytes.fetch_add(4096, std::memory_order_relaxed);
        src.array.reads.fetch_add(1, std::memory_order_relaxed);
        if (n % 5000 == 0) events.record({.kind = "task", .name = "writer" + std::to_string(w)});
        ++n;
      }
      ops[size_t(w)] = n;
    });
  }

  std::vector<std::thread> readers;
  for (int r = 0; r < 3; ++r) {
    readers.emplace_back([&] {
      uint64_t seen = 0;
      while (!writers_done.load()) {
        if (auto s = sampler.latest()) {
          if (s->seq < seen) reader_problems.fetch_add(1);  // latest never goes back
          seen = s->seq;
          double share = 0;
          for (const auto& m : s->members) share += m.read_share;
          if (!(share == 0 || std::fabs(share - 1.0) < 1e-9)) reader_problems.fetch_add(1);
        }
        uint64_t prev = 0;
        for (const auto& s : sampler.since(seen > 5 ? seen - 5 : 0)) {
          if (s->seq <= prev) reader_problems.fetch_add(1);  // ascending
          prev = s->seq;
        }
        reader_reads.fetch_add(1);
        std::this_thread::yield();
      }
    });
  }

  for (auto& t : writers) t.join();
  writers_done = true;
  for (auto& t : readers) t.join();
  sampler.stop();

  uint64_t total = 0;
  for (int w = 0; w < 4; ++w) {
    INFO("member " << w);
    CHECK(heard_member_reads[w] == ops[size_t(w)]);
    CHECK(src.members[w].reads.load() == ops[size_t(w)]);
    total += ops[size_t(w)];
  }
  CHECK(heard_clat == total);
  CHECK(heard_array_reads == Approx(double(total)).epsilon(1e-9));
  CHECK(heard_events == events.last_seq());
  CHECK(heard_samples >= kMinSamples);
  CHECK(seq_in_order);
  CHECK(sampler.latest()->seq == heard_samples);
  CHECK(reader_problems.load() == 0);
  CHECK(reader_reads.load() > 0);
}
