// Helpers for the RAID5 tests on top of the array tests' ones.
#pragma once
#include "../raid/raid_test_util.hpp"
#include "raid5/raid5.hpp"

namespace rs::raid5::test {

using namespace rs::raid::test;

// 1 MiB of metadata and 4 MiB of data: 64 stripes of 64 KiB chunks or more.
inline constexpr uint64_t kRaid5MemberBytes = 5ull << 20;

struct Geometry {
  int disks;
  uint32_t layout;  // md's ALGORITHM_*: 0 la, 1 ra, 2 ls, 3 rs
};

inline const char* kLayoutNames[] = {"left-asymmetric", "right-asymmetric", "left-symmetric", "right-symmetric"};

// 3, 4 and 5 members in each of md's four layouts.
inline std::vector<Geometry> all_geometries() {
  std::vector<Geometry> v;
  for (int d = 3; d <= 5; ++d)
    for (uint32_t l = 0; l < 4; ++l) v.push_back({d, l});
  return v;
}

inline std::unique_ptr<raid::Array> create_raid5(const Geometry& g, const std::vector<std::string>& paths,
                                                 uint64_t member_bytes = kRaid5MemberBytes) {
  raid::CreateOptions o;
  o.level = 5;
  o.raid_disks = g.disks;
  o.layout = g.layout;
  o.chunk_bytes = kChunkBytes;
  o.create_files_bytes = member_bytes;
  auto arr = raid::Array::create(levels::builtin(), o, paths);
  INFO((arr ? std::string() : arr.error().message));
  REQUIRE(arr.ok());
  return std::move(*arr);
}

inline Raid5Personality& personality(raid::Array& arr) { return dynamic_cast<Raid5Personality&>(arr.personality()); }

// Reads the whole of `model`'s span from the array and requires it unchanged.
inline void read_all(raid::Array& arr, const std::vector<uint8_t>& model) {
  std::vector<uint8_t> back(model.size());
  require_ok(array_read(arr, 0, back.data(), back.size()));
  REQUIRE(first_diff(back, model) == -1);
}

}  // namespace rs::raid5::test
