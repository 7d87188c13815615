// RAID6 of 4 to 6 image files in every layout: random data reads back;
// with every single member and every pair of members failed in turn it
// still does, degraded writes included; both are added back and rebuilt
// (the first while the second is still missing), and check finds no
// mismatch; a stop and reassemble keeps it all.
#include "raid6_test_util.hpp"

using namespace rs;
using namespace rs::raid6::test;

namespace {

const std::vector<uint32_t> kLayouts = {2, 0, 1, 3, 16, 17, 18, 19};  // md's default first

// Fails `lost` (one or two members), reads and writes degraded, then adds
// fresh files back one by one (each rebuilt from the rest) and checks.
void fail_and_rebuild(raid::Array& arr, std::vector<std::string>& paths, const TempDir& dir,
                      std::vector<uint8_t>& model, std::mt19937_64& rng, const std::vector<int>& lost) {
  for (int k : lost) require_ok(arr.fail_member(k, "test"));
  REQUIRE(arr.degraded());
  read_matches(arr, model);  // the lost members' data recovered from the rest
  write_random(arr, model, rng, 4);
  read_matches(arr, model);
  for (int k : lost) {
    static int serial = 0;  // a file name never used before in this process
    const std::string fresh = dir.file("new" + std::to_string(k) + "_" + std::to_string(++serial) + ".img");
    raid::AddOptions ao;
    ao.create_files_bytes = kRaid6MemberBytes;
    require_ok(add_member(arr, fresh, ao));
    paths[size_t(k)] = fresh;
    read_matches(arr, model);
  }
  REQUIRE_FALSE(arr.degraded());
  CHECK(check_ok(arr, false) == 0);
}

void round_trip(const Geometry& g) {
  INFO(g.disks << " members, layout " << g.layout);
  TempDir dir;
  auto paths = member_paths(dir, g.disks);
  auto arr = create_raid6(g, paths);
  REQUIRE(arr->size_bytes() == uint64_t(g.disks - 2) * 4 * 1024 * 1024);
  std::vector<uint8_t> model(arr->size_bytes(), 0);
  std::mt19937_64 rng(0x7a1d6000u + uint64_t(g.disks * 100 + g.layout));
  write_random(*arr, model, rng, 12);
  read_matches(*arr, model);
  CHECK(check_ok(*arr, false) == 0);
  int singles = 0, pairs = 0;
  for (int a = 0; a < g.disks; ++a) {
    INFO("member " << a << " failed");
    fail_and_rebuild(*arr, paths, dir, model, rng, {a});
    ++singles;
  }
  for (int a = 0; a < g.disks; ++a)
    for (int b = a + 1; b < g.disks; ++b) {
      INFO("members " << a << " and " << b << " failed");
      fail_and_rebuild(*arr, paths, dir, model, rng, {a, b});
      ++pairs;
    }
  CHECK(singles == g.disks);
  CHECK(pairs == g.disks * (g.disks - 1) / 2);
  arr.reset();
  arr = assemble(paths);
  read_matches(*arr, model);
}

}  // namespace

// One case per member count, each over every layout, so each stays short.
TEST_CASE("raid6 round trip of 4 members, every member and every pair failed, rebuilt, checked",
          "[raid6][roundtrip]") {
  const uint32_t layout = GENERATE(from_range(kLayouts));
  round_trip({4, layout});
}

TEST_CASE("raid6 round trip of 5 members, every member and every pair failed, rebuilt, checked",
          "[raid6][roundtrip]") {
  const uint32_t layout = GENERATE(from_range(kLayouts));
  round_trip({5, layout});
}

TEST_CASE("raid6 round trip of 6 members, every member and every pair failed, rebuilt, checked",
          "[raid6][roundtrip]") {
  const uint32_t layout = GENERATE(from_range(kLayouts));
  round_trip({6, layout});
}

TEST_CASE("raid6 refuses a third member failed: the array stops serving, never returns wrong data",
          "[raid6][roundtrip]") {
  TempDir dir;
  auto paths = member_paths(dir, 5);
  auto arr = create_raid6({5, 2}, paths);
  std::vector<uint8_t> model(arr->size_bytes(), 0);
  std::mt19937_64 rng(3);
  write_random(*arr, model, rng, 6);
  require_ok(arr->fail_member(1, "test"));
  require_ok(arr->fail_member(3, "test"));
  read_matches(*arr, model);
  CHECK_FALSE(arr->fail_member(4, "test"));  // md refuses to fail the member the data needs
  read_matches(*arr, model);
}

TEST_CASE(
    "raid6 of 8 members writes small blocks by md's rmw (P and Q from the old data), healthy and "
    "two missing",
    "[raid6][roundtrip]") {
  TempDir dir;
  auto paths = member_paths(dir, 8);
  auto arr = create_raid6({8, 2}, paths);
  std::vector<uint8_t> model(arr->size_bytes(), 0);
  std::mt19937_64 rng(8);
  const auto& c = personality(*arr).counters();
  auto small_writes = [&](int n) {
    for (int i = 0; i < n; ++i) {  // one aligned 4 KiB block: rmw on 8 members
      const uint64_t off = (rng() % (model.size() / 4096)) * 4096;
      auto data = random_bytes(rng, 4096);
      require_ok(array_write(*arr, off, data.data(), 4096));
      std::memcpy(model.data() + off, data.data(), 4096);
    }
  };
  small_writes(60);
  CHECK(c.rmw.load() > 0);
  read_matches(*arr, model);
  CHECK(check_ok(*arr, false) == 0);
  require_ok(arr->fail_member(2, "test"));
  require_ok(arr->fail_member(6, "test"));
  const uint64_t rmw_before = c.rmw.load();
  small_writes(60);
  read_matches(*arr, model);
  INFO("rmw writes with two members missing: " << c.rmw.load() - rmw_before);
  for (int k : {2, 6}) {
    raid::AddOptions ao;
    ao.create_files_bytes = kRaid6MemberBytes;
    paths[size_t(k)] = dir.file("back" + std::to_string(k) + ".img");
    require_ok(add_member(*arr, paths[size_t(k)], ao));
  }
  CHECK(check_ok(*arr, false) == 0);
  read_matches(*arr, model);
}
