// Sampler over a scripted source and a manual clock: per-interval member
// deltas, read shares, time-averaged depth, array rates, interval
// percentiles, events, member lists that change, the ring.
#include <catch2/catch.hpp>
#include <vector>

#include "scripted_source.hpp"
#include "telemetry/sampler.hpp"

using namespace rs::telemetry;
using rs::telemetry::testing::ManualClock;
using rs::telemetry::testing::ScriptedSource;

namespace {

constexpr uint64_t kSecond = 1'000'000'000;
constexpr uint64_t kMs = 1'000'000;

SamplerOptions manual(ManualClock& clock, size_t history = 100) {
  SamplerOptions o;
  o.clock_ns = clock.fn();
  o.history = history;
  return o;
}

const MemberSample& member(const Sample& s, const std::string& name) {
  for (const auto& m : s.members)
    if (m.name == name) return m;
  FAIL("no member " << name);
  throw;  // unreachable
}

}  // namespace

TEST_CASE("one interval: member deltas, shares, depth, array rates, percentiles, events", "[sampler]") {
  ManualClock clock;
  ScriptedSource src;
  LiveLatencySet latencies;
  EventLog events(clock.fn());
  auto h = latencies.add();

  // Before the session starts: history the first sample must not count.
  src.member("a") = {.reads = 100,
                     .writes = 10,
                     .read_bytes = 409600,
                     .write_bytes = 40960,
                     .errors = 1,
                     .read_errors = 1,
                     .corrected_errors = 8,
                     .pending_time_ns = 5 * kSecond};
  src.member("b") = {.reads = 50, .read_bytes = 204800};
  src.array = {.reads = 150, .writes = 10, .read_bytes = 614400, .write_bytes = 40960};
  for (int i = 0; i < 200; ++i) h->record(10);
  clock.now = kSecond / 2;
  events.record({.kind = "tunable", .name = "read_policy", .value = "md-rr"});

  Sampler sampler(src, &latencies, &events, manual(clock));
  clock.now = 1 * kSecond;
  sampler.begin();
  CHECK(sampler.start_ns() == 1 * kSecond);

  // 100 ms later: a read 30 (4 KiB each), b 10; each wrote 5 of 8 KiB.
  src.member("a") = {.reads = 130,
                     .writes = 15,
                     .read_bytes = 409600 + 30 * 4096,
                     .write_bytes = 40960 + 5 * 8192,
                     .errors = 3,
                     .read_errors = 2,
                     .corrected_errors = 24,
                     .nr_pending = 2,
                     .pending_time_ns = 5 * kSecond + 200 * kMs};  // depth 2 all along
  src.member("b") = {.reads = 60,
                     .writes = 5,
                     .read_bytes = 204800 + 10 * 4096,
                     .write_bytes = 5 * 8192,
                     .nr_pending = 1,
                     .pending_time_ns = 50 * kMs};  // depth 1 half the time
  src.array = {
      .reads = 190, .writes = 20, .read_bytes = 614400 + 40 * 4096, .write_bytes = 40960 + 10 * 8192};
  for (int i = 0; i < 10; ++i) h->record(100);
  for (int i = 0; i < 80; ++i) h->record(1000);
  for (int i = 0; i < 10; ++i) h->record(50000);
  clock.now = 1 * kSecond + 50 * kMs;
  events.record({.kind = "tunable", .name = "rd1/write_mostly", .value = "on"});
  clock.now = 1 * kSecond + 100 * kMs;

  const auto s = sampler.sample_now();
  REQUIRE(s);
  CHECK(s->seq == 1);
  CHECK(s->t_ns == 100 * kMs);
  CHECK(s->interval_ns == 100 * kMs);
  REQUIRE(s->members.size() == 2);
  const auto& a = s->members[0];
  CHECK(a.name == "a");
  CHECK(a.state == "active sync");
  CHECK(a.reads == 30);
  CHECK(a.writes == 5);
  CHECK(a.read_bytes == 30 * 4096);
  CHECK(a.write_bytes == 5 * 8192);
  CHECK(a.errors == 2);
  CHECK(a.read_errors == 1);        // 2 - 1
  CHECK(a.corrected_errors == 16);  // 24 - 8 sectors
  CHECK(a.nr_pending == 2);
  CHECK(a.avg_pending == Approx(2.0));
  CHECK(a.read_share == Approx(0.75));  // 30 of 40
  const auto& b = s->members[1];
  CHECK(b.reads == 10);
  CHECK(b.read_share == Approx(0.25));
  CHECK(b.avg_pending == Approx(0.5));
  CHECK(b.errors == 0);

  // 40 reads, 10 writes in 0.1 s.
  CHECK(s->array.read_iops == Approx(400));
  CHECK(s->array.write_iops == Approx(100));
  CHECK(s->array.read_bw_bytes == Approx(40 * 4096 * 10));
  CHECK(s->array.write_bw_bytes == Approx(10 * 8192 * 10));
  // The interval's 100 latencies only (the 200 of 10 ns came before):
  // p50 in 1000's bucket (value 1004), p99 in 50000's (49920).
  CHECK(s->array.clat_samples == 100);
  CHECK(s->array.clat_p50_ns == 1004);
  CHECK(s->array.clat_p99_ns == 49920);

  REQUIRE(s->events.size() == 1);  // not the one before begin()
  CHECK(s->events[0].name == "rd1/write_mostly");
  CHECK(s->events[0].t_ns == 50 * kMs);

  // The next interval (200 ms) saw no I/O: zeros, no percentiles, no events.
  clock.now = 1 * kSecond + 300 * kMs;
  const auto quiet = sampler.sample_now();
  CHECK(quiet->seq == 2);
  CHECK(quiet->t_ns == 300 * kMs);
  CHECK(quiet->interval_ns == 200 * kMs);
  CHECK(member(*quiet, "a").reads == 0);
  CHECK(member(*quiet, "a").read_share == 0);
  CHECK(member(*quiet, "b").read_share == 0);
  CHECK(member(*quiet, "a").nr_pending == 2);
  CHECK(member(*quiet, "a").avg_pending == 0);  // pending_time_ns did not move, no last_change_ns given
  CHECK(quiet->array.read_iops == 0);
  CHECK(quiet->array.clat_samples == 0);
  CHECK(quiet->array.clat_p50_ns == 0);
  CHECK(quiet->array.clat_p99_ns == 0);
  CHECK(quiet->events.empty());
}

