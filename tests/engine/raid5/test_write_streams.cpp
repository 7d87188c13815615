// Which partial stripe a sequential write stream is still filling, worked
// by hand on a 4-member RAID5 with 64 KiB chunks: a stripe carries 3 x 128
// = 384 data sectors, a 64 KiB write is 128 sectors, and a page column at
// offset `off` in its chunk lacks, after its first chunk is written, the
// block at stripe start + 128 + off.
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
  CHECK_FALSE(w.holds(A, 0, kChunk));
  auto t1 = w.write_started(A, kChunk, 2 * kChunk);   // continues; both writes wait on stripe 0
  CHECK_FALSE(w.holds(A, 0, 2 * kChunk));             // in flight 2, both on the tail
  auto t2 = w.write_started(A, 2 * kChunk, kStripe);  // ends at the stripe's end: no tail
  CHECK_FALSE(w.holds(A, 0, 2 * kChunk));
  auto t3 = w.write_started(A, kStripe, kStripe + kChunk);
  // Stripe 1 is the tail (one write there), three other writes in flight:
  // the next three chunk writes (sectors 512..896) are in reach, so every
  // column of stripe 1 (needing 512 + 0 .. 512 + 120) is held.
  CHECK(w.holds(A, 1, 512));
  CHECK(w.holds(A, 1, 512 + 120));
  CHECK_FALSE(w.holds(A, 1, 400));  // behind the stream: it will not come back
  CHECK_FALSE(w.holds(A, 0, 128));
  CHECK_FALSE(w.holds(B, 1, 512));  // another submitter has no stream there
  // Stripe 0's first two writes complete: one write left elsewhere, so
  // only the next chunk (512..640) is in reach.
  w.write_done(t0);
  w.write_done(t1);
  CHECK(w.holds(A, 1, 512 + 120));
  CHECK_FALSE(w.holds(A, 1, 640));
  // Nothing else of the stream in flight: no completion would bring its
  // next write, so stripe 1 goes.
  w.write_done(t2);
  CHECK_FALSE(w.holds(A, 1, 512));
  w.write_done(t3);
  CHECK_FALSE(w.holds(A, 1, 512));
}

TEST_CASE("a write that does not continue the stream lets its stripe go", "[raid5][streams]") {
  WriteStreams w(kStripe);
  auto t0 = w.write_started(A, 0, kStripe);  // a whole stripe
  auto t1 = w.write_started(A, kStripe, kStripe + kChunk);
  CHECK(w.holds(A, 1, 512));
  // A 4 KiB write elsewhere: the stream broke, stripe 1 is not held, nor
  // is the stripe the new write ended in.
  const uint64_t s40 = 40 * kStripe;
  auto t2 = w.write_started(A, s40 + 8, s40 + 16);
  CHECK_FALSE(w.holds(A, 1, 512));
  CHECK_FALSE(w.holds(A, 40, s40 + 16));
  // Continuing it is a stream again: 4 in flight, 2 on stripe 40, so the
  // next two 4 KiB writes (s40 + 24 .. s40 + 40) are in reach. The page
  // column just written needs its next block a chunk on (s40 + 128 + 16):
  // out of reach, it goes.
  auto t3 = w.write_started(A, s40 + 16, s40 + 24);
  CHECK(w.holds(A, 40, s40 + 24));
  CHECK_FALSE(w.holds(A, 40, s40 + 40));
  CHECK_FALSE(w.holds(A, 40, s40 + kChunk + 16));
  for (auto* t : {&t0, &t1, &t2, &t3}) w.write_done(*t);
  CHECK_FALSE(w.holds(A, 40, s40 + 24));
}

TEST_CASE("a stream that restarts inside its stripe is not held behind its own writes", "[raid5][streams]") {
  // W1 and W2 jump (neither continues the one before), W3 continues W2;
  // all three end in stripe 0, so nothing of the stream is in flight
  // elsewhere and the columns lacking sector 256 + x are not held: their
  // own writes would never complete to let the stream reach them.
  WriteStreams w(kStripe);
  auto w1 = w.write_started(A, 0, 64);
  auto w2 = w.write_started(A, kChunk, kChunk + 64);
  auto w3 = w.write_started(A, kChunk + 64, 2 * kChunk);
  CHECK_FALSE(w.holds(A, 0, 2 * kChunk));
  auto far = w.write_started(B, 0, 8);  // another submitter's write: no effect on A
  CHECK_FALSE(w.holds(A, 0, 2 * kChunk));
  for (auto* t : {&w1, &w2, &w3, &far}) w.write_done(*t);
}

TEST_CASE("an empty write counts for nothing", "[raid5][streams]") {
  WriteStreams w(kStripe);
  auto t0 = w.write_started(A, 0, kStripe);
  auto t1 = w.write_started(A, kStripe, kStripe + kChunk);
  CHECK(w.write_started(B, 5, 5).submitter == nullptr);
  CHECK(w.holds(A, 1, 512));
  w.write_done(t0);
  w.write_done(t1);
}

TEST_CASE("writes ending in an earlier stripe count as elsewhere", "[raid5][streams]") {
  WriteStreams w(kStripe);
  auto t0 = w.write_started(A, 0, kChunk);
  auto t1 = w.write_started(A, kChunk, 2 * kChunk);                      // tail 0: two writes
  auto t2 = w.write_started(A, 2 * kChunk, kStripe + kChunk);            // into stripe 1: its tail, one write
  auto t3 = w.write_started(A, kStripe + kChunk, kStripe + 2 * kChunk);  // tail 1: two writes
  CHECK(w.holds(A, 1, 640));                                             // 4 in flight, 2 on stripe 1
  w.write_done(t0);
  w.write_done(t1);                 // were stripe 0's: stripe 1 still has its two
  CHECK_FALSE(w.holds(A, 1, 640));  // 2 in flight, both on stripe 1
  w.write_done(t2);
  w.write_done(t3);
}

TEST_CASE("streams of two submitters are apart", "[raid5][streams]") {
  WriteStreams w(kStripe);
  auto a0 = w.write_started(A, 0, kStripe);
  auto b0 = w.write_started(B, kStripe, 2 * kStripe);  // B's first write: not a continuation
  auto a1 = w.write_started(A, kStripe, kStripe + kChunk);
  auto b1 = w.write_started(B, 2 * kStripe, 2 * kStripe + kChunk);
  CHECK(w.holds(A, 1, 512));
  CHECK(w.holds(B, 2, 896));
  CHECK_FALSE(w.holds(A, 2, 896));
  w.write_done(a0);
  CHECK_FALSE(w.holds(A, 1, 512));
  CHECK(w.holds(B, 2, 896));
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
