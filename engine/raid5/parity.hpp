// Parity arithmetic over pages, through ISA-L (xor_gen / xor_check): the
// XOR of RAID5 is never a hand-written loop here.
#pragma once
#include <cstddef>
#include <cstdint>

namespace rs::raid5 {

// dest = src[0] ^ src[1] ^ ... ^ src[n-1], `len` bytes each (a multiple of
// 32; pointers 32-byte aligned). dest must not be one of the sources.
// n == 1 copies.
void xor_into(uint8_t* dest, uint8_t* const* src, int n, size_t len);

// Whether the XOR of the n vectors is zero (parity agrees with the data).
bool xor_is_zero(uint8_t* const* vec, int n, size_t len);

}  // namespace rs::raid5
