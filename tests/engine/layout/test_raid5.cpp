// RAID5 address maths against md's raid5_compute_sector / compute_blocknr:
// hand tables for 3 and 4 disks in each classic layout, then exhaustive
// properties over small geometries.
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "../../common/result_helpers.hpp"
#include "layout/raid5.hpp"

using namespace rs::layout;

namespace {

constexpr uint32_t kRaid5Chunk = 8;

Raid5Geometry make_raid5(uint32_t layout, int disks, uint64_t dev_sectors = 64 * kRaid5Chunk) {
  std::string err;
  auto g = raid5_from_layout(layout, disks, kRaid5Chunk, dev_sectors);
  INFO(rs::test::error_text(g));
  REQUIRE(g.ok());
  return *g;
}

struct Stripe {
  int parity;
  std::vector<int> data;  // disk of data chunk 0..data_disks-1 of this stripe
};

struct Raid5Table {
  const char* name;
  uint32_t layout;
  int disks;
  std::vector<Stripe> stripes;  // first raid_disks stripes: one full parity rotation
};

// Worked out from md's rules, with stripe s and data index i:
//  left-*:  parity = data_disks - s % disks (last disk first, moving left)
//  right-*: parity = s % disks (disk 0 first, moving right)
//  *-asymmetric: data disk = i, or i+1 once at/after the parity disk
//  *-symmetric:  data disk = (parity + 1 + i) % disks
// E.g. left-symmetric x4 is md's familiar picture
//   0 1 2 P / 4 5 P 3 / 8 P 6 7 / P 9 10 11.
const std::vector<Raid5Table>& raid5_tables() {
  static const std::vector<Raid5Table> t = {
      {"left-asymmetric x3", 0, 3, {{2, {0, 1}}, {1, {0, 2}}, {0, {1, 2}}}},
      {"right-asymmetric x3", 1, 3, {{0, {1, 2}}, {1, {0, 2}}, {2, {0, 1}}}},
      {"left-symmetric x3", 2, 3, {{2, {0, 1}}, {1, {2, 0}}, {0, {1, 2}}}},
      {"right-symmetric x3", 3, 3, {{0, {1, 2}}, {1, {2, 0}}, {2, {0, 1}}}},
      {"left-asymmetric x4", 0, 4, {{3, {0, 1, 2}}, {2, {0, 1, 3}}, {1, {0, 2, 3}}, {0, {1, 2, 3}}}},
      {"right-asymmetric x4", 1, 4, {{0, {1, 2, 3}}, {1, {0, 2, 3}}, {2, {0, 1, 3}}, {3, {0, 1, 2}}}},
      {"left-symmetric x4", 2, 4, {{3, {0, 1, 2}}, {2, {3, 0, 1}}, {1, {2, 3, 0}}, {0, {1, 2, 3}}}},
      {"right-symmetric x4", 3, 4, {{0, {1, 2, 3}}, {1, {2, 3, 0}}, {2, {3, 0, 1}}, {3, {0, 1, 2}}}},
  };
  return t;
}

}  // namespace

TEST_CASE("raid5 hand tables match md's mapping", "[raid5]") {
  for (const auto& t : raid5_tables()) {
    SECTION(t.name) {
      const auto g = make_raid5(t.layout, t.disks);
      const auto dd = static_cast<uint64_t>(g.data_disks());
      // Two parity rotations: the second must repeat the first one.
      for (uint64_t s = 0; s < 2 * t.stripes.size(); ++s) {
        const auto& want = t.stripes[s % t.stripes.size()];
        INFO("stripe " << s);
        CHECK(raid5_parity_disk(g, s) == want.parity);
        CHECK_FALSE(raid5_compute_blocknr(g, want.parity, s * kRaid5Chunk + 2));
        CHECK(raid5_data_index(g, s, want.parity) == -1);
        for (uint64_t i = 0; i < dd; ++i) {
          const uint64_t array_sector = (s * dd + i) * kRaid5Chunk + 5;
          INFO("data index " << i);
          const auto a = raid5_compute_sector(g, array_sector);
          CHECK(a.pd_idx == want.parity);
          CHECK(a.dd_idx == want.data[i]);
          CHECK(a.sector == s * kRaid5Chunk + 5);
          CHECK(raid5_data_index(g, s, want.data[i]) == static_cast<int>(i));
          CHECK(raid5_compute_blocknr(g, want.data[i], s * kRaid5Chunk + 5) == array_sector);
        }
      }
    }
  }
}

TEST_CASE("raid5 array size is md's raid5_size", "[raid5]") {
  // Whole chunks per member times data disks; a partial chunk is unused.
  CHECK(raid5_array_sectors(make_raid5(2, 3, 64 * kRaid5Chunk)) == 2 * 64 * kRaid5Chunk);
  CHECK(raid5_array_sectors(make_raid5(2, 4, 100)) == 3 * 96);
  CHECK(raid5_array_sectors(make_raid5(0, 5, 7)) == 0);
  CHECK(raid5_array_sectors(make_raid5(1, 2, 16)) == 16);
}

