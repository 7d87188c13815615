#include "workload/md5.hpp"

#include <bit>
#include <cstring>

namespace rs::workload {
namespace {

// MD5 is defined on little-endian words; we load them with memcpy, which is
// only correct on a little-endian host (every target RaidScope builds for).
static_assert(std::endian::native == std::endian::little, "md5.cpp assumes a little-endian host");

// Per-round shift amounts and the sine-derived constants T[i] =
// floor(2^32 * |sin(i + 1)|) of RFC 1321 section 3.4.
constexpr uint8_t kShift[64] = {7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
                                5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20, 5, 9,  14, 20,
                                4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
                                6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21};

constexpr uint32_t kT[64] = {
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391};

// One 64-byte block into the state (a, b, c, d).
void transform(uint32_t st[4], const unsigned char* block) noexcept {
  uint32_t x[16];
  std::memcpy(x, block, sizeof x);
  uint32_t a = st[0], b = st[1], c = st[2], d = st[3];
  for (int i = 0; i < 64; ++i) {
    uint32_t f;
    int g;
    // The four rounds differ only in the boolean function and in the order
    // the message words are taken (RFC 1321 3.4).
    if (i < 16) {
      f = (b & c) | (~b & d);
      g = i;
    } else if (i < 32) {
      f = (b & d) | (c & ~d);
      g = (5 * i + 1) & 15;
    } else if (i < 48) {
      f = b ^ c ^ d;
      g = (3 * i + 5) & 15;
    } else {
      f = c ^ (b | ~d);
      g = (7 * i) & 15;
    }
    const uint32_t rotated = std::rotl(a + f + kT[i] + x[g], kShift[i]);
    a = d;
    d = c;
    c = b;
    b += rotated;
  }
  st[0] += a;
  st[1] += b;
  st[2] += c;
  st[3] += d;
}

}  // namespace

Md5Digest md5(const void* data, size_t len) noexcept {
  uint32_t st[4] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
  const auto* p = static_cast<const unsigned char*>(data);

  // Whole blocks straight from the input: no copy of the bulk of the data.
  const size_t whole = len & ~size_t{63};
  for (size_t i = 0; i < whole; i += 64) transform(st, p + i);

  // The tail, the 0x80 marker, zero padding and the 64-bit bit length take
  // one block, or two when fewer than 9 bytes are left in the first.
  unsigned char tail[128] = {};
  const size_t rest = len - whole;
  if (rest) std::memcpy(tail, p + whole, rest);
  tail[rest] = 0x80;
  const size_t tail_len = rest < 56 ? 64 : 128;
  const uint64_t bits = static_cast<uint64_t>(len) * 8;  // RFC 1321: length mod 2^64
  std::memcpy(tail + tail_len - 8, &bits, 8);
  transform(st, tail);
  if (tail_len == 128) transform(st, tail + 64);

  Md5Digest out;
  std::memcpy(out.data(), st, sizeof st);
  return out;
}

}  // namespace rs::workload
