// RAID6's P and Q (raid5/pq_syndrome.*, on ISA-L) against a bit-by-bit
// GF(2^8) computation written here (polynomial 0x11d, generator 2, as md's
// lib/raid6 and the RAID-6 paper define it): generation, verification
// naming the wrong syndrome, read-modify-write, and recovery of every single
// block and every pair (data+data, data+P, data+Q, P+Q) for 4 to 8 members
// and the 128-member maximum.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "gf_reference.hpp"
#include "raid5/pq_syndrome.hpp"

using namespace rs::raid5;
using namespace rs::raid6::test;

namespace {

// A stripe: d data blocks, then P, then Q, `len` bytes each, 64-byte aligned.
struct Stripe {
  int d = 0;
  size_t len = 0;
  std::unique_ptr<uint8_t, decltype(&std::free)> mem{nullptr, &std::free};
  std::vector<uint8_t*> blocks;

  Stripe(int data, size_t bytes) : d(data), len(bytes) {
    // aligned_alloc wants a size that is a multiple of the alignment.
    mem.reset(static_cast<uint8_t*>(std::aligned_alloc(64, (size_t(d + 2) * len + 63) / 64 * 64)));
    for (int i = 0; i < d + 2; ++i) blocks.push_back(mem.get() + size_t(i) * len);
  }
  uint8_t* p() { return blocks[size_t(d)]; }
  uint8_t* q() { return blocks[size_t(d) + 1]; }
  void fill_random(std::mt19937& rng) {
    for (int i = 0; i < d; ++i)
      for (size_t b = 0; b < len; ++b) blocks[size_t(i)][b] = uint8_t(rng());
  }
  std::vector<uint8_t> copy() const { return {mem.get(), mem.get() + size_t(d + 2) * len}; }
  bool equals(const std::vector<uint8_t>& v) const { return std::memcmp(mem.get(), v.data(), v.size()) == 0; }
};

// P and Q of the data blocks, byte by byte with the reference multiply.
void reference_pq(Stripe& s, std::vector<uint8_t>& p, std::vector<uint8_t>& q) {
  p.assign(s.len, 0);
  q.assign(s.len, 0);
  for (int k = 0; k < s.d; ++k) {
    const uint8_t g = gf_pow2_bits(k);
    for (size_t b = 0; b < s.len; ++b) {
      p[b] ^= s.blocks[size_t(k)][b];
      q[b] ^= gf_mul_bits(g, s.blocks[size_t(k)][b]);
    }
  }
}

bool same(const uint8_t* a, const std::vector<uint8_t>& b) {
  return std::memcmp(a, b.data(), b.size()) == 0;
}

}  // namespace

TEST_CASE("raid6 reference multiply: worked by hand") {
  CHECK(gf_mul_bits(0x80, 2) == 0x1d);  // x^8 = x^4 + x^3 + x^2 + 1
  CHECK(gf_mul_bits(2, 0x8e) == 0x01);  // 0x8e is g^-1
  CHECK(gf_pow2_bits(8) == 0x1d);
  CHECK(gf_pow2_bits(255) == 1);  // g generates the 255 non-zero elements
  for (int k = 1; k < 255; ++k) CHECK(gf_pow2_bits(k) != 1);
}

TEST_CASE("raid6 P and Q of a hand-worked stripe") {
  Stripe s(3, 32);
  std::memset(s.blocks[0], 0x01, 32);
  std::memset(s.blocks[1], 0x01, 32);
  std::memset(s.blocks[2], 0x80, 32);
  pq_generate(s.blocks.data(), 3, s.p(), s.q(), 32);
  // P = 1 ^ 1 ^ 0x80; Q = 1 + 2*1 + 4*0x80 = 1 ^ 2 ^ 0x3a.
  for (size_t b = 0; b < 32; ++b) {
    CHECK(s.p()[b] == 0x80);
    CHECK(s.q()[b] == 0x39);
  }
}

