// Helpers for the RAID6 tests on top of the array tests' ones.
#pragma once
#include <cstring>

#include "../raid/raid_test_util.hpp"
#include "raid5/raid5.hpp"

namespace rs::raid6::test {

using namespace rs::raid::test;

// 1 MiB of metadata and 4 MiB of data per member: 64 stripes of 64 KiB chunks.
inline constexpr uint64_t kRaid6MemberBytes = 5ull << 20;

struct Geometry {
  int disks;
  uint32_t layout;  // md's ALGORITHM_*: 0..3, and 16..19 with Q on the last member
};

inline std::unique_ptr<raid::Array> create_raid6(const Geometry& g, const std::vector<std::string>& paths) {
  raid::CreateOptions o;
  o.level = 6;
  o.raid_disks = g.disks;
  o.layout = g.layout;
  o.chunk_bytes = kChunkBytes;
  o.create_files_bytes = kRaid6MemberBytes;
  auto arr = raid::Array::create(levels::builtin(), o, paths);
  INFO((arr ? std::string() : arr.error().message));
  REQUIRE(arr.ok());
  return std::move(*arr);
}

inline raid5::Raid5Personality& personality(raid::Array& arr) {
  return dynamic_cast<raid5::Raid5Personality&>(arr.personality());
}

// Writes `n` random pieces (odd offsets and lengths, some across stripes,
// some whole aligned stripes) through the array and into the model.
inline void write_random(raid::Array& arr, std::vector<uint8_t>& model, std::mt19937_64& rng, int n) {
  for (int i = 0; i < n; ++i) {
    const size_t len = 1 + size_t(rng() % (i % 3 == 0 ? 300 * 1024 : 9000));
    const uint64_t off =
        i % 4 == 1 ? (rng() % (model.size() / 4096 - 76)) * 4096 : rng() % (model.size() - len);
    auto data = random_bytes(rng, len);
    INFO("write " << len << " bytes at " << off);
    require_ok(array_write(arr, off, data.data(), len));
    std::memcpy(model.data() + off, data.data(), len);
  }
}

inline void read_matches(raid::Array& arr, const std::vector<uint8_t>& model) {
  std::vector<uint8_t> back(model.size());
  require_ok(array_read(arr, 0, back.data(), back.size()));
  REQUIRE(first_diff(back, model) == -1);
}

}  // namespace rs::raid6::test
