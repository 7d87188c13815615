// RAID6 address maths against an independent model of md's rules
// (raid5.c raid5_compute_sector / compute_blocknr at level 6, raid6_d0 and
// raid6_idx_to_slot for Q's order), every supported layout, 4 to 8 members;
// hand tables first so the model itself is pinned to md's pictures.
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "layout/layout_names.hpp"
#include "layout/raid6.hpp"

using namespace rs::layout;

namespace {

constexpr uint32_t kRaid6Chunk = 8;
const std::vector<uint32_t> kRaid6Layouts = {0, 1, 2, 3, 16, 17, 18, 19};

Raid6Geometry make_raid6(uint32_t layout, int disks, uint64_t dev_sectors = 64 * kRaid6Chunk) {
  auto g = raid6_from_layout(layout, disks, kRaid6Chunk, dev_sectors);
  INFO((g ? std::string() : g.error().message));
  REQUIRE(g.ok());
  return *g;
}

// ---- the model, written from md's switch on the algorithm at level 6 ----
struct ModelStripe {
  int pd = -1, qd = -1;
  std::vector<int> data;  // member of data chunk i of the stripe
  std::vector<int> slot;  // per member: its place in Q's sum, -1 for P and Q
};

// Where md puts data chunk i of stripe s: case by case as raid5_compute_sector.
int model_place(uint32_t algo, int n, uint64_t s, int i, int* pd, int* qd) {
  const int data_disks = n - 2;
  const int rot = int(s % uint64_t(n)), rot6 = int(s % uint64_t(n - 1));
  switch (algo) {
    case 0:  // left-asymmetric
    case 1:  // right-asymmetric
      *pd = algo == 0 ? n - 1 - rot : rot;
      *qd = *pd + 1;
      if (*pd == n - 1) {  // Q D D D P
        *qd = 0;
        return i + 1;
      }
      return i >= *pd ? i + 2 : i;  // D D P Q D
    case 2:                         // left-symmetric
    case 3:                         // right-symmetric
      *pd = algo == 2 ? n - 1 - rot : rot;
      *qd = (*pd + 1) % n;
      return (*pd + 2 + i) % n;
    case 16:  // left-asymmetric-6
    case 17:  // right-asymmetric-6
      *pd = algo == 16 ? data_disks - rot6 : rot6;
      *qd = n - 1;
      return i >= *pd ? i + 1 : i;
    case 18:  // left-symmetric-6
    case 19:  // right-symmetric-6
      *pd = algo == 18 ? data_disks - rot6 : rot6;
      *qd = n - 1;
      return (*pd + 1 + i) % (n - 1);
  }
  FAIL("model has no layout " << algo);
  return -1;
}

// md's syndrome order: start just after Q (member 0 when Q is last), walk
// every member once wrapping around, count the data members met.
std::vector<int> model_slots(int n, int pd, int qd) {
  std::vector<int> slot(size_t(n), -1);
  const int d0 = qd == n - 1 ? 0 : qd + 1;
  int count = 0, i = d0;
  do {
    if (i != pd && i != qd) slot[size_t(i)] = count++;
    i = (i + 1) % n;
  } while (i != d0);
  return slot;
}

ModelStripe model_stripe(uint32_t algo, int n, uint64_t s) {
  ModelStripe m;
  for (int i = 0; i < n - 2; ++i) m.data.push_back(model_place(algo, n, s, i, &m.pd, &m.qd));
  m.slot = model_slots(n, m.pd, m.qd);
  return m;
}

}  // namespace

TEST_CASE("raid6 model: md's pictures worked by hand") {
  // left-symmetric x4, md's default: Q 0 1 P / 2 3 P Q / 5 P Q 4 / P Q 6 7.
  const std::vector<std::vector<int>> ls4_data = {{1, 2}, {0, 1}, {3, 0}, {2, 3}};
  const std::vector<std::pair<int, int>> ls4_pq = {{3, 0}, {2, 3}, {1, 2}, {0, 1}};
  for (uint64_t s = 0; s < 4; ++s) {
    const ModelStripe m = model_stripe(2, 4, s);
    CHECK(m.data == ls4_data[s]);
    CHECK(std::make_pair(m.pd, m.qd) == ls4_pq[s]);
  }
  // left-asymmetric x5, stripe 2: 0 1 P Q 2; Q's walk starts on member 4,
  // so chunk 2 is Q's first term and chunks 0, 1 the next two.
  const ModelStripe la = model_stripe(0, 5, 2);
  CHECK(la.data == std::vector<int>{0, 1, 4});
  CHECK(la.slot == std::vector<int>{1, 2, -1, -1, 0});
  // left-symmetric-6 x5, stripe 1: RAID5 left-symmetric on 4 members
  // (1 2 P 0) then Q: data order 3 0 1, Q order 0 1 3.
  const ModelStripe ls6 = model_stripe(18, 5, 1);
  CHECK(ls6.pd == 2);
  CHECK(ls6.qd == 4);
  CHECK(ls6.data == std::vector<int>{3, 0, 1});
  CHECK(ls6.slot == std::vector<int>{0, 1, -1, 2, -1});
}

