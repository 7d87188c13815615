// printf-style formatting into a std::string, for the fixed-layout text md
// and mdadm print (superblock checks, --examine). Lines stay under 256 bytes.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace rs {

inline std::string strformat(const char* format, auto... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, format, args...);
  return buf;
}

// uint64_t as the type %llu expects (uint64_t is unsigned long here).
inline unsigned long long ull(uint64_t v) {
  return static_cast<unsigned long long>(v);
}

}  // namespace rs