TEST_CASE("a stuck queue shows its depth through last_change_ns", "[sampler]") {
  ManualClock clock{1 * kSecond};
  ScriptedSource src;
  src.member("a");
  Sampler sampler(src, nullptr, nullptr, manual(clock));
  sampler.begin();
  // 10 ms of depth 1 accounted, then 4 in flight since 1.05 s.
  src.member("a") = {.nr_pending = 4, .pending_time_ns = 10 * kMs, .last_change_ns = 1 * kSecond + 50 * kMs};
  clock.now = 1 * kSecond + 100 * kMs;
  // (10 ms + 4 x 50 ms) / 100 ms
  CHECK(sampler.sample_now()->members[0].avg_pending == Approx(2.1));
  // Nothing completes: the whole next 100 ms at depth 4.
  clock.now = 1 * kSecond + 200 * kMs;
  CHECK(sampler.sample_now()->members[0].avg_pending == Approx(4.0));
  // One completes at 1.25 s (4 x 200 ms accounted since 1.05 s), 3 left until 1.3 s.
  src.member("a") = {
      .nr_pending = 3, .pending_time_ns = 10 * kMs + 800 * kMs, .last_change_ns = 1 * kSecond + 250 * kMs};
  clock.now = 1 * kSecond + 300 * kMs;
  CHECK(sampler.sample_now()->members[0].avg_pending == Approx(3.5));  // (4 x 50 + 3 x 50) / 100
}

TEST_CASE("members added, removed, replaced or restarted keep deltas right", "[sampler]") {
  ManualClock clock{1 * kSecond};
  ScriptedSource src;
  src.member("a").reads = 100;
  src.member("b").reads = 200;
  Sampler sampler(src, nullptr, nullptr, manual(clock));
  sampler.begin();

  // A third member joins (its counters start at zero when added).
  src.member("a").reads = 110;
  src.member("b").reads = 220;
  src.member("c").reads = 7;
  clock.now += 100 * kMs;
  auto s = sampler.sample_now();
  REQUIRE(s->members.size() == 3);
  CHECK(member(*s, "a").reads == 10);
  CHECK(member(*s, "b").reads == 20);
  CHECK(member(*s, "c").reads == 7);
  CHECK(member(*s, "c").read_share == Approx(7.0 / 37.0));

  // b leaves from the middle: c moves to position 1 and keeps its baseline.
  src.members.erase(src.members.begin() + 1);
  src.member("a").reads = 111;
  src.member("c").reads = 10;
  clock.now += 100 * kMs;
  s = sampler.sample_now();
  REQUIRE(s->members.size() == 2);
  CHECK(s->members[1].name == "c");
  CHECK(member(*s, "a").reads == 1);
  CHECK(member(*s, "c").reads == 3);

  // c is replaced at its position by a new device: counted from zero.
  src.members[1] = {"d", "recovering", {.reads = 4}};
  // a's counters restart (same name, lower value): all of it is new.
  src.member("a").reads = 2;
  clock.now += 100 * kMs;
  s = sampler.sample_now();
  CHECK(member(*s, "d").reads == 4);
  CHECK(member(*s, "d").state == "recovering");
  CHECK(member(*s, "a").reads == 2);
}

