// RAID10 address maths against md's semantics: hand-worked tables for the
// first chunks of near/far/offset geometries, then exhaustive properties
// over every chunk of small geometries.
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "../../common/result_helpers.hpp"
#include "layout/raid10.hpp"

using namespace rs::layout;

namespace {

constexpr uint32_t kChunk = 8;  // smallest chunk md accepts; keeps tables small

using Copy = std::pair<int, uint64_t>;  // (disk, device chunk)

Raid10Geometry make(uint32_t layout, int disks, uint64_t dev_chunks, uint32_t chunk = kChunk) {
  std::string err;
  auto g = raid10_from_layout(layout, disks, chunk, dev_chunks * chunk);
  INFO("layout " << std::hex << layout << std::dec << " disks " << disks << ": " << err);
  REQUIRE(g.ok());
  return *g;
}

// Maps array chunk `c` at in-chunk offset `off`, checks the offset carried
// over to every copy and returns (disk, device chunk) per copy in md's order.
std::vector<Copy> chunk_copies(const Raid10Geometry& g, uint64_t c, uint64_t off = 0) {
  std::vector<DevAddress> out(static_cast<size_t>(g.copies()));
  const int n = raid10_map(g, c * g.chunk_sectors + off, out.data());
  REQUIRE(n == g.copies());
  std::vector<Copy> r;
  for (const auto& a : out) {
    REQUIRE(a.sector % g.chunk_sectors == off);
    r.emplace_back(a.disk, a.sector / g.chunk_sectors);
  }
  return r;
}

struct Table {
  const char* name;
  uint32_t layout;
  int disks;
  uint64_t dev_chunks;                    // member size in chunks
  uint64_t array_chunks;                  // md's raid10_size, in chunks
  uint64_t stride_chunks;                 // md's geo->stride, in chunks
  std::vector<std::vector<Copy>> chunks;  // array chunk i -> copies in md order
};

// How the tables were worked out (md's __raid10_find_phys):
//  slot = chunk * near; stripe = slot / disks; disk = slot % disks. The n-th
//  near copy is slot+n (wrapping to disk 0 one stripe further down). Each
//  near copy's far copy f sits near*f disks to the right, f*stride sectors
//  down. far: stride = (used chunks / far) chunks; offset: stride = 1 chunk
//  and stripe s starts at device chunk s*far.
//  raid10_size = floor(dev_chunks / far) * disks / near chunks.
const std::vector<Table>& tables() {
  static const std::vector<Table> t = {
      // n2, 2 disks: plain mirror, chunk c on both disks at chunk c. 8*2/2 = 8.
      {"n2 x2", 0x102, 2, 8, 8, 8, {{{0, 0}, {1, 0}}, {{0, 1}, {1, 1}}, {{0, 2}, {1, 2}}, {{0, 3}, {1, 3}}}},
      // n2, 3 disks: slots 2c,2c+1 -> (slot%3, slot/3); 8*3/2 = 12.
      {"n2 x3",
       0x102,
       3,
       8,
       12,
       8,
       {{{0, 0}, {1, 0}}, {{2, 0}, {0, 1}}, {{1, 1}, {2, 1}}, {{0, 2}, {1, 2}}, {{2, 2}, {0, 3}}}},
      // n2, 3 disks, 7 chunks: floor(7*3/2) = 10 chunks; last chunk 9 on
      // slots 18,19 = stripe 6 disks 0,1 (disk 2 chunk 6 stays unused).
      {"n2 x3 odd size",
       0x102,
       3,
       7,
       10,
       7,
       {{{0, 0}, {1, 0}},
        {{2, 0}, {0, 1}},
        {{1, 1}, {2, 1}},
        {{0, 2}, {1, 2}},
        {{2, 2}, {0, 3}},
        {{1, 3}, {2, 3}},
        {{0, 4}, {1, 4}},
        {{2, 4}, {0, 5}},
        {{1, 5}, {2, 5}},
        {{0, 6}, {1, 6}}}},
      // n2, 4 disks: raid1+0, pairs (0,1) and (2,3). 8*4/2 = 16.
      {"n2 x4", 0x102, 4, 8, 16, 8, {{{0, 0}, {1, 0}}, {{2, 0}, {3, 0}}, {{0, 1}, {1, 1}}, {{2, 1}, {3, 1}}}},
      // n2, 5 disks: chunk 2 = slots 4,5 wraps from disk 4 to disk 0 one down.
      {"n2 x5",
       0x102,
       5,
       8,
       20,
       8,
       {{{0, 0}, {1, 0}},
        {{2, 0}, {3, 0}},
        {{4, 0}, {0, 1}},
        {{1, 1}, {2, 1}},
        {{3, 1}, {4, 1}},
        {{0, 2}, {1, 2}}}},
      // n3, 4 disks: slots 3c..3c+2. 8*4/3 = 10.
      {"n3 x4",
       0x103,
       4,
       8,
       10,
       8,
       {{{0, 0}, {1, 0}, {2, 0}},
        {{3, 0}, {0, 1}, {1, 1}},
        {{2, 1}, {3, 1}, {0, 2}},
        {{1, 2}, {2, 2}, {3, 2}}}},
      // n3, 5 disks. 8*5/3 = 13.
      {"n3 x5",
       0x103,
       5,
       8,
       13,
       8,
       {{{0, 0}, {1, 0}, {2, 0}},
        {{3, 0}, {4, 0}, {0, 1}},
        {{1, 1}, {2, 1}, {3, 1}},
        {{4, 1}, {0, 2}, {1, 2}}}},
      // f2, 2 disks, 8 chunks: stride 4; chunk c at (c%2, c/2), far copy on
      // the other disk at chunk c/2+4. 4*2 = 8.
      {"f2 x2", 0x201, 2, 8, 8, 4, {{{0, 0}, {1, 4}}, {{1, 0}, {0, 4}}, {{0, 1}, {1, 5}}, {{1, 1}, {0, 5}}}},
      // f2, 3 disks: far copy one disk right (mod 3). 4*3 = 12.
      {"f2 x3",
       0x201,
       3,
       8,
       12,
       4,
       {{{0, 0}, {1, 4}}, {{1, 0}, {2, 4}}, {{2, 0}, {0, 4}}, {{0, 1}, {1, 5}}, {{1, 1}, {2, 5}}}},
      // f2, 4 disks. 4*4 = 16.
      {"f2 x4",
       0x201,
       4,
       8,
       16,
       4,
       {{{0, 0}, {1, 4}}, {{1, 0}, {2, 4}}, {{2, 0}, {3, 4}}, {{3, 0}, {0, 4}}, {{0, 1}, {1, 5}}}},
      // f2, 5 disks, 7 chunks: floor(7/2) = 3 chunks per region, stride 3,
      // chunk 6 of each member unused. 3*5 = 15.
      {"f2 x5 odd size",
       0x201,
       5,
       7,
       15,
       3,
       {{{0, 0}, {1, 3}},
        {{1, 0}, {2, 3}},
        {{2, 0}, {3, 3}},
        {{3, 0}, {4, 3}},
        {{4, 0}, {0, 3}},
        {{0, 1}, {1, 4}}}},
      // f3, 4 disks, 9 chunks: stride 3, copies one disk right per region.
      {"f3 x4",
       0x301,
       4,
       9,
       12,
       3,
       {{{0, 0}, {1, 3}, {2, 6}},
        {{1, 0}, {2, 3}, {3, 6}},
        {{2, 0}, {3, 3}, {0, 6}},
        {{3, 0}, {0, 3}, {1, 6}},
        {{0, 1}, {1, 4}, {2, 7}}}},
      // o2, 2 disks: stripe s at device chunk 2s, its copy one disk right at
      // 2s+1. floor(8/2)*2 = 8.
      {"o2 x2",
       0x10201,
       2,
       8,
       8,
       1,
       {{{0, 0}, {1, 1}}, {{1, 0}, {0, 1}}, {{0, 2}, {1, 3}}, {{1, 2}, {0, 3}}}},
      // o2, 3 disks. 4*3 = 12.
      {"o2 x3",
       0x10201,
       3,
       8,
       12,
       1,
       {{{0, 0}, {1, 1}},
        {{1, 0}, {2, 1}},
        {{2, 0}, {0, 1}},
        {{0, 2}, {1, 3}},
        {{1, 2}, {2, 3}},
        {{2, 2}, {0, 3}}}},
      // o2, 4 disks. 4*4 = 16.
      {"o2 x4",
       0x10201,
       4,
       8,
       16,
       1,
       {{{0, 0}, {1, 1}}, {{1, 0}, {2, 1}}, {{2, 0}, {3, 1}}, {{3, 0}, {0, 1}}, {{0, 2}, {1, 3}}}},
      // o2, 5 disks. 4*5 = 20.
      {"o2 x5",
       0x10201,
       5,
       8,
       20,
       1,
       {{{0, 0}, {1, 1}},
        {{1, 0}, {2, 1}},
        {{2, 0}, {3, 1}},
        {{3, 0}, {4, 1}},
        {{4, 0}, {0, 1}},
        {{0, 2}, {1, 3}}}},
      // o3, 3 disks, 9 chunks: stripe s at 3s, copies at 3s+1 (disk+1),
      // 3s+2 (disk+2). 3*3 = 9.
      {"o3 x3",
       0x10301,
       3,
       9,
       9,
       1,
       {{{0, 0}, {1, 1}, {2, 2}},
        {{1, 0}, {2, 1}, {0, 2}},
        {{2, 0}, {0, 1}, {1, 2}},
        {{0, 3}, {1, 4}, {2, 5}}}},
      // n2f2, 4 disks: near pair (d, d+1), each with a far copy two disks
      // right in the second half (stride 4). 4*4/2 = 8.
      {"n2f2 x4",
       0x202,
       4,
       8,
       8,
       4,
       {{{0, 0}, {2, 4}, {1, 0}, {3, 4}},
        {{2, 0}, {0, 4}, {3, 0}, {1, 4}},
        {{0, 1}, {2, 5}, {1, 1}, {3, 5}}}},
      // n2f2, 5 disks: chunk 2 = slots 4,5; near copy 1 wraps to disk 0 one
      // chunk down and its far copy follows it. 4*5/2 = 10.
      {"n2f2 x5",
       0x202,
       5,
       8,
       10,
       4,
       {{{0, 0}, {2, 4}, {1, 0}, {3, 4}},
        {{2, 0}, {4, 4}, {3, 0}, {0, 4}},
        {{4, 0}, {1, 4}, {0, 1}, {2, 5}},
        {{1, 1}, {3, 5}, {2, 1}, {4, 5}}}},
      // n2o2, 4 disks: stripe s at device chunk 2s, far copies two disks
      // right at 2s+1. 4*4/2 = 8.
      {"n2o2 x4",
       0x10202,
       4,
       8,
       8,
       1,
       {{{0, 0}, {2, 1}, {1, 0}, {3, 1}},
        {{2, 0}, {0, 1}, {3, 0}, {1, 1}},
        {{0, 2}, {2, 3}, {1, 2}, {3, 3}}}},
  };
  return t;
}

}  // namespace

