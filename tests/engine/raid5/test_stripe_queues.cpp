// raid5d's order of stripes under seed 004's __get_priority_stripe, driven
// with scripted stripe states. Each expected order is worked through the
// seed's rules by hand (comments give the bypass_count after each step).
#include <catch2/catch.hpp>
#include <string>

#include "raid5/stripe_queues.hpp"

using namespace rs::raid5;

namespace {

// Stripes 10 and 11 need pre-reads: delayed, then released by
// activate_delayed (preread_active_stripes was 0 < IO_THRESHOLD) onto
// hold_list. Stripes 1..6 are full-stripe writes on handle_list whose
// writes stay in flight (pending_full_writes 6).
StripeQueues scripted(int threshold, Scheduling s = Scheduling::priority) {
  StripeQueues q;
  q.set_scheduling(s);
  q.set_bypass_threshold(threshold);
  q.add_delayed(10);
  q.add_delayed(11);
  q.activate_delayed();
  for (uint64_t i = 1; i <= 6; ++i) {
    q.add_handle(i);
    q.full_write_started(i);
  }
  return q;
}

// The next n picks, "-" where next() gives nothing.
std::string picks(StripeQueues& q, int n) {
  std::string out;
  for (int i = 0; i < n; ++i) {
    auto id = q.next();
    out += (out.empty() ? "" : " ") + (id ? std::to_string(*id) : std::string("-"));
  }
  return out;
}

void complete_full_writes(StripeQueues& q) {
  for (uint64_t i = 1; i <= 6; ++i) q.write_completed(i);
}

}  // namespace

TEST_CASE("delayed stripes go to hold_list (priority) or handle_list (legacy)", "[raid5][scheduler]") {
  StripeQueues q = scripted(1);
  CHECK(q.hold_len() == 2);
  CHECK(q.handle_len() == 6);
  CHECK(q.delayed_len() == 0);
  CHECK(q.preread_active_stripes() == 2);
  CHECK(q.pending_full_writes() == 6);
  // While a pre-read stripe is active, activate_delayed leaves the plug in.
  q.add_delayed(12);
  q.activate_delayed();
  CHECK(q.delayed_len() == 1);

  StripeQueues legacy = scripted(1, Scheduling::legacy);
  CHECK(legacy.hold_len() == 0);
  CHECK(legacy.handle_len() == 8);
  // Before the seed: handle_list in order, pre-read stripes first since they came first.
  CHECK(picks(legacy, 9) == "10 11 1 2 3 4 5 6 -");
}

TEST_CASE("bypass_threshold 1: pre-read stripes pass once bypass_count exceeds 1", "[raid5][scheduler]") {
  StripeQueues q = scripted(1);
  // 1: hold's head (10) is new: last_hold=10, count 0-1 -> 0. 2..6: same
  // head, +1 each -> 5. handle_list empty, 6 full writes pending:
  // 5 > 1 -> 10, count 4; 4 > 1 -> 11, count 3; hold empty -> nothing.
  CHECK(picks(q, 9) == "1 2 3 4 5 6 10 11 -");
  CHECK(q.bypass_count() == 3);
}

TEST_CASE("bypass_threshold 4: one pre-read stripe passes, the next waits for the full writes", "[raid5][scheduler]") {
  StripeQueues q = scripted(4);
  // As above up to count 5; 5 > 4 -> 10, count 1; 1 > 4 no and 6 pending -> nothing.
  CHECK(picks(q, 8) == "1 2 3 4 5 6 10 -");
  CHECK(q.bypass_count() == 1);
  complete_full_writes(q);  // pending_full_writes 0: hold_list is served
  CHECK(picks(q, 2) == "11 -");
  CHECK(q.bypass_count() == 0);  // 1 - 4, floored at 0
}

TEST_CASE("bypass_threshold 0: pre-read stripes wait until no full write is pending", "[raid5][scheduler]") {
  StripeQueues q = scripted(0);
  // Bypass accounting is off: only pending_full_writes == 0 lets hold_list go.
  CHECK(picks(q, 8) == "1 2 3 4 5 6 - -");
  CHECK(q.bypass_count() == 5);  // counted, never used, never decremented (threshold 0)
  q.write_completed(1);
  CHECK(picks(q, 1) == "-");  // still 5 pending
  complete_full_writes(q);
  CHECK(picks(q, 3) == "10 11 -");
}

