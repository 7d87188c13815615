// Per-context counter slots (counter_slots.hpp): each writer counts in its
// own row, readers sum the rows. Totals must be exact, a row given back
// keeps its counts, and the pending-time integral of the sum must be the
// sum of the rows' integrals (hand-computed below).
#include <atomic>
#include <catch2/catch.hpp>
#include <thread>
#include <vector>

#include "telemetry/counter_slots.hpp"

using namespace rs::telemetry;

TEST_CASE("counter slots: the pending integral of two rows, by hand", "[counters]") {
  CounterSlots slots(2);
  CounterSlot* a = slots.acquire();
  CounterSlot* b = slots.acquire();
  REQUIRE(a != b);
  // Row a: one I/O pending from 10 to 30 (20 ns at depth 1).
  a[0].issued(10);
  a[0].completed(30, false, true, 4096);
  // Row b: one from 15, still pending; one from 20 to 25 (depth 2 for 5 ns).
  b[0].issued(15);
  b[0].issued(20);
  b[0].completed(25, true, true, 512);
  MemberCountersSnapshot s;
  slots.sum(0, s);
  CHECK(s.reads == 1);
  CHECK(s.read_bytes == 4096);
  CHECK(s.writes == 1);
  CHECK(s.write_bytes == 512);
  CHECK(s.nr_pending == 1);
  CHECK(s.last_change_ns == 30);
  // a: 20. b up to 25: 5 (15..20 at 1) + 10 (20..25 at 2) = 15, then 25..30 at 1 = 5.
  CHECK(s.pending_time_ns == 40);
  CHECK(s.pending_time_at(50) == 60);  // 30..50 at depth 1
  // A failed transfer is no longer pending but not counted.
  b[0].completed(60, true, false, 512);
  MemberCountersSnapshot t;
  slots.sum(0, t);
  CHECK(t.writes == 1);
  CHECK(t.nr_pending == 0);
  CHECK(t.pending_time_ns == 40 + 30);
  // The other column is untouched.
  MemberCountersSnapshot other;
  slots.sum(1, other);
  CHECK(other.reads == 0);
  CHECK(other.pending_time_ns == 0);
}

TEST_CASE("counter slots: a row given back keeps its counts and is handed out again", "[counters]") {
  CounterSlots slots(1);
  CounterSlot* a = slots.acquire();
  a[0].count(true, 100);
  slots.release(a);
  CounterSlot* again = slots.acquire();
  CHECK(again == a);
  again[0].count(true, 100);
  MemberCounters c;
  c.attach(&slots, 0);
  c.errors.fetch_add(3);
  const MemberCountersSnapshot s = c.snapshot();
  CHECK(s.writes == 2);
  CHECK(s.write_bytes == 200);
  CHECK(s.errors == 3);
}

TEST_CASE("counter slots: writers on their own rows, a reader summing, totals exact", "[counters][threads]") {
  constexpr int kWriters = 4, kPerWriter = 20000, kColumns = 3;
  CounterSlots slots(kColumns);
  std::atomic<int> done{0};
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w)
    writers.emplace_back([&, w] {
      CounterSlot* row = slots.acquire();
      uint64_t now = 1;
      for (int i = 0; i < kPerWriter; ++i) {
        CounterSlot& s = row[size_t(i % kColumns)];
        s.issued(now++);
        s.completed(now++, (i + w) % 2 == 0, true, 4096);
      }
      slots.release(row);
      done.fetch_add(1);
    });
  // Sums read while the writers run never go down.
  uint64_t last_total = 0;
  bool monotonic = true, pending_bounded = true;
  while (done.load() < kWriters) {
    uint64_t total = 0;
    for (size_t c = 0; c < kColumns; ++c) {
      MemberCountersSnapshot s;
      slots.sum(c, s);
      total += s.reads + s.writes;
      if (s.nr_pending > uint32_t(kWriters)) pending_bounded = false;
    }
    if (total < last_total) monotonic = false;
    last_total = total;
  }
  for (auto& t : writers) t.join();
  CHECK(monotonic);
  CHECK(pending_bounded);
  uint64_t ios = 0, bytes = 0, pending = 0;
  for (size_t c = 0; c < kColumns; ++c) {
    MemberCountersSnapshot s;
    slots.sum(c, s);
    ios += s.reads + s.writes;
    bytes += s.read_bytes + s.write_bytes;
    pending += s.nr_pending;
  }
  CHECK(ios == uint64_t(kWriters) * kPerWriter);
  CHECK(bytes == uint64_t(kWriters) * kPerWriter * 4096);
  CHECK(pending == 0);
}