TEST_CASE("raid6 pq_generate matches the bit-by-bit syndromes, 4 to 8 and 128 members") {
  std::mt19937 rng(29);
  for (int d : {2, 3, 4, 5, 6, 126}) {
    for (size_t len : {size_t(32), size_t(4096)}) {
      INFO(d << " data blocks of " << len);
      Stripe s(d, len);
      s.fill_random(rng);
      pq_generate(s.blocks.data(), d, s.p(), s.q(), len);
      std::vector<uint8_t> p, q;
      reference_pq(s, p, q);
      CHECK(same(s.p(), p));
      CHECK(same(s.q(), q));
    }
  }
}

TEST_CASE("raid6 pq_verify says which syndrome is wrong") {
  std::mt19937 rng(6);
  for (int d : {2, 4, 6}) {
    INFO(d << " data blocks");
    Stripe s(d, 4096);
    s.fill_random(rng);
    pq_generate(s.blocks.data(), d, s.p(), s.q(), 4096);
    std::vector<uint8_t> scratch_mem(4096 + 64);
    uint8_t* scratch = scratch_mem.data() + (64 - reinterpret_cast<uintptr_t>(scratch_mem.data()) % 64) % 64;
    auto verdict = [&] { return pq_verify(s.blocks.data(), d, s.p(), s.q(), 4096, scratch); };
    CHECK(verdict().ok());
    s.p()[100] ^= 0x40;
    CHECK_FALSE(verdict().p_ok);
    CHECK(verdict().q_ok);
    s.p()[100] ^= 0x40;
    s.q()[4095] ^= 1;
    CHECK(verdict().p_ok);
    CHECK_FALSE(verdict().q_ok);
    s.p()[7] ^= 0x10;  // both wrong
    CHECK_FALSE(verdict().p_ok);
    CHECK_FALSE(verdict().q_ok);
    s.p()[7] ^= 0x10;
    s.q()[4095] ^= 1;
    s.blocks[size_t(d - 1)][0] ^= 0xff;  // data changed under both
    CHECK_FALSE(verdict().p_ok);
    CHECK_FALSE(verdict().q_ok);
  }
}

TEST_CASE("raid6 pq_update (read-modify-write) gives the syndromes of the new data") {
  std::mt19937 rng(5);
  for (int d : {2, 3, 6}) {
    Stripe s(d, 4096);
    s.fill_random(rng);
    pq_generate(s.blocks.data(), d, s.p(), s.q(), 4096);
    for (int slot = 0; slot < d; ++slot) {
      INFO(d << " data blocks, slot " << slot);
      std::vector<uint8_t> old(s.blocks[size_t(slot)], s.blocks[size_t(slot)] + 4096);
      for (size_t b = 0; b < 4096; ++b) s.blocks[size_t(slot)][b] = uint8_t(rng());
      pq_update(slot, old.data(), s.blocks[size_t(slot)], s.p(), s.q(), 4096);
      std::vector<uint8_t> p, q;
      reference_pq(s, p, q);
      CHECK(same(s.p(), p));
      CHECK(same(s.q(), q));
    }
  }
}

TEST_CASE("raid6 pq_recover rebuilds every single block and every pair, 4 to 8 members") {
  std::mt19937 rng(2);
  int pairs = 0, singles = 0;
  for (int d = 2; d <= 6; ++d) {
    Stripe s(d, 4096);
    s.fill_random(rng);
    pq_generate(s.blocks.data(), d, s.p(), s.q(), 4096);
    const std::vector<uint8_t> good = s.copy();
    for (int a = 0; a < d + 2; ++a) {
      for (int b = -1; b < d + 2; ++b) {
        if (b == a || (b >= 0 && b < a)) continue;
        INFO(d << " data blocks, lost " << a << " and " << b << " (P is " << d << ", Q " << d + 1 << ")");
        std::memset(s.blocks[size_t(a)], 0xa5, 4096);
        if (b >= 0) std::memset(s.blocks[size_t(b)], 0x5a, 4096);
        // Either order of the two names means the same pair.
        if (b >= 0 && (a + b) % 2)
          pq_recover(s.blocks.data(), d, b, a, 4096);
        else
          pq_recover(s.blocks.data(), d, a, b, 4096);
        REQUIRE(s.equals(good));
        ++(b < 0 ? singles : pairs);
      }
    }
  }
  CHECK(singles == 4 + 5 + 6 + 7 + 8);
  CHECK(pairs == 6 + 10 + 15 + 21 + 28);
}

