// Which partial stripe a sequential write stream is still filling, worked
// by hand on a 4-member RAID5 with 64 KiB chunks: a stripe carries 3 x 128
// = 384 data sectors, and a 64 KiB write is 128 sectors.
#include <catch2/catch.hpp>

#include "raid5/write_streams.hpp"

using rs::raid5::WriteStreams;

namespace {
constexpr uint64_t kStripe = 384, kChunk = 128;
int a_port, b_port;  // two submitters: only their addresses matter
const void* const A = &a_port;
const void* const B = &b_port;
}  // namespace

TEST_CASE("a stream holds the stripe it ended in while other writes of it are in flight",
          "[raid5][streams]") {
  WriteStreams w(kStripe);
  // Stripe 0 written whole by three chunk writes, then chunk 0 of stripe 1.
  auto t0 = w.write_started(A, 0, kChunk);  // nothing before it: not a continuation
  CHECK_FALSE(w.holds(A, 0));
  auto t1 = w.write_started(A, kChunk, 2 * kChunk);   // continues; both writes wait on stripe 0
  CHECK_FALSE(w.holds(A, 0));                         // in flight 2, both on the tail
  auto t2 = w.write_started(A, 2 * kChunk, kStripe);  // ends at the stripe's end: no tail
  CHECK_FALSE(w.holds(A, 0));
  auto t3 = w.write_started(A, kStripe, kStripe + kChunk);
  // Stripe 1 is the tail (one write there), three other writes in flight.
  CHECK(w.holds(A, 1));
  CHECK_FALSE(w.holds(A, 0));
  CHECK_FALSE(w.holds(B, 1));  // another submitter has no stream there
  // Stripe 0's writes complete: nothing else of the stream is in flight,
  // so no completion would bring its next write: stripe 1 goes.
  w.write_done(t0);
  w.write_done(t1);
  CHECK(w.holds(A, 1));
  w.write_done(t2);
  CHECK_FALSE(w.holds(A, 1));
  w.write_done(t3);
  CHECK_FALSE(w.holds(A, 1));
}

TEST_CASE("a write that does not continue the stream lets its stripe go", "[raid5][streams]") {
  WriteStreams w(kStripe);
  auto t0 = w.write_started(A, 0, kStripe);  // a whole stripe
  auto t1 = w.write_started(A, kStripe, kStripe + kChunk);
  CHECK(w.holds(A, 1));
  // A random write elsewhere: the stream broke, stripe 1 is not held, nor
  // is the stripe the random write ended in.
  auto t2 = w.write_started(A, 40 * kStripe + 8, 40 * kStripe + 16);
  CHECK_FALSE(w.holds(A, 1));
  CHECK_FALSE(w.holds(A, 40));
  // Continuing the random write is a stream again (two writes in stripe
  // 40, and stripe 0's write still in flight elsewhere).
  auto t3 = w.write_started(A, 40 * kStripe + 16, 40 * kStripe + 24);
  CHECK(w.holds(A, 40));
  for (auto* t : {&t0, &t1, &t2, &t3}) w.write_done(*t);
  CHECK_FALSE(w.holds(A, 40));
}

TEST_CASE("writes counted under an earlier tail do not uncount the new one", "[raid5][streams]") {
  WriteStreams w(kStripe);
  auto t0 = w.write_started(A, 0, kChunk);
  auto t1 = w.write_started(A, kChunk, 2 * kChunk);            // tail 0: two writes
  auto t2 = w.write_started(A, 2 * kChunk, kStripe + kChunk);  // crosses into stripe 1: its tail, one write
  auto t3 = w.write_started(A, kStripe + kChunk, kStripe + 2 * kChunk);  // tail 1: two writes
  CHECK(w.holds(A, 1));                                                  // 4 in flight, 2 on stripe 1
  w.write_done(t0);
  w.write_done(t1);            // were stripe 0's: stripe 1 still has its two
  CHECK_FALSE(w.holds(A, 1));  // 2 in flight, both on stripe 1
  w.write_done(t2);
  w.write_done(t3);
}

TEST_CASE("streams of two submitters are apart", "[raid5][streams]") {
  WriteStreams w(kStripe);
  auto a0 = w.write_started(A, 0, kStripe);
  auto b0 = w.write_started(B, kStripe, 2 * kStripe);  // B's first write: not a continuation
  auto a1 = w.write_started(A, kStripe, kStripe + kChunk);
  auto b1 = w.write_started(B, 2 * kStripe, 2 * kStripe + kChunk);
  CHECK(w.holds(A, 1));
  CHECK(w.holds(B, 2));
  CHECK_FALSE(w.holds(A, 2));
  w.write_done(a0);
  CHECK_FALSE(w.holds(A, 1));
  CHECK(w.holds(B, 2));
  for (auto* t : {&b0, &a1, &b1}) w.write_done(*t);
}

TEST_CASE("an idle submitter's slot is reused", "[raid5][streams]") {
  WriteStreams w(kStripe);
  // Far more submitters than slots, one after the other, each idle once
  // its write is done: every write is still counted.
  std::vector<int> ports(200);
  for (int& p : ports) {
    auto t = w.write_started(&p, 0, kChunk);
    CHECK(t.submitter == &p);
    w.write_done(t);
  }
}