TEST_CASE("raid10 hand tables match md's mapping", "[raid10]") {
  for (const auto& t : tables()) {
    SECTION(t.name) {
      const auto g = make(t.layout, t.disks, t.dev_chunks);
      CHECK(raid10_array_sectors(g) == t.array_chunks * kChunk);
      CHECK(raid10_stride(g) == t.stride_chunks * kChunk);
      for (size_t c = 0; c < t.chunks.size(); ++c) {
        INFO("array chunk " << c);
        CHECK(chunk_copies(g, c) == t.chunks[c]);
        CHECK(chunk_copies(g, c, 5) == t.chunks[c]);
        for (const auto& [disk, dchunk] : t.chunks[c])
          CHECK(raid10_find_virt(g, disk, dchunk * kChunk + 3) == c * kChunk + 3);
      }
    }
  }
}

TEST_CASE("raid10 unused device chunks map past the array end", "[raid10]") {
  // n2 x3 x7 chunks: chunk 9 ends on disk 1 of stripe 6, so disk 2 chunk 6
  // holds nothing; md's find_virt gives (6*3+2)/2 = chunk 10 = array size.
  const auto n2 = make(0x102, 3, 7);
  CHECK(raid10_find_virt(n2, 2, 6 * kChunk) == 10 * kChunk);
  CHECK(raid10_used_dev_sectors(n2) == 7 * kChunk);

  // f2 x5 x7 chunks: regions are 3 chunks, so chunk 6 is past both.
  const auto f2 = make(0x201, 5, 7);
  CHECK(raid10_used_dev_sectors(f2) == 6 * kChunk);
  for (int d = 0; d < 5; ++d) CHECK(raid10_find_virt(f2, d, 6 * kChunk) >= raid10_array_sectors(f2));

  // A far array too small for one chunk per region: md's stride is 0.
  const auto tiny = make(0x201, 2, 1);
  CHECK(raid10_array_sectors(tiny) == 0);
  CHECK(raid10_stride(tiny) == 0);
  CHECK(raid10_find_virt(tiny, 0, 0) >= raid10_array_sectors(tiny));
}

