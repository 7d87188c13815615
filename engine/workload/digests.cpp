#include "workload/digests.hpp"

#include <bit>
#include <cstring>

namespace rs::workload {
namespace {

uint32_t be32(const unsigned char* p) noexcept {
  return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | uint32_t(p[3]);
}
uint64_t be64(const unsigned char* p) noexcept {
  return uint64_t(be32(p)) << 32 | be32(p + 4);
}
void put_be32(uint8_t* p, uint32_t v) noexcept {
  for (int i = 0; i < 4; ++i) p[i] = uint8_t(v >> (24 - 8 * i));
}
void put_be64(uint8_t* p, uint64_t v) noexcept {
  put_be32(p, uint32_t(v >> 32));
  put_be32(p + 4, uint32_t(v));
}

// FIPS 180-4's padding for every hash here: the message, 0x80, zeros, and
// its length in bits, big-endian, in the last `len_bytes` of the last
// block. `compress` takes one block.
template <size_t Block, size_t LenBytes, typename Compress>
void padded_blocks(const unsigned char* p, size_t len, Compress compress) noexcept {
  const size_t full = len / Block;
  for (size_t i = 0; i < full; ++i) compress(p + i * Block);
  unsigned char tail[2 * Block] = {};
  const size_t rest = len % Block;
  if (rest) std::memcpy(tail, p + full * Block, rest);
  tail[rest] = 0x80;
  const size_t blocks = rest + 1 + LenBytes > Block ? 2 : 1;
  put_be64(tail + blocks * Block - 8, uint64_t(len) * 8);  // lengths below 2^61 bytes
  for (size_t i = 0; i < blocks; ++i) compress(tail + i * Block);
}

constexpr uint32_t kSha256K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

constexpr uint64_t kSha512K[80] = {
    0x428a2f98d728ae22, 0x7137449123ef65cd, 0xb5c0fbcfec4d3b2f, 0xe9b5dba58189dbbc, 0x3956c25bf348b538,
    0x59f111f1b605d019, 0x923f82a4af194f9b, 0xab1c5ed5da6d8118, 0xd807aa98a3030242, 0x12835b0145706fbe,
    0x243185be4ee4b28c, 0x550c7dc3d5ffb4e2, 0x72be5d74f27b896f, 0x80deb1fe3b1696b1, 0x9bdc06a725c71235,
    0xc19bf174cf692694, 0xe49b69c19ef14ad2, 0xefbe4786384f25e3, 0x0fc19dc68b8cd5b5, 0x240ca1cc77ac9c65,
    0x2de92c6f592b0275, 0x4a7484aa6ea6e483, 0x5cb0a9dcbd41fbd4, 0x76f988da831153b5, 0x983e5152ee66dfab,
    0xa831c66d2db43210, 0xb00327c898fb213f, 0xbf597fc7beef0ee4, 0xc6e00bf33da88fc2, 0xd5a79147930aa725,
    0x06ca6351e003826f, 0x142929670a0e6e70, 0x27b70a8546d22ffc, 0x2e1b21385c26c926, 0x4d2c6dfc5ac42aed,
    0x53380d139d95b3df, 0x650a73548baf63de, 0x766a0abb3c77b2a8, 0x81c2c92e47edaee6, 0x92722c851482353b,
    0xa2bfe8a14cf10364, 0xa81a664bbc423001, 0xc24b8b70d0f89791, 0xc76c51a30654be30, 0xd192e819d6ef5218,
    0xd69906245565a910, 0xf40e35855771202a, 0x106aa07032bbd1b8, 0x19a4c116b8d2d0c8, 0x1e376c085141ab53,
    0x2748774cdf8eeb99, 0x34b0bcb5e19b48a8, 0x391c0cb3c5c95a63, 0x4ed8aa4ae3418acb, 0x5b9cca4f7763e373,
    0x682e6ff3d6b2b8a3, 0x748f82ee5defb2fc, 0x78a5636f43172f60, 0x84c87814a1f0ab72, 0x8cc702081a6439ec,
    0x90befffa23631e28, 0xa4506cebde82bde9, 0xbef9a3f7b2c67915, 0xc67178f2e372532b, 0xca273eceea26619c,
    0xd186b8c721c0c207, 0xeada7dd6cde0eb1e, 0xf57d4f7fee6ed178, 0x06f067aa72176fba, 0x0a637dc5a2c898a6,
    0x113f9804bef90dae, 0x1b710b35131c471b, 0x28db77f523047d84, 0x32caab7b40c72493, 0x3c9ebe0a15c9bebc,
    0x431d67c49c100d4c, 0x4cc5d4becb3e42b6, 0x597f299cfc657e2a, 0x5fcb6fab3ad6faec, 0x6c44198c4a475817,
};

}  // namespace

Sha1Digest sha1(const void* data, size_t len) noexcept {
  uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
  padded_blocks<64, 8>(static_cast<const unsigned char*>(data), len, [&](const unsigned char* b) {
    // The schedule in a 16-word ring, computed as the rounds use it, and
    // the rounds unrolled by stage: no branch or table per round (a w[80]
    // array and a branchy loop ran at a third of fio's SHA-1 speed).
    uint32_t w[16];
    for (int t = 0; t < 16; ++t) w[t] = be32(b + 4 * t);
    auto word = [&w](int t) -> uint32_t {
      if (t < 16) return w[t];
      const uint32_t x = std::rotl(w[(t + 13) & 15] ^ w[(t + 8) & 15] ^ w[(t + 2) & 15] ^ w[t & 15], 1);
      w[t & 15] = x;
      return x;
    };
    uint32_t a = h[0], bb = h[1], c = h[2], d = h[3], e = h[4];
    auto round = [&](uint32_t f, uint32_t k, uint32_t wt) {
      const uint32_t tmp = std::rotl(a, 5) + f + e + k + wt;
      e = d, d = c, c = std::rotl(bb, 30), bb = a, a = tmp;
    };
#pragma GCC unroll 20
    for (int t = 0; t < 20; ++t) round(d ^ (bb & (c ^ d)), 0x5A827999, word(t));
#pragma GCC unroll 20
    for (int t = 20; t < 40; ++t) round(bb ^ c ^ d, 0x6ED9EBA1, word(t));
#pragma GCC unroll 20
    for (int t = 40; t < 60; ++t) round((bb & c) | (d & (bb | c)), 0x8F1BBCDC, word(t));
#pragma GCC unroll 20
    for (int t = 60; t < 80; ++t) round(bb ^ c ^ d, 0xCA62C1D6, word(t));
    h[0] += a, h[1] += bb, h[2] += c, h[3] += d, h[4] += e;
  });
  Sha1Digest out;
  for (int i = 0; i < 5; ++i) put_be32(out.data() + 4 * i, h[i]);
  return out;
}

Sha256Digest sha256(const void* data, size_t len) noexcept {
  uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  padded_blocks<64, 8>(static_cast<const unsigned char*>(data), len, [&](const unsigned char* b) {
    uint32_t w[64];
    for (int t = 0; t < 16; ++t) w[t] = be32(b + 4 * t);
    for (int t = 16; t < 64; ++t) {
      const uint32_t s0 = std::rotr(w[t - 15], 7) ^ std::rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
      const uint32_t s1 = std::rotr(w[t - 2], 17) ^ std::rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
      w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    uint32_t a = h[0], b2 = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    // Unrolled whole: the eight-word rotation at the end of a round is then
    // register renaming, not moves (the rolled loop ran at 0.6x fio's).
#pragma GCC unroll 64
    for (int t = 0; t < 64; ++t) {
      const uint32_t S1 = std::rotr(e, 6) ^ std::rotr(e, 11) ^ std::rotr(e, 25);
      const uint32_t ch = g ^ (e & (f ^ g));
      const uint32_t t1 = hh + S1 + ch + kSha256K[t] + w[t];
      const uint32_t S0 = std::rotr(a, 2) ^ std::rotr(a, 13) ^ std::rotr(a, 22);
      const uint32_t maj = (a & b2) | (c & (a | b2));
      hh = g, g = f, f = e, e = d + t1, d = c, c = b2, b2 = a, a = t1 + S0 + maj;
    }
    h[0] += a, h[1] += b2, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
  });
  Sha256Digest out;
  for (int i = 0; i < 8; ++i) put_be32(out.data() + 4 * i, h[i]);
  return out;
}

Sha512Digest sha512(const void* data, size_t len) noexcept {
  uint64_t h[8] = {0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1,
                   0x510e527fade682d1, 0x9b05688c2b3e6c1f, 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179};
  padded_blocks<128, 16>(static_cast<const unsigned char*>(data), len, [&](const unsigned char* b) {
    uint64_t w[80];
    for (int t = 0; t < 16; ++t) w[t] = be64(b + 8 * t);
    for (int t = 16; t < 80; ++t) {
      const uint64_t s0 = std::rotr(w[t - 15], 1) ^ std::rotr(w[t - 15], 8) ^ (w[t - 15] >> 7);
      const uint64_t s1 = std::rotr(w[t - 2], 19) ^ std::rotr(w[t - 2], 61) ^ (w[t - 2] >> 6);
      w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    uint64_t a = h[0], b2 = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    // Unrolled whole: the eight-word rotation at the end of a round is then
    // register renaming, not moves (the rolled loop ran at 0.6x fio's).
#pragma GCC unroll 80
    for (int t = 0; t < 80; ++t) {
      const uint64_t S1 = std::rotr(e, 14) ^ std::rotr(e, 18) ^ std::rotr(e, 41);
      const uint64_t ch = g ^ (e & (f ^ g));
      const uint64_t t1 = hh + S1 + ch + kSha512K[t] + w[t];
      const uint64_t S0 = std::rotr(a, 28) ^ std::rotr(a, 34) ^ std::rotr(a, 39);
      const uint64_t maj = (a & b2) | (c & (a | b2));
      hh = g, g = f, f = e, e = d + t1, d = c, c = b2, b2 = a, a = t1 + S0 + maj;
    }
    h[0] += a, h[1] += b2, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
  });
  Sha512Digest out;
  for (int i = 0; i < 8; ++i) put_be64(out.data() + 8 * i, h[i]);
  return out;
}

uint32_t xxhash32(const void* data, size_t len, uint32_t seed) noexcept {
  constexpr uint32_t P1 = 2654435761u, P2 = 2246822519u, P3 = 3266489917u, P4 = 668265263u, P5 = 374761393u;
  const auto* p = static_cast<const unsigned char*>(data);
  const unsigned char* const end = p + len;
  auto le32 = [](const unsigned char* q) {
    uint32_t v;
    std::memcpy(&v, q, 4);
    return v;  // little-endian host (verify.cpp asserts it)
  };
  auto round = [&](uint32_t acc, uint32_t lane) { return std::rotl(acc + lane * P2, 13) * P1; };
  uint32_t h;
  if (len >= 16) {
    uint32_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
    for (; p + 16 <= end; p += 16) {
      v1 = round(v1, le32(p));
      v2 = round(v2, le32(p + 4));
      v3 = round(v3, le32(p + 8));
      v4 = round(v4, le32(p + 12));
    }
    h = std::rotl(v1, 1) + std::rotl(v2, 7) + std::rotl(v3, 12) + std::rotl(v4, 18);
  } else {
    h = seed + P5;
  }
  h += uint32_t(len);
  for (; p + 4 <= end; p += 4) h = std::rotl(h + le32(p) * P3, 17) * P4;
  for (; p < end; ++p) h = std::rotl(h + *p * P5, 11) * P1;
  h ^= h >> 15;
  h *= P2;
  h ^= h >> 13;
  h *= P3;
  h ^= h >> 16;
  return h;
}

}  // namespace rs::workload