TEST_CASE("an interval of zero length has zero rates and depth", "[sampler]") {
  ManualClock clock{5 * kSecond};
  ScriptedSource src;
  src.member("a") = {.nr_pending = 3, .pending_time_ns = 0, .last_change_ns = 4 * kSecond};
  Sampler sampler(src, nullptr, nullptr, manual(clock));
  sampler.begin();
  src.member("a").reads = 5;
  src.array.reads = 5;
  const auto s = sampler.sample_now();  // same instant as begin()
  CHECK(s->interval_ns == 0);
  CHECK(s->members[0].reads == 5);
  CHECK(s->members[0].avg_pending == 0);
  CHECK(s->array.read_iops == 0);
}

TEST_CASE("sample_now without begin starts the session at that instant", "[sampler]") {
  ManualClock clock{7 * kSecond};
  ScriptedSource src;
  src.member("a").reads = 9;
  Sampler sampler(src, nullptr, nullptr, manual(clock));
  const auto first = sampler.sample_now();
  CHECK(sampler.start_ns() == 7 * kSecond);
  CHECK(first->t_ns == 0);
  CHECK(first->members[0].reads == 0);
  src.member("a").reads = 12;
  clock.now += kSecond;
  CHECK(sampler.sample_now()->members[0].reads == 3);
}

TEST_CASE("begin at an explicit start: t and the first interval count from it", "[sampler]") {
  ManualClock clock{10 * kSecond};
  ScriptedSource src;
  src.member("a");
  Sampler sampler(src, nullptr, nullptr, manual(clock));
  sampler.begin(9 * kSecond);
  clock.now = 11 * kSecond;
  const auto s = sampler.sample_now();
  CHECK(s->t_ns == 2 * kSecond);
  CHECK(s->interval_ns == 2 * kSecond);
}

TEST_CASE("tasks and sections are passed through", "[sampler]") {
  ManualClock clock;
  ScriptedSource src;
  src.tasks = {{"rebuild", "m2.img", 1 << 20, 1 << 30}};
  src.sections = {{"raid5", {{"stripes_active", 12}, {"bypass_count", 3}}}};
  Sampler sampler(src, nullptr, nullptr, manual(clock));
  const auto s = sampler.sample_now();
  REQUIRE(s->array.tasks.size() == 1);
  CHECK(s->array.tasks[0].kind == "rebuild");
  CHECK(s->array.tasks[0].done == (1u << 20));
  REQUIRE(s->sections.size() == 1);
  CHECK(s->sections[0].values[1].first == "bypass_count");
  CHECK(s->sections[0].values[1].second == 3);
}

TEST_CASE("the ring keeps the last history samples for latest and since", "[sampler]") {
  ManualClock clock;
  ScriptedSource src;
  Sampler sampler(src, nullptr, nullptr, manual(clock, 3));
  CHECK(sampler.latest() == nullptr);
  CHECK(sampler.since(0).empty());
  std::vector<uint64_t> heard;
  sampler.add_listener([&](const Sample& s) { heard.push_back(s.seq); });
  for (int i = 0; i < 5; ++i) {
    clock.now += 100 * kMs;
    sampler.sample_now();
  }
  CHECK(heard == std::vector<uint64_t>{1, 2, 3, 4, 5});
  CHECK(sampler.last_seq() == 5);
  REQUIRE(sampler.latest());
  CHECK(sampler.latest()->seq == 5);
  CHECK(sampler.latest()->t_ns == 400 * kMs);  // the first sample_now() began the session at 100 ms
  std::vector<uint64_t> kept;
  for (const auto& s : sampler.since(0)) kept.push_back(s->seq);
  CHECK(kept == std::vector<uint64_t>{3, 4, 5});
  kept.clear();
  for (const auto& s : sampler.since(3)) kept.push_back(s->seq);
  CHECK(kept == std::vector<uint64_t>{4, 5});
  CHECK(sampler.since(5).empty());
  CHECK(sampler.since(99).empty());
}

