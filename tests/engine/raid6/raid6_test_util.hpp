// Helpers for the RAID6 tests on top of the array tests' ones.
#pragma once
#include "../raid5/parity_test_util.hpp"

namespace rs::raid6::test {

using namespace rs::parity::test;

// 1 MiB of metadata and 4 MiB of data per member: 64 stripes of 64 KiB chunks.
inline constexpr uint64_t kRaid6MemberBytes = kParityMemberBytes;

inline std::unique_ptr<raid::Array> create_raid6(const Geometry& g, const std::vector<std::string>& paths) {
  return create_parity_array(6, g, paths);
}

}  // namespace rs::raid6::test