TEST_CASE("a handle_list head with I/O started does not count as a bypass", "[raid5][scheduler]") {
  StripeQueues q = scripted(4);
  q.io_started(3);
  q.io_started(5);
  // 1: count 0 (new head); 2: 1; 3: skipped; 4: 2; 5: skipped; 6: 3.
  // 3 > 4 no, 6 pending: nothing.
  CHECK(picks(q, 7) == "1 2 3 4 5 6 -");
  CHECK(q.bypass_count() == 3);
}

TEST_CASE("bypass_count resets when hold_list is sampled empty", "[raid5][scheduler]") {
  StripeQueues q;
  q.add_delayed(10);
  q.activate_delayed();
  for (uint64_t i = 1; i <= 4; ++i) q.add_handle(i), q.full_write_started(i);
  CHECK(picks(q, 3) == "1 2 3");  // counts 0, 1, 2
  CHECK(q.bypass_count() == 2);
  q.forget(10);  // hold_list empties (the stripe went elsewhere)
  CHECK(picks(q, 1) == "4");
  CHECK(q.bypass_count() == 0);  // v3: reset when hold_list is sampled empty
}

TEST_CASE("a stripe promoted off hold_list naturally steps bypass_count back", "[raid5][scheduler]") {
  StripeQueues q = scripted(1);
  CHECK(picks(q, 4) == "1 2 3 4");  // counts 0, 1, 2, 3
  CHECK(q.bypass_count() == 3);
  q.forget(10);  // hold_list's head changes without raid5d taking it: 11 is the head now
  // 5: head 11 != last_hold 10: last_hold=11, count 3-1 -> 2. 6: +1 -> 3.
  CHECK(picks(q, 2) == "5 6");
  CHECK(q.bypass_count() == 3);
  CHECK(picks(q, 2) == "11 -");  // 3 > 1 -> 11, count 2
}

TEST_CASE("STRIPE_IO_STARTED stays set until the stripe is forgotten (md's init_stripe)",
          "[raid5][scheduler]") {
  // Stripe 10 on hold_list; 1 and 2 on handle_list, full writes in flight.
  StripeQueues q;
  q.set_bypass_threshold(4);
  q.add_delayed(10);
  q.activate_delayed();
  q.add_handle(1);
  q.full_write_started(1);
  q.add_handle(2);
  q.full_write_started(2);
  // 1: hold's head is new: last_hold=10, count 0. 2: +1 -> 1.
  CHECK(picks(q, 2) == "1 2");
  CHECK(q.bypass_count() == 1);
  q.io_started(1);
  q.io_started(2);
  // 1's round ends and it comes back with more work: I/O started, no bypass.
  q.write_completed(1);
  q.add_handle(1);
  CHECK(picks(q, 1) == "1");
  CHECK(q.bypass_count() == 1);
  // 2's round ends, its head goes inactive keeping its column (nothing
  // clears the flag), then a write finds it again: still no bypass.
  q.write_completed(2);
  q.add_handle(2);
  CHECK(picks(q, 1) == "2");
  CHECK(q.bypass_count() == 1);
  // 2's head is taken over for another column and later made 2's again:
  // a fresh stripe, whose first pick is a bypass.
  q.forget(2);
  CHECK(q.stripe(2) == nullptr);
  q.add_handle(2);
  CHECK(q.stripe(2)->io_started == false);
  CHECK(picks(q, 1) == "2");
  CHECK(q.bypass_count() == 2);
}

TEST_CASE("activate_delayed keeps the stripes the caller holds, in their place", "[raid5][scheduler]") {
  StripeQueues q;
  for (uint64_t id : {20, 21, 22, 23}) q.add_delayed(id);
  CHECK(q.activate_delayed([](uint64_t id) { return id == 21 || id == 23; }));
  CHECK(q.hold_len() == 2);
  CHECK(q.preread_active_stripes() == 2);
  CHECK(q.released_total() == 2);
  REQUIRE(q.delayed_len() == 2);
  CHECK(q.delayed().front() == 21);
  CHECK(q.delayed().back() == 23);
  CHECK(q.next() == std::optional<uint64_t>(20));
  CHECK(q.next() == std::optional<uint64_t>(22));
  // Pre-reads active: the plug stays in whatever the caller says.
  CHECK_FALSE(q.activate_delayed());
  q.preread_done(20);
  q.preread_done(22);
  // Nothing released when every delayed stripe is held.
  CHECK_FALSE(q.activate_delayed([](uint64_t) { return true; }));
  CHECK(q.delayed_len() == 2);
  CHECK(q.activate_delayed());
  CHECK(q.delayed_len() == 0);
}