TEST_CASE(
    "raid6 pq_recover_one rebuilds the one data block wanted and touches no other, every pair, 4 to 8 and "
    "128 members") {
  std::mt19937 rng(61);
  int cases = 0;
  for (int d : {2, 3, 4, 5, 6, 126}) {
    Stripe s(d, 64);
    s.fill_random(rng);
    std::vector<uint8_t> p, q;
    reference_pq(s, p, q);  // the syndromes bit by bit, not from ISA-L
    std::memcpy(s.p(), p.data(), s.len);
    std::memcpy(s.q(), q.data(), s.len);
    const std::vector<uint8_t> good = s.copy();
    for (int want = 0; want < d; ++want)
      for (int other = -1; other < d + 2; ++other) {
        if (other == want || (d == 126 && other > 2 && other < 123)) continue;  // 128 members: a sample
        INFO(d << " data blocks, want " << want << ", lost with it " << other << " (P " << d << ", Q "
               << d + 1 << ")");
        std::memset(s.blocks[size_t(want)], 0xa5, s.len);
        if (other >= 0) std::memset(s.blocks[size_t(other)], 0x5a, s.len);
        if (other >= 0 && (want + other) % 2)  // either order of the two names
          pq_recover_one(s.blocks.data(), d, other, want, want, s.len);
        else
          pq_recover_one(s.blocks.data(), d, want, other, want, s.len);
        CHECK(std::memcmp(s.blocks[size_t(want)], good.data() + size_t(want) * s.len, s.len) == 0);
        for (int i = 0; i < d + 2; ++i) {
          if (i == want) continue;
          const uint8_t* expect = good.data() + size_t(i) * s.len;
          if (i == other) {  // left as it was: not rebuilt
            CHECK(std::all_of(s.blocks[size_t(i)], s.blocks[size_t(i)] + s.len,
                              [](uint8_t v) { return v == 0x5a; }));
            std::memcpy(s.blocks[size_t(i)], expect, s.len);
          } else {
            CHECK(std::memcmp(s.blocks[size_t(i)], expect, s.len) == 0);
          }
        }
        ++cases;
      }
  }
  // Up to 8 members: d + 2 choices of the other block (none, data, P, Q)
  // for each of the d wanted. 128: others none, 0-2 and 123-127 (9, one
  // fewer for the 6 wanted among them).
  CHECK(cases == 2 * 4 + 3 * 5 + 4 * 6 + 5 * 7 + 6 * 8 + (6 * 8 + 120 * 9));
}

TEST_CASE("raid6 pq_recover at 128 members: two data blocks far apart, and data with P") {
  std::mt19937 rng(128);
  Stripe s(126, 64);
  s.fill_random(rng);
  pq_generate(s.blocks.data(), 126, s.p(), s.q(), 64);
  const std::vector<uint8_t> good = s.copy();
  for (auto [a, b] : {std::pair{0, 125}, std::pair{77, 126}, std::pair{3, 127}, std::pair{126, 127}}) {
    INFO("lost " << a << " and " << b);
    std::memset(s.blocks[size_t(a)], 0, 64);
    std::memset(s.blocks[size_t(b)], 0, 64);
    pq_recover(s.blocks.data(), 126, a, b, 64);
    REQUIRE(s.equals(good));
  }
}
