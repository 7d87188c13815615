// The write-intent bitmap on RAID5 counts per-member stripe sectors, as
// md's raid5 calls md_bitmap_startwrite with the stripe's device sector.
// Expected ranges worked out by hand for 4 members, 64 KiB (128-sector)
// chunks: a stripe holds 384 array sectors and 128 device sectors.
#include <cstring>

#include "raid5_test_util.hpp"

using namespace rs;
using namespace rs::raid5::test;

TEST_CASE("raid5 bitmap ranges are device sectors of the stripes written", "[raid5][bitmap]") {
  TempDir dir;
  auto paths = member_paths(dir, 4);
  auto arr = create_raid5({4, 2}, paths);
  const raid::Personality& p = arr->personality();
  using R = std::pair<uint64_t, uint64_t>;
  CHECK(p.bitmap_range(0, 8) == R{0, 8});            // chunk 0 of stripe 0
  CHECK(p.bitmap_range(130, 140) == R{2, 12});       // inside chunk 1: same device offsets
  CHECK(p.bitmap_range(120, 136) == R{0, 128});      // across a chunk boundary: the whole stripe
  CHECK(p.bitmap_range(389, 393) == R{133, 137});    // stripe 1, chunk 0, offset 5
  CHECK(p.bitmap_range(300, 500) == R{0, 256});      // stripes 0 and 1
  CHECK(p.array_range_of_bitmap(130, 140) == R{384, 768});  // device sectors of stripe 1: all its data
  CHECK(p.array_range_of_bitmap(0, 1) == R{0, 384});
  // 4 MiB of data per member, whole chunks.
  CHECK(p.bitmap_sectors() == arr->shape().dev_sectors / 128 * 128);
}

TEST_CASE("a raid5 with an internal bitmap takes writes and checks clean", "[raid5][bitmap]") {
  TempDir dir;
  auto paths = member_paths(dir, 3);
  raid::CreateOptions o;
  o.level = 5;
  o.raid_disks = 3;
  o.layout = 2;
  o.chunk_bytes = kChunkBytes;
  o.create_files_bytes = kRaid5MemberBytes;
  o.bitmap = raid::BitmapMode::internal;
  o.bitmap_chunk_bytes = 64 * 1024;
  auto made = raid::Array::create(levels::builtin(), o, paths);
  INFO((made ? std::string() : made.error().message));
  REQUIRE(made.ok());
  auto arr = std::move(*made);
  REQUIRE(arr->bitmap());
  std::mt19937_64 rng(3);
  auto data = random_bytes(rng, 300000);
  require_ok(array_write(*arr, 70000, data.data(), data.size()));
  std::vector<uint8_t> back(data.size());
  require_ok(array_read(*arr, 70000, back.data(), back.size()));
  CHECK(first_diff(back, data) == -1);
  CHECK(arr->bitmap()->dirty_bits() > 0);
  CHECK(check_ok(*arr, false) == 0);
}
