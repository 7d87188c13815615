// Random numbers for the load generator: a small fast PRNG, the mixing and
// hashing functions fio's distributions rely on, and a keyed permutation
// that stands in for fio's random map.
//
// fio uses tausworthe generators; any good 64-bit generator gives the same
// statistics, so we use xoshiro256** (Blackman and Vigna), seeded through
// splitmix64. Everything here is deterministic (same seed, same sequence),
// allocation-free and lock-free: meant for the per-I/O hot path of one job
// thread.
#pragma once
#include <bit>
#include <cstdint>

namespace rs::workload {

// splitmix64's finalizer: a strong 64-bit mixing bijection.
constexpr uint64_t mix64(uint64_t x) noexcept {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

// fio's __hash_u64 (hash.h, fio 3.x): multiplies by the kernel's
// GOLDEN_RATIO_64. fio's zipf/pareto/normal generators pass the drawn rank
// through it so that hot blocks are spread over the file instead of packed
// at its start; we do the same to get fio's spatial pattern. (Older fio used
// 0x9e37fffffffc0001, which is 1 modulo 2^16 and so spreads nothing over a
// power-of-two block count.)
constexpr uint64_t fio_hash_u64(uint64_t v) noexcept {
  return v * 0x61C8864680B583EBULL;
}

class Rng {
 public:
  explicit Rng(uint64_t seed = 0) noexcept { reseed(seed); }

  void reseed(uint64_t seed) noexcept {
    for (auto& w : s_) {
      seed += 0x9e3779b97f4a7c15ULL;
      w = mix64(seed);
    }
  }

  uint64_t next() noexcept {
    const uint64_t result = std::rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = std::rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, n), n > 0, without modulo bias (Lemire's method).
  uint64_t below(uint64_t n) noexcept {
    unsigned __int128 m = static_cast<unsigned __int128>(next()) * n;
    uint64_t low = static_cast<uint64_t>(m);
    if (low < n) {
      const uint64_t threshold = -n % n;
      while (low < threshold) {
        m = static_cast<unsigned __int128>(next()) * n;
        low = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }

  // Uniform in [0, 1) with 53 random bits.
  double unit() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  uint64_t s_[4];
};

// A pseudo-random permutation of [0, n): visiting map(0), map(1), ...,
// map(n-1) touches every block exactly once, in a random order, with no
// bitmap. fio keeps a bitmap of used blocks (its "random map"); this gives
// the same guarantee in O(1) memory. A 4-round Feistel network over the
// smallest even-bit domain >= n, with cycle walking to stay below n (at most
// 4x oversized, so about 2 steps on average).
class RandomPermutation {
 public:
  RandomPermutation() = default;
  RandomPermutation(uint64_t n, uint64_t key) noexcept { reset(n, key); }

  void reset(uint64_t n, uint64_t key) noexcept {
    n_ = n;
    unsigned bits = n > 1 ? static_cast<unsigned>(std::bit_width(n - 1)) : 1;
    half_bits_ = (bits + 1) / 2;
    half_mask_ = (uint64_t{1} << half_bits_) - 1;
    rekey(key);
  }

  // New order for the next pass over the same blocks.
  void rekey(uint64_t key) noexcept {
    for (auto& k : keys_) {
      key += 0x9e3779b97f4a7c15ULL;
      k = mix64(key);
    }
  }

  uint64_t size() const noexcept { return n_; }

  // i in [0, n). Bijective on [0, n).
  uint64_t map(uint64_t i) const noexcept {
    uint64_t x = i;
    do {
      x = feistel(x);
    } while (x >= n_);
    return x;
  }

 private:
  uint64_t feistel(uint64_t x) const noexcept {
    uint64_t left = x >> half_bits_;
    uint64_t right = x & half_mask_;
    for (uint64_t k : keys_) {
      uint64_t next_right = left ^ (mix64(right ^ k) & half_mask_);
      left = right;
      right = next_right;
    }
    return (left << half_bits_) | right;
  }

  uint64_t n_ = 1;
  unsigned half_bits_ = 1;
  uint64_t half_mask_ = 1;
  uint64_t keys_[4] = {};
};

}  // namespace rs::workload
