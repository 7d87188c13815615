// EventLog: sequence numbers, the replaceable clock, since().
#include <catch2/catch.hpp>

#include "telemetry/event_log.hpp"

using namespace rs::telemetry;

TEST_CASE("events get seq from 1 and the log's clock unless stamped", "[events]") {
  uint64_t now = 42;
  EventLog log([&] { return now; });
  CHECK(log.last_seq() == 0);
  CHECK(log.since(0).empty());
  CHECK(log.record(Event{.kind = "member", .name = "m1.img", .value = "faulty"}) == 1);
  now = 99;
  CHECK(log.record(Event{.t_ns = 7, .kind = "task", .name = "rebuild", .value = "done"}) == 2);
  CHECK(log.record(Event{.kind = "tunable", .name = "read_policy", .value = "md-rr"}) == 3);
  CHECK(log.last_seq() == 3);
  CHECK(log.now_ns() == 99);

  const auto all = log.since(0);
  REQUIRE(all.size() == 3);
  CHECK(all[0].seq == 1);
  CHECK(all[0].t_ns == 42);
  CHECK(all[0].value == "faulty");
  CHECK(all[1].t_ns == 7);  // stamped by the caller: kept
  CHECK(all[2].t_ns == 99);

  const auto later = log.since(2);
  REQUIRE(later.size() == 1);
  CHECK(later[0].seq == 3);
  CHECK(log.since(3).empty());
  CHECK(log.since(100).empty());
}

TEST_CASE("the default clock is CLOCK_MONOTONIC", "[events]") {
  EventLog log;
  const uint64_t before = monotonic_now_ns();
  log.record(Event{.kind = "member"});
  const uint64_t after = monotonic_now_ns();
  const auto e = log.since(0).at(0);
  CHECK(e.t_ns >= before);
  CHECK(e.t_ns <= after);
}
