#include "raid5/parity.hpp"

#include <isa-l/raid.h>

#include <cstring>
#include <vector>

namespace rs::raid5 {

namespace {
// xor_gen wants the sources and the destination in one pointer array. A
// raid5 stripe has at most a few hundred members: a small thread-local
// array, grown once, keeps the I/O path free of allocation.
void** pointer_array(size_t n) {
  thread_local std::vector<void*> v;
  if (v.size() < n) v.resize(n);
  return v.data();
}
}  // namespace

void xor_into(uint8_t* dest, uint8_t* const* src, int n, size_t len) {
  if (n == 1) {
    std::memcpy(dest, src[0], len);
    return;
  }
  void** v = pointer_array(size_t(n) + 1);
  for (int i = 0; i < n; ++i) v[i] = src[i];
  v[n] = dest;
  xor_gen(n + 1, int(len), v);
}

bool xor_is_zero(uint8_t* const* vec, int n, size_t len) {
  if (n == 1) {
    for (size_t i = 0; i < len; ++i)
      if (vec[0][i]) return false;
    return true;
  }
  if (n == 2) return std::memcmp(vec[0], vec[1], len) == 0;  // xor_check wants three or more
  void** v = pointer_array(size_t(n));
  for (int i = 0; i < n; ++i) v[i] = vec[i];
  return xor_check(n, int(len), v) == 0;
}

}  // namespace rs::raid5