TEST_CASE("raid5 properties over every chunk of small geometries", "[raid5]") {
  for (uint32_t layout = 0; layout <= 3; ++layout) {
    for (int disks = 2; disks <= 7; ++disks) {
      const uint64_t dev_chunks = 2 * static_cast<uint64_t>(disks) + 1;
      const auto g = make_raid5(layout, disks, dev_chunks * kRaid5Chunk);
      INFO(raid5_algorithm_name(g.algorithm) << " x" << disks);
      const uint64_t array_chunks = raid5_array_sectors(g) / kRaid5Chunk;
      REQUIRE(array_chunks == dev_chunks * static_cast<uint64_t>(disks - 1));

      std::set<std::pair<int, uint64_t>> seen;  // (disk, device chunk) holding data
      for (uint64_t c = 0; c < array_chunks; ++c) {
        for (uint64_t off : {uint64_t{0}, uint64_t{kRaid5Chunk - 1}}) {
          const auto a = raid5_compute_sector(g, c * kRaid5Chunk + off);
          const uint64_t stripe = c / static_cast<uint64_t>(g.data_disks());
          REQUIRE(a.sector == stripe * kRaid5Chunk + off);
          REQUIRE(a.dd_idx >= 0);
          REQUIRE(a.dd_idx < disks);
          REQUIRE(a.dd_idx != a.pd_idx);
          REQUIRE(a.pd_idx == raid5_parity_disk(g, stripe));
          REQUIRE(raid5_compute_blocknr(g, a.dd_idx, a.sector) == c * kRaid5Chunk + off);
          if (off == 0) REQUIRE(seen.insert({a.dd_idx, stripe}).second);
        }
      }
      // Bijection: every member chunk is either this stripe's parity or
      // exactly one array chunk, and parity rotates over all disks.
      std::set<int> parity_disks;
      for (uint64_t s = 0; s < dev_chunks; ++s) {
        const int pd = raid5_parity_disk(g, s);
        parity_disks.insert(pd);
        for (int d = 0; d < disks; ++d) REQUIRE((d == pd) != (seen.count({d, s}) == 1));
      }
      REQUIRE(parity_disks.size() == static_cast<size_t>(disks));
      // Symmetric layouts put consecutive chunks of a stripe on consecutive
      // disks (mod disks); left-symmetric keeps that across stripe
      // boundaries too, which is why it reads sequentially best.
      if (layout >= 2) {
        for (uint64_t c = 0; c + 1 < array_chunks; ++c) {
          const bool same_stripe = (c + 1) % static_cast<uint64_t>(g.data_disks()) != 0;
          if (!same_stripe && layout != 2) continue;
          REQUIRE(raid5_compute_sector(g, (c + 1) * kRaid5Chunk).dd_idx ==
                  (raid5_compute_sector(g, c * kRaid5Chunk).dd_idx + 1) % disks);
        }
      }
    }
  }
}

TEST_CASE("raid5 layout parsing and validation", "[raid5]") {
  std::string err;
  const auto g = raid5_from_layout(2, 4, 1024, 1 << 20);
  REQUIRE(g);
  CHECK(g->algorithm == Raid5Algorithm::LeftSymmetric);
  CHECK(g->raid_disks == 4);
  CHECK(g->data_disks() == 3);
  CHECK(g->chunk_sectors == 1024);
  CHECK(g->dev_sectors == (1u << 20));
  CHECK(std::string(raid5_algorithm_name(Raid5Algorithm::LeftAsymmetric)) == "left-asymmetric");
  CHECK(std::string(raid5_algorithm_name(Raid5Algorithm::RightAsymmetric)) == "right-asymmetric");
  CHECK(std::string(raid5_algorithm_name(Raid5Algorithm::LeftSymmetric)) == "left-symmetric");
  CHECK(std::string(raid5_algorithm_name(Raid5Algorithm::RightSymmetric)) == "right-symmetric");

  struct Bad {
    uint32_t layout;
    int disks;
    uint32_t chunk;
    const char* says;
  };
  const Bad bad[] = {
      {4, 4, 1024, "only 0"},  // md's parity-first
      {5, 4, 1024, "only 0"},  // md's parity-last
      {2, 1, 1024, "at least 2 raid disks"},
      {2, 4, 0, "power of two"},
      {2, 4, 24, "power of two"},
      {2, 4, 4, "at least 8"},
  };
  for (const auto& b : bad) {
    INFO("layout " << b.layout << " disks " << b.disks << " chunk " << b.chunk);
    err.clear();
    err = rs::test::error_text(raid5_from_layout(b.layout, b.disks, b.chunk, 1 << 20));
    CHECK_FALSE(err.empty());
    CHECK_THAT(err, Catch::Contains(b.says));
  }
}
