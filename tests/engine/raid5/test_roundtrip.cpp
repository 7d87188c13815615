// RAID5 of 3, 4 and 5 image files in each layout: random data at aligned
// and unaligned offsets reads back; with each member failed in turn it
// still does, degraded writes included; after the member is added back and
// rebuilt, check finds no mismatch; bytes changed on a member behind the
// array's back are counted by check and fixed by repair.
#include "raid5_test_util.hpp"

using namespace rs;
using namespace rs::raid5::test;

TEST_CASE("raid5 round trip, each member failed in turn, rebuilt, checked", "[raid5][roundtrip]") {
  const Geometry g = GENERATE(from_range(all_geometries()));
  INFO(g.disks << " members, " << kLayoutNames[g.layout]);
  TempDir dir;
  auto paths = member_paths(dir, g.disks);
  auto arr = create_raid5(g, paths);
  std::vector<uint8_t> model(arr->size_bytes(), 0);
  std::mt19937_64 rng(0x7a1d5000u + uint64_t(g.disks * 10 + g.layout));
  write_random(*arr, model, rng, 12);
  read_matches(*arr, model);
  // Unaligned reads.
  for (int i = 0; i < 6; ++i) {
    const size_t len = 1 + size_t(rng() % 150000);
    const uint64_t off = rng() % (model.size() - len);
    std::vector<uint8_t> part(len);
    require_ok(array_read(*arr, off, part.data(), len));
    REQUIRE(std::memcmp(part.data(), model.data() + off, len) == 0);
  }
  CHECK(check_ok(*arr, false) == 0);

  for (int k = 0; k < g.disks; ++k) {
    INFO("member " << k << " failed");
    require_ok(arr->fail_member(k, "test"));
    REQUIRE(arr->degraded());
    read_matches(*arr, model);  // member k's data reconstructed from the rest
    write_random(*arr, model, rng, 4);
    read_matches(*arr, model);
    // Back in as a fresh file, rebuilt from the others.
    const std::string fresh = dir.file("new" + std::to_string(k) + ".img");
    raid::AddOptions ao;
    ao.create_files_bytes = kRaid5MemberBytes;
    require_ok(add_member(*arr, fresh, ao));
    REQUIRE_FALSE(arr->degraded());
    paths[size_t(k)] = fresh;
    CHECK(check_ok(*arr, false) == 0);
    read_matches(*arr, model);
  }
  // And all of it after a stop and reassemble.
  arr.reset();
  arr = assemble(paths);
  read_matches(*arr, model);
}

TEST_CASE("check counts a corrupted block in 4 KiB pages and repair rewrites the parity", "[raid5][check]") {
  const Geometry g{4, 2};
  TempDir dir;
  auto paths = member_paths(dir, g.disks);
  auto arr = create_raid5(g, paths);
  std::vector<uint8_t> model(arr->size_bytes(), 0);
  std::mt19937_64 rng(42);
  write_random(*arr, model, rng, 8);
  REQUIRE(check_ok(*arr, false) == 0);
  const uint64_t data_offset = arr->shape().data_offset * 512;
  arr.reset();
  // Stripe 0's parity lives on member 3 (left-symmetric, 4 members): 3 pages
  // (12 KiB, 24 sectors) of it changed, at an odd offset within the first 16 KiB.
  std::vector<uint8_t> junk(3 * 4096 - 100, 0xA5);
  write_file_at(paths[3], data_offset + 100, junk.data(), junk.size());
  // Stripe 1's data block on member 0 (array chunk 4): one page.
  write_file_at(paths[0], data_offset + kChunkBytes + 8192, junk.data(), 4096);
  arr = assemble(paths);
  CHECK(check_ok(*arr, false) == 4 * 8);  // md counts 8 sectors per mismatched page
  CHECK(check_ok(*arr, true) == 4 * 8);   // repair reports what it fixed
  CHECK(check_ok(*arr, false) == 0);
  // The parity-only damage left the data alone; the data block now reads
  // back as it was changed (repair trusts data, as md's does).
  std::memcpy(model.data() + 4 * kChunkBytes + 8192, junk.data(), 4096);
  read_matches(*arr, model);
}

TEST_CASE("I/Os of the prepared maximum at any page offset, healthy and degraded", "[raid5][roundtrip]") {
  for (int disks : {3, 5}) {
    INFO(disks << " members");
    TempDir dir;
    auto paths = member_paths(dir, disks);
    auto arr = create_raid5({disks, 2}, paths);
    std::mt19937_64 rng(static_cast<uint64_t>(disks));
    std::vector<uint8_t> model(arr->size_bytes(), 0);
    for (int degraded = 0; degraded < 2; ++degraded) {
      if (degraded) require_ok(arr->fail_member(1, "test"));
      TestPort tp(*arr);
      for (uint32_t len : {4096u, 65536u, 200704u, 1048576u}) {
        for (int i = 0; i < 6; ++i) {
          const uint64_t off = (rng() % ((model.size() - len) / 4096)) * 4096;
          auto data = random_bytes(rng, len);
          INFO("length " << len << " at " << off << (degraded ? " degraded" : ""));
          REQUIRE(submit_rw(tp, true, off, data.data(), len) == int(len));
          std::memcpy(model.data() + off, data.data(), len);
          std::vector<uint8_t> back(len);
          REQUIRE(submit_rw(tp, false, off, back.data(), len) == int(len));
          REQUIRE(std::memcmp(back.data(), model.data() + off, len) == 0);
        }
      }
    }
    read_matches(*arr, model);
  }
}
