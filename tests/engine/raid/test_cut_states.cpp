// States a power cut can leave between the members' metadata, and what
// assembling makes of them: a clean/active disagreement is unclean (the
// member that kept "active" lost its clean mark), and a bitmap page that
// landed on some members only still has its chunk resynced.
#include "ondisk/bitmap.hpp"
#include "raid_test_util.hpp"

using namespace rs;
using namespace rs::raid;
using namespace rs::raid::test;

namespace {

// Member 1's copy of array block `block` (raid1: the same sector) gets other bytes.
void damage_copy(const std::string& path, const Shape& shape, uint64_t block, std::mt19937_64& rng) {
  const auto junk = random_bytes(rng, 4096);
  write_file_at(path, (shape.data_offset + block * 8) * kSectorBytes, junk.data(), junk.size());
}

}  // namespace

TEST_CASE("a member one event behind that still says active makes the array resync",
          "[raid][resync][powercut]") {
  const Config cfg = all_configs()[0];  // raid1 x2
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  std::mt19937_64 rng(41);
  Shape shape;
  {
    auto arr = create_array(cfg, paths);
    const auto data = random_bytes(rng, 65536);
    require_ok(array_write(*arr, 0, data.data(), data.size()));
    shape = arr->shape();
  }
  // The close wrote member 0's clean mark; power went before member 1's:
  // member 1 still says active, one event behind, and its last writes may
  // differ from member 0's.
  require_ok(edit_superblock(paths[1], [](ondisk::Superblock& sb) {
    sb.events -= 1;
    sb.resync_offset = 0;
  }));
  damage_copy(paths[1], shape, 3, rng);
  AssembleOptions o;
  o.resync = false;
  {
    auto arr = assemble(paths, o);
    CHECK(arr->working_members() == 2);  // one event behind is still current (md, mdadm)
    CHECK(arr->resync_pending());        // but the array is not clean
    CHECK(arr->resync_point() == 0);
  }
  auto arr = assemble(paths);
  REQUIRE(arr->resync_task());
  require_ok(arr->resync_task()->wait());
  CHECK(check_ok(*arr, false) == 0);
}

TEST_CASE("a chunk set in one member's bitmap only is resynced", "[raid][bitmap][resync][powercut]") {
  const Config cfg = all_configs()[0];  // raid1 x2
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  const Shape shape = create_with_bitmap(cfg, paths)->shape();
  // A crash while chunk 5 was written: the page with its bit reached member
  // 1 only, member 0 is the freshest (its active mark one event later), and
  // the copies of the chunk differ.
  const uint64_t chunk = 5;
  uint8_t bits = 1u << (chunk % 8);
  write_file_at(paths[1], kBitmapAt + ondisk::kBitmapSuperBytes + chunk / 8, &bits, 1);
  for (int i = 0; i < 2; ++i)
    require_ok(edit_superblock(paths[size_t(i)], [i](ondisk::Superblock& sb) {
      sb.resync_offset = 0;
      sb.events += uint64_t(i == 0);
    }));
  std::mt19937_64 rng(42);
  damage_copy(paths[1], shape, chunk * (kBitmapChunk / 4096) + 2, rng);
  auto arr = assemble(paths);
  REQUIRE(arr->resync_task());
  require_ok(arr->resync_task()->wait());
  CHECK(check_ok(*arr, false) == 0);
}
