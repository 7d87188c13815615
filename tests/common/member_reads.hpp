// Each member's reads as the engine counts them, from any list of members
// with `counters` (an array's read_members(), a target's members()), in
// member order; and their sum.
#pragma once
#include <cstdint>
#include <numeric>
#include <vector>

namespace rs::test {

template <class Members>
std::vector<uint64_t> member_reads(const Members& members) {
  std::vector<uint64_t> v;
  for (const auto& m : members) v.push_back(m.counters.reads);
  return v;
}

template <class Members>
std::vector<uint64_t> member_read_bytes(const Members& members) {
  std::vector<uint64_t> v;
  for (const auto& m : members) v.push_back(m.counters.read_bytes);
  return v;
}

inline uint64_t sum(const std::vector<uint64_t>& v) {
  return std::accumulate(v.begin(), v.end(), uint64_t{0});
}

}  // namespace rs::test