TEST_CASE("raid10 maps 64-bit sectors without truncation", "[raid10]") {
  // n2 x4, 512 KiB chunks: array sector 2^40+17 is chunk 2^30, slot 2^31,
  // stripe 2^29 on disks 0 and 1.
  const auto g = make(0x102, 4, uint64_t{1} << 31, 1024);
  const uint64_t s = (uint64_t{1} << 40) + 17;
  DevAddress out[2];
  REQUIRE(raid10_map(g, s, out) == 2);
  CHECK(out[0] == DevAddress{0, (uint64_t{1} << 39) + 17});
  CHECK(out[1] == DevAddress{1, (uint64_t{1} << 39) + 17});
  CHECK(raid10_find_virt(g, 1, out[1].sector) == s);

  // f2 x2, 512 KiB chunks, 2^32 chunks per member: stride is 2^31 chunks.
  const auto f = make(0x201, 2, uint64_t{1} << 32, 1024);
  CHECK(raid10_stride(f) == (uint64_t{1} << 41));
  REQUIRE(raid10_map(f, s, out) == 2);
  CHECK(out[0] == DevAddress{0, (uint64_t{1} << 39) + 17});
  CHECK(out[1] == DevAddress{1, (uint64_t{1} << 39) + (uint64_t{1} << 41) + 17});
  CHECK(raid10_find_virt(f, 1, out[1].sector) == s);
}

