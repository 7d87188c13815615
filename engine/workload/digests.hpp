// The digests fio's verify= offers besides crc32c and md5: SHA-1 (FIPS
// 180-4), SHA-256, SHA-512, and xxHash32 (fio's verify=xxhash, seed 0), for
// verify blocks (verify.hpp). CRC-64 comes from ISA-L (verify.cpp).
//
// They only detect accidental corruption here. One-shot only: every
// verified block is hashed whole. Contract as md5.hpp: pure, thread-safe,
// allocation-free; data needs no alignment and may be null when len is 0.
// Digests are in the byte order `sha1sum`/`sha256sum`/`sha512sum` print.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

namespace rs::workload {

using Sha1Digest = std::array<uint8_t, 20>;
using Sha256Digest = std::array<uint8_t, 32>;
using Sha512Digest = std::array<uint8_t, 64>;

Sha1Digest sha1(const void* data, size_t len) noexcept;
Sha256Digest sha256(const void* data, size_t len) noexcept;
Sha512Digest sha512(const void* data, size_t len) noexcept;
// XXH32 (Yann Collet's xxHash, 32-bit variant) with the given seed.
uint32_t xxhash32(const void* data, size_t len, uint32_t seed) noexcept;

}  // namespace rs::workload
