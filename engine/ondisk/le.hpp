// Little-endian field access for on-disk structures. md stores every
// numeric field little-endian; these helpers keep the byte order explicit
// and independent of the host (and free of unaligned-access UB).
#pragma once
#include <cstddef>
#include <cstdint>

namespace rs::ondisk::le {

inline uint16_t get16(const uint8_t* p) {
  return static_cast<uint16_t>(p[0] | (p[1] << 8));
}
inline uint32_t get32(const uint8_t* p) {
  return uint32_t{p[0]} | (uint32_t{p[1]} << 8) | (uint32_t{p[2]} << 16) | (uint32_t{p[3]} << 24);
}
inline uint64_t get64(const uint8_t* p) {
  return uint64_t{get32(p)} | (uint64_t{get32(p + 4)} << 32);
}

inline void put16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v);
  p[1] = static_cast<uint8_t>(v >> 8);
}
inline void put32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
inline void put64(uint8_t* p, uint64_t v) {
  put32(p, static_cast<uint32_t>(v));
  put32(p + 4, static_cast<uint32_t>(v >> 32));
}

}  // namespace rs::ondisk::le