TEST_CASE("raid6 placement matches md's rules for every layout and 4 to 8 members") {
  for (uint32_t algo : kRaid6Layouts) {
    for (int n = 4; n <= 8; ++n) {
      const Raid6Geometry g = make_raid6(algo, n);
      const int dd = n - 2;
      for (uint64_t s = 0; s < uint64_t(3 * n); ++s) {
        INFO(raid6_algorithm_name(algo) << " x" << n << " stripe " << s);
        const ModelStripe m = model_stripe(algo, n, s);
        const Raid6ParityDisks pq = raid6_parity_disks(g, s);
        REQUIRE(pq.pd_idx == m.pd);
        REQUIRE(pq.qd_idx == m.qd);
        std::set<int> used = {m.pd, m.qd};
        for (int i = 0; i < dd; ++i) {
          const uint64_t offset = uint64_t(i) % kRaid6Chunk;  // any sector within the chunk
          const uint64_t sector = (s * uint64_t(dd) + uint64_t(i)) * kRaid6Chunk + offset;
          const Raid6Address a = raid6_compute_sector(g, sector);
          REQUIRE(a.dd_idx == m.data[size_t(i)]);
          REQUIRE(a.pd_idx == m.pd);
          REQUIRE(a.qd_idx == m.qd);
          REQUIRE(a.sector == s * kRaid6Chunk + offset);
          REQUIRE(raid6_compute_blocknr(g, a.dd_idx, a.sector) == std::optional<uint64_t>(sector));
          REQUIRE(raid6_data_index(g, s, a.dd_idx) == i);
          used.insert(a.dd_idx);
        }
        REQUIRE(used.size() == size_t(n));  // every member holds one chunk of the stripe
        for (int disk = 0; disk < n; ++disk) REQUIRE(raid6_syndrome_slot(g, s, disk) == m.slot[size_t(disk)]);
        REQUIRE_FALSE(raid6_compute_blocknr(g, m.pd, s * kRaid6Chunk).has_value());
        REQUIRE_FALSE(raid6_compute_blocknr(g, m.qd, s * kRaid6Chunk + 1).has_value());
      }
    }
  }
}

TEST_CASE("raid6 array size is whole chunks times members minus two") {
  const Raid6Geometry g = make_raid6(2, 6, 10 * kRaid6Chunk + 3);  // partial last chunk unused
  CHECK(raid6_array_sectors(g) == 10 * kRaid6Chunk * 4);
}

TEST_CASE("raid6 shapes md would refuse are refused with the reason") {
  auto refused = [](uint32_t layout, int disks, uint32_t chunk) {
    auto g = raid6_from_layout(layout, disks, chunk, 1024);
    REQUIRE_FALSE(g.ok());
    CHECK(g.error().code == rs::Errc::invalid_argument);
    return g.error().message;
  };
  for (uint32_t layout : {4u, 5u, 8u, 9u, 10u, 20u, 21u})
    CHECK(refused(layout, 5, kRaid6Chunk).find("raid6 layout " + std::to_string(layout)) !=
          std::string::npos);
  CHECK(refused(2, 3, kRaid6Chunk).find("at least 4") != std::string::npos);
  CHECK(refused(2, 4, 12).find("power of two") != std::string::npos);
  CHECK(refused(2, 4, 4).find("power of two") != std::string::npos);
}

TEST_CASE("raid6 layouts: mdadm's r6layout names to md's algorithm numbers and back") {
  const std::vector<std::pair<const char*, int>> names = {
      {"left-asymmetric", 0},
      {"right-asymmetric", 1},
      {"left-symmetric", 2},
      {"right-symmetric", 3},
      {"default", 2},
      {"la", 0},
      {"ra", 1},
      {"ls", 2},
      {"rs", 3},
      {"left-asymmetric-6", 16},
      {"right-asymmetric-6", 17},
      {"left-symmetric-6", 18},
      {"right-symmetric-6", 19},
  };
  for (const auto& [name, algo] : names) {
    INFO(name);
    auto r = parse_raid6_layout(name);
    REQUIRE(r.ok());
    CHECK(*r == algo);
  }
  for (uint32_t algo : kRaid6Layouts) {
    const std::string name = raid6_layout_name(int(algo));
    INFO(algo);
    REQUIRE_FALSE(name.empty());
    CHECK(parse_raid6_layout(name).value() == int(algo));
  }
  CHECK(raid6_layout_name(16) == "left-asymmetric-6");
  CHECK(raid6_layout_name(3) == "right-symmetric");
  for (int unknown : {-1, 4, 5, 8, 10, 20, 99}) CHECK(raid6_layout_name(unknown).empty());
}

TEST_CASE("raid6 layouts mdadm knows but RaidScope does not lay out are unsupported, typos unknown") {
  for (const char* name : {"parity-first", "parity-last", "ddf-zero-restart", "ddf-N-restart",
                           "ddf-N-continue", "parity-first-6"}) {
    INFO(name);
    auto r = parse_raid6_layout(name);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == rs::Errc::unsupported);
  }
  for (const char* name : {"", "left-symmetric-7", "Left-Symmetric", "ls6", "left_symmetric"}) {
    INFO(name);
    auto r = parse_raid6_layout(name);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == rs::Errc::invalid_argument);
    CHECK(r.error().message.find("unknown raid6 layout") != std::string::npos);
  }
}
