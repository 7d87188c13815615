// Helpers for the RAID5 tests on top of the array tests' ones.
#pragma once
#include "parity_test_util.hpp"

namespace rs::raid5::test {

using namespace rs::parity::test;

// 1 MiB of metadata and 4 MiB of data: 64 stripes of 64 KiB chunks or more.
inline constexpr uint64_t kRaid5MemberBytes = kParityMemberBytes;

inline const char* kLayoutNames[] = {"left-asymmetric", "right-asymmetric", "left-symmetric",
                                     "right-symmetric"};

// 3, 4 and 5 members in each of md's four layouts.
inline std::vector<Geometry> all_geometries() {
  std::vector<Geometry> v;
  for (int d = 3; d <= 5; ++d)
    for (uint32_t l = 0; l < 4; ++l) v.push_back({d, l});
  return v;
}

inline std::unique_ptr<raid::Array> create_raid5(const Geometry& g, const std::vector<std::string>& paths,
                                                 uint64_t member_bytes = kRaid5MemberBytes) {
  return create_parity_array(5, g, paths, member_bytes);
}

}  // namespace rs::raid5::test
