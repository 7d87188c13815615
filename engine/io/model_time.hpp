// Time arithmetic shared by the device models.
//
// Models keep their clocks in ticks of 1/16 ns: fine enough that rounding a
// 4 KiB transfer at 7 GB/s (585 ns) costs under 0.01 %, and 64 bits of ticks
// still last 36 years, so the real backend can feed CLOCK_MONOTONIC as is.
#pragma once
#include <cstdint>

namespace rs::io::model_time {

inline constexpr uint64_t kTicksPerNs = 16;

inline uint64_t ticks(uint64_t ns) {
  return ns * kTicksPerNs;
}
// A completion is never reported before the emulated device is done.
inline uint64_t ns_ceil(uint64_t t) {
  return (t + kTicksPerNs - 1) / kTicksPerNs;
}
// Duration in ticks of `us` microseconds (or of seconds x 1e6), rounded.
inline uint64_t ticks_from_us(double us) {
  return uint64_t(us * 1e3 * double(kTicksPerNs) + 0.5);
}

// A write the device cannot put down as whole 4 KiB units: it must read the
// rest of the unit first (seed 001: the P5520's atomic 4 KiB write unit).
inline bool partial_4k_write(bool write, uint64_t offset, uint32_t length) {
  return write && ((offset | length) & 4095u) != 0;
}

}  // namespace rs::io::model_time