TEST_CASE("a listener that throws does not stop sampling", "[sampler]") {
  ManualClock clock;
  ScriptedSource src;
  Sampler sampler(src, nullptr, nullptr, manual(clock));
  int after = 0;
  sampler.add_listener([](const Sample&) { throw std::runtime_error("disk full"); });
  sampler.add_listener([&](const Sample&) { ++after; });
  sampler.sample_now();
  sampler.sample_now();
  CHECK(after == 2);
  CHECK(sampler.last_seq() == 2);
}

TEST_CASE("rates outside 1..50 Hz and an empty history are refused", "[sampler]") {
  ScriptedSource src;
  for (unsigned bad : {0u, 51u, 1000u}) {
    SamplerOptions o;
    o.rate_hz = bad;
    Sampler sampler(src, nullptr, nullptr, o);
    const auto st = sampler.start();
    REQUIRE_FALSE(st.ok());
    CHECK(st.error().code == rs::Errc::invalid_argument);
    CHECK(st.error().message == "telemetry rate " + std::to_string(bad) + " Hz: out of range 1..50 Hz");
    CHECK_FALSE(sampler.running());
  }
  SamplerOptions o;
  o.history = 0;
  CHECK(Sampler::check(o).error().message == "telemetry history 0: must keep at least 1 sample");
  for (unsigned good : {1u, 10u, 50u}) {
    o = {};
    o.rate_hz = good;
    CHECK(Sampler::check(o).ok());
  }
}

TEST_CASE("the thread samples until stop, which takes the tail", "[sampler][threads]") {
  // Real clock. Counts bumped just before stop() can only reach the
  // listener through the tail sample.
  ScriptedSource src;  // read only by the sampler thread while it runs
  src.member("a");
  SamplerOptions o;
  o.rate_hz = 50;
  Sampler sampler(src, nullptr, nullptr, o);
  std::atomic<uint64_t> heard{0};
  std::atomic<uint64_t> samples{0};
  sampler.add_listener([&](const Sample& s) {
    heard.fetch_add(s.members.at(0).reads);
    samples.fetch_add(1);
  });
  REQUIRE(sampler.start().ok());
  CHECK(sampler.running());
  CHECK(sampler.start().error().code == rs::Errc::busy);
  CHECK(sampler.sample_now() == nullptr);  // not while the thread runs
  while (sampler.last_seq() < 3) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  sampler.stop();
  CHECK_FALSE(sampler.running());
  const uint64_t before_tail = samples.load();
  CHECK(heard.load() == 0);

  // Now bump while stopped, restart and stop at once: the tail must see it.
  src.member("a").reads = 42;
  REQUIRE(sampler.start().ok());
  sampler.stop();
  CHECK(samples.load() > before_tail);
  CHECK(heard.load() == 42);
  CHECK(sampler.latest()->seq == samples.load());
}

TEST_CASE("a running sampler changes its rate at once and samples on request", "[sampler][threads]") {
  // Real clock, as an open array's session runs it: viewers change the
  // rate and a run that ends asks for its tail without stopping it.
  ScriptedSource src;
  src.member("a");
  SamplerOptions o;
  o.rate_hz = 1;
  Sampler sampler(src, nullptr, nullptr, o);
  std::atomic<uint64_t> heard{0};
  sampler.add_listener([&](const Sample&) { heard.fetch_add(1); });
  CHECK(sampler.sample_on_thread() == nullptr);  // not running
  REQUIRE(sampler.start().ok());
  // At 1 Hz the first periodic sample is a second away: this one is asked for.
  const auto asked = sampler.sample_on_thread();
  REQUIRE(asked != nullptr);
  CHECK(asked->seq >= 1);
  CHECK(heard.load() >= asked->seq);  // its listeners ran before the answer
  CHECK(sampler.running());

  CHECK(sampler.set_rate(0).error().code == rs::Errc::invalid_argument);
  CHECK(sampler.set_rate(51).error().code == rs::Errc::invalid_argument);
  REQUIRE(sampler.set_rate(50).ok());
  CHECK(sampler.rate_hz() == 50);
  // Samples after the change are 20 ms apart (a loaded machine stretches
  // that, never to the 1 s of the old rate).
  const uint64_t from = sampler.last_seq();
  while (sampler.last_seq() < from + 6) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const auto recent = sampler.since(from + 1);
  REQUIRE(recent.size() >= 5);
  for (const auto& s : recent) CHECK(s->interval_ns < 500'000'000ull);
  sampler.stop();
  CHECK(sampler.sample_on_thread() == nullptr);
}