TEST_CASE("raid10 properties over every chunk of small geometries", "[raid10]") {
  const uint32_t layouts[] = {0x102,   0x103,   0x104,   0x201, 0x301,  0x401,
                              0x10201, 0x10301, 0x10401, 0x202, 0x10202};
  int geometries = 0;
  for (int disks = 2; disks <= 7; ++disks) {
    for (uint32_t layout : layouts) {
      for (uint64_t dev_chunks : {1u, 2u, 3u, 5u, 7u, 8u, 9u, 16u}) {
        auto og = raid10_from_layout(layout, disks, kChunk, dev_chunks * kChunk);
        if (!og) continue;
        const auto& g = *og;
        ++geometries;
        INFO("layout 0x" << std::hex << layout << std::dec << " disks " << disks << " dev_chunks "
                         << dev_chunks);

        const uint64_t nc = static_cast<uint64_t>(g.near_copies), fc = static_cast<uint64_t>(g.far_copies);
        // md's raid10_size.
        const uint64_t array_chunks = (dev_chunks / fc) * static_cast<uint64_t>(disks) / nc;
        REQUIRE(raid10_array_sectors(g) == array_chunks * kChunk);
        const uint64_t used = raid10_used_dev_sectors(g);
        REQUIRE(used <= g.dev_sectors);
        REQUIRE(used % kChunk == 0);
        // Feeding md's stored size back in must not change the array.
        Raid10Geometry again = g;
        again.dev_sectors = used;
        REQUIRE(raid10_array_sectors(again) == raid10_array_sectors(g));

        std::set<Copy> seen;
        for (uint64_t c = 0; c < array_chunks; ++c) {
          for (uint64_t off : {uint64_t{0}, uint64_t{kChunk - 1}}) {
            const auto copies = chunk_copies(g, c, off);
            std::set<int> disks_used;
            for (const auto& [disk, dchunk] : copies) {
              REQUIRE(disk >= 0);
              REQUIRE(disk < disks);
              REQUIRE(dchunk * kChunk < used);
              disks_used.insert(disk);
              REQUIRE(raid10_find_virt(g, disk, dchunk * kChunk + off) == c * kChunk + off);
              if (off == 0) REQUIRE(seen.insert({disk, dchunk}).second);  // no device chunk used twice
            }
            REQUIRE(disks_used.size() == copies.size());  // every copy on its own disk
          }
        }
        REQUIRE(seen.size() == array_chunks * static_cast<uint64_t>(g.copies()));

        // Every device chunk the forward map does not use reads back as
        // "past the array"; used ones were checked above.
        for (int d = 0; d < disks; ++d) {
          for (uint64_t dchunk = 0; dchunk < dev_chunks + 2; ++dchunk) {
            if (seen.count({d, dchunk})) continue;
            INFO("disk " << d << " dev chunk " << dchunk);
            REQUIRE(raid10_find_virt(g, d, dchunk * kChunk) >= raid10_array_sectors(g));
          }
        }
      }
    }
  }
  CHECK(geometries > 100);
}

