// Data and parity land where md puts them. The tables are md's layouts
// worked out by hand (as mdadm's man page draws them): for each stripe, the
// array chunk each member holds, P for parity. They are not computed by
// the code under test. After a pattern is written through the array, the
// member files are read behind its back.
#include <cstring>

#include "raid5_test_util.hpp"

using namespace rs;
using namespace rs::raid5::test;

namespace {

constexpr int P = -1;

// kTables[layout][disks - 3][stripe][member]: one full rotation of stripes.
const std::vector<std::vector<int>> kTables[4][3] = {
    // left-asymmetric: parity from the last member leftwards; data left to right.
    {{{0, 1, P}, {2, P, 3}, {P, 4, 5}},
     {{0, 1, 2, P}, {3, 4, P, 5}, {6, P, 7, 8}, {P, 9, 10, 11}},
     {{0, 1, 2, 3, P}, {4, 5, 6, P, 7}, {8, 9, P, 10, 11}, {12, P, 13, 14, 15}, {P, 16, 17, 18, 19}}},
    // right-asymmetric: parity from member 0 rightwards; data left to right.
    {{{P, 0, 1}, {2, P, 3}, {4, 5, P}},
     {{P, 0, 1, 2}, {3, P, 4, 5}, {6, 7, P, 8}, {9, 10, 11, P}},
     {{P, 0, 1, 2, 3}, {4, P, 5, 6, 7}, {8, 9, P, 10, 11}, {12, 13, 14, P, 15}, {16, 17, 18, 19, P}}},
    // left-symmetric (mdadm's default): data starts after the parity and wraps.
    {{{0, 1, P}, {3, P, 2}, {P, 4, 5}},
     {{0, 1, 2, P}, {4, 5, P, 3}, {8, P, 6, 7}, {P, 9, 10, 11}},
     {{0, 1, 2, 3, P}, {5, 6, 7, P, 4}, {10, 11, P, 8, 9}, {15, P, 12, 13, 14}, {P, 16, 17, 18, 19}}},
    // right-symmetric.
    {{{P, 0, 1}, {3, P, 2}, {4, 5, P}},
     {{P, 0, 1, 2}, {5, P, 3, 4}, {7, 8, P, 6}, {9, 10, 11, P}},
     {{P, 0, 1, 2, 3}, {7, P, 4, 5, 6}, {10, 11, P, 8, 9}, {13, 14, 15, P, 12}, {16, 17, 18, 19, P}}},
};

}  // namespace

TEST_CASE("every data chunk and parity block is where md's raid5_compute_sector puts it", "[raid5][placement]") {
  const Geometry g = GENERATE(from_range(all_geometries()));
  INFO(g.disks << " members, " << kLayoutNames[g.layout]);
  TempDir dir;
  auto paths = member_paths(dir, g.disks);
  auto arr = create_raid5(g, paths);
  REQUIRE(arr->personality().layout_name() == kLayoutNames[g.layout]);
  const int dd = g.disks - 1;
  const uint64_t chunk = kChunkBytes;
  // Two rotations of stripes; every 8-byte word of array chunk c holds c * 1000 + word.
  const uint64_t stripes = 2 * uint64_t(g.disks), chunks = stripes * uint64_t(dd);
  std::vector<uint8_t> pattern(chunks * chunk);
  for (uint64_t c = 0; c < chunks; ++c)
    for (uint64_t w = 0; w < chunk / 8; ++w) {
      const uint64_t v = c * 1000 + w;
      std::memcpy(pattern.data() + c * chunk + w * 8, &v, 8);
    }
  require_ok(array_write(*arr, 0, pattern.data(), pattern.size()));
  const uint64_t data_offset = arr->shape().data_offset * 512;
  arr.reset();

  const auto& table = kTables[g.layout][g.disks - 3];
  for (uint64_t s = 0; s < stripes; ++s) {
    const auto& row = table[s % uint64_t(g.disks)];
    // The second rotation holds the chunks one rotation (disks x dd) further on.
    const uint64_t shift = (s / uint64_t(g.disks)) * uint64_t(g.disks) * uint64_t(dd);
    std::vector<std::vector<uint8_t>> blocks;
    int parity_member = -1;
    for (int m = 0; m < g.disks; ++m) {
      blocks.push_back(read_file_at(paths[size_t(m)], data_offset + s * chunk, chunk));
      if (row[size_t(m)] == P) {
        parity_member = m;
        continue;
      }
      const uint64_t c = uint64_t(row[size_t(m)]) + shift;
      INFO("stripe " << s << " member " << m << " should hold array chunk " << c);
      CHECK(std::memcmp(blocks.back().data(), pattern.data() + c * chunk, chunk) == 0);
    }
    REQUIRE(parity_member >= 0);
    // Parity: the XOR of the stripe's data blocks, byte by byte.
    std::vector<uint8_t> x(chunk, 0);
    for (int m = 0; m < g.disks; ++m)
      if (m != parity_member)
        for (uint64_t i = 0; i < chunk; ++i) x[i] ^= blocks[size_t(m)][i];
    INFO("stripe " << s << " parity on member " << parity_member);
    CHECK(first_diff(blocks[size_t(parity_member)], x) == -1);
  }
}
