// The level table: the rules every front end asks, with expected values
// from mdadm (its defaults and spellings), not from the table itself.
#include <catch2/catch.hpp>

#include "levels/levels.hpp"
#include "raid/level_info.hpp"

using namespace rs;

namespace {

const raid::LevelInfo& row(int level) {
  const raid::LevelInfo* info = levels::builtin().find(level);
  REQUIRE(info != nullptr);
  return *info;
}

}  // namespace

TEST_CASE("mdadm's defaults: raid10 n2 (0x102), raid5 left-symmetric (2), chunk 512K; raid1 has neither",
          "[raid][levels]") {
  auto r10 = row(10).new_shape(4, std::nullopt, std::nullopt);
  REQUIRE(r10.ok());
  CHECK(r10->layout == 0x102);
  CHECK(r10->chunk_sectors == 1024);
  auto r5 = row(5).new_shape(3, std::nullopt, std::nullopt);
  REQUIRE(r5.ok());
  CHECK(r5->layout == 2);
  CHECK(r5->chunk_sectors == 1024);
  auto r1 = row(1).new_shape(2, std::nullopt, std::nullopt);
  REQUIRE(r1.ok());
  CHECK(r1->layout == 0);
  CHECK(r1->chunk_sectors == 0);
  CHECK(row(10).layout_name(r10->layout) == "n2");
  CHECK(row(5).layout_name(r5->layout) == "left-symmetric");
}

TEST_CASE("layout 0 is a layout of its own, never 'the default'", "[raid][levels]") {
  // md's ALGORITHM_LEFT_ASYMMETRIC is 0: asked for, it is kept.
  auto la = row(5).parse_layout("la", 3);
  REQUIRE(la.ok());
  CHECK(*la == 0);
  auto shape = row(5).new_shape(3, *la, std::nullopt);
  REQUIRE(shape.ok());
  CHECK(shape->layout == 0);
  CHECK(row(5).layout_name(0) == "left-asymmetric");
  // raid10 word 0 (no copies) is refused by the level's own shape check.
  auto r10 = row(10).new_shape(4, 0u, std::nullopt);
  REQUIRE(r10.ok());  // new_shape leaves word validity to the level's factory
  CHECK_FALSE(row(10).used_dev_sectors(*r10, 1 << 20).ok());
}

TEST_CASE("a level refuses what it does not have, naming it", "[raid][levels]") {
  auto layout = row(1).parse_layout("n2", 2);
  REQUIRE_FALSE(layout.ok());
  CHECK_THAT(layout.error().message, Catch::Contains("raid1 has no layouts"));
  auto chunk = row(1).new_shape(2, std::nullopt, 65536u);
  REQUIRE_FALSE(chunk.ok());
  CHECK_THAT(chunk.error().message, Catch::Contains("raid1 has no chunks"));
  for (uint32_t bad : {3000u, 2048u, 0u, 1u << 31}) {
    INFO(bad);
    auto s = row(5).new_shape(3, std::nullopt, bad);
    REQUIRE_FALSE(s.ok());
    CHECK_THAT(s.error().message, Catch::Contains("power of two"));
  }
  auto few = row(5).new_shape(2, std::nullopt, std::nullopt);
  REQUIRE_FALSE(few.ok());
  CHECK_THAT(few.error().message, Catch::Contains("raid5 takes 3 to"));
  auto missing = levels::builtin().get(42);
  REQUIRE_FALSE(missing.ok());
  CHECK_THAT(missing.error().message, Catch::Contains("not supported"));
}

TEST_CASE("the layouts a user picks from start with the default and parse back", "[raid][levels]") {
  for (const auto& info : levels::builtin().levels) {
    INFO(info.name);
    const int disks = std::max(info.min_members, 4);
    const auto names = info.layout_names(disks);
    CHECK(names.empty() == !info.has_layouts());
    if (names.empty()) continue;
    CHECK(names.front() == info.layout_name(info.default_layout));
    for (const auto& n : names) {
      auto word = info.parse_layout(n, disks);
      REQUIRE(word.ok());
      CHECK(info.layout_name(*word) == n);
    }
  }
}