TEST_CASE("raid10 layout word parsing and validation", "[raid10]") {
  std::string err;

  SECTION("mdadm's words") {
    auto n2 = raid10_from_layout(0x102, 4, 1024, 1 << 20);
    REQUIRE(n2);
    CHECK(n2->near_copies == 2);
    CHECK(n2->far_copies == 1);
    CHECK_FALSE(n2->far_offset);
    CHECK(n2->chunk_sectors == 1024);
    CHECK(n2->dev_sectors == (1u << 20));
    auto f2 = raid10_from_layout(0x201, 4, 1024, 1 << 20);
    REQUIRE(f2);
    CHECK(f2->near_copies == 1);
    CHECK(f2->far_copies == 2);
    CHECK_FALSE(f2->far_offset);
    auto o2 = raid10_from_layout(0x10201, 4, 1024, 1 << 20);
    REQUIRE(o2);
    CHECK(o2->far_copies == 2);
    CHECK(o2->far_offset);
    for (uint32_t w : {0x102u, 0x201u, 0x10201u, 0x103u, 0x202u, 0x10202u})
      CHECK(raid10_layout_word(*raid10_from_layout(w, 4, 8, 64)) == w);
  }

  SECTION("rejections say why") {
    struct Bad {
      uint32_t layout;
      int disks;
      uint32_t chunk;
      const char* says;
    };
    const Bad bad[] = {
        {0x20201, 4, 1024, "far sets"},      // bit 17
        {0x40102, 4, 1024, "unknown bits"},  // bit 18
        {0x100, 4, 1024, "near copies"},     // n0
        {0x002, 4, 1024, "far copies"},      // f0
        {0x101, 4, 1024, "at least 2"},      // one copy = raid0
        {0x103, 2, 1024, "exceed"},          // 3 copies on 2 disks
        {0x202, 3, 1024, "exceed"},          // 4 copies on 3 disks
        {0x102, 1, 1024, "at least 2 raid disks"},
        {0x102, 4, 0, "power of two"},
        {0x102, 4, 96, "power of two"},
        {0x102, 4, 4, "at least 8"},
        {0x10202, 5, 1024, "multiple of near copies"},
    };
    for (const auto& b : bad) {
      INFO("layout 0x" << std::hex << b.layout << std::dec << " disks " << b.disks << " chunk " << b.chunk);
      err.clear();
      err = rs::test::error_text(raid10_from_layout(b.layout, b.disks, b.chunk, 1 << 20));
      CHECK_FALSE(err.empty());
      CHECK_THAT(err, Catch::Contains(b.says));
    }
    CHECK_FALSE(raid10_from_layout(0x101, 4, 1024, 1 << 20));  // null error is fine
  }
}

TEST_CASE("raid10 offset with wrapping near groups collides in md's map", "[raid10]") {
  // Why raid10_from_layout rejects n2o2 on 5 disks: md adds one chunk when a
  // near group wraps to disk 0, but offset stripes are two chunks tall.
  // Chunk 1 (slots 2,3) puts its second near copy's far copy on disk 0 chunk
  // 1; chunk 2 (slots 4,5) wraps its second near copy to disk 0 chunk 1 too.
  Raid10Geometry g;
  g.raid_disks = 5;
  g.near_copies = 2;
  g.far_copies = 2;
  g.far_offset = true;
  g.chunk_sectors = kChunk;
  g.dev_sectors = 8 * kChunk;
  const auto c1 = chunk_copies(g, 1);
  const auto c2 = chunk_copies(g, 2);
  CHECK(c1[3] == Copy{0, 1});
  CHECK(c2[2] == Copy{0, 1});
}
