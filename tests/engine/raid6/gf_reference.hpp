// The tests' own GF(2^8), bit by bit: polynomial x^8+x^4+x^3+x^2+1 (0x11d)
// and generator 2, as md's lib/raid6 and the RAID-6 paper define RAID6's Q.
// Never the engine's (ISA-L) arithmetic.
#pragma once
#include <cstdint>

namespace rs::raid6::test {

// Shift-and-add multiply, reduced as it goes.
inline uint8_t gf_mul_bits(uint8_t a, uint8_t b) {
  uint8_t r = 0;
  for (int bit = 0; bit < 8; ++bit) {
    if (b & (1u << bit)) r ^= a;
    const bool carry = a & 0x80;
    a = uint8_t(a << 1);
    if (carry) a ^= 0x1d;  // 0x11d without the x^8 that fell off
  }
  return r;
}

inline uint8_t gf_pow2_bits(int k) {
  uint8_t r = 1;
  for (int i = 0; i < k; ++i) r = gf_mul_bits(r, 2);
  return r;
}

}  // namespace rs::raid6::test
