// btrfs-rr: kernel 6.14 round robin with rr_min_contig_read.
#include <catch2/catch.hpp>

#include "mirrors.hpp"

using namespace rs::balance;
using namespace rs::balance::test;

namespace {
constexpr PolicyId kRr = PolicyId::BtrfsRr;

std::vector<int> picks(PolicyState& state, const std::vector<MemberSnapshot>& ms, const Tunables& t,
                       uint32_t sectors, int calls) {
  std::vector<int> out;
  for (int i = 0; i < calls; ++i) {
    const Choice c = pick(kRr, read_at(uint64_t{sectors} * i, sectors, 7), ms, state, t);
    REQUIRE(c.sectors == (c.index >= 0 ? sectors : 0));
    out.push_back(c.index);
  }
  return out;
}
}  // namespace

TEST_CASE("btrfs-rr: moves on after min_contig_read bytes, in devid order", "[btrfs-rr]") {
  PolicyState state;
  Tunables t;  // 256 KiB: 64 blocks per mirror
  REQUIRE(t.min_contig_read == 256 * 1024);
  // Mirror 0 has devid 5, mirror 1 devid 2: devid order is mirror 1, then 0.
  const std::vector<MemberSnapshot> ms{ssd(5), ssd(2)};
  // 64 KiB reads (16 blocks): four per mirror.
  CHECK(picks(state, ms, t, 128, 10) == std::vector<int>{1, 1, 1, 1, 0, 0, 0, 0, 1, 1});
  CHECK(state.total_read_blocks.load() == 160);
  CHECK(state.total_read_requests.load() == 0);
}

TEST_CASE("btrfs-rr: a request is counted after its mirror is chosen", "[btrfs-rr]") {
  PolicyState state;
  Tunables t;
  t.min_contig_read = 8192;  // 2 blocks
  const std::vector<MemberSnapshot> ms{ssd(0), ssd(1)};
  // One 16 KiB read (4 blocks) still goes to the first mirror; the next
  // finds 4 blocks counted: cycle 2 -> mirror 0; then 8 -> cycle 4 ...
  CHECK(picks(state, ms, t, 32, 3) == std::vector<int>{0, 0, 0});
  // 4 KiB reads from 12 blocks: cycles 6, 6, 7, 7, 8 -> 0, 0, 1, 1, 0
  CHECK(picks(state, ms, t, 8, 5) == std::vector<int>{0, 0, 1, 1, 0});
  CHECK(state.total_read_blocks.load() == 17);
}

TEST_CASE("btrfs-rr: min_contig_read 0 moves on every request", "[btrfs-rr]") {
  PolicyState state;
  Tunables t;
  t.min_contig_read = 0;
  const std::vector<MemberSnapshot> ms{hdd(2), hdd(0), hdd(1)};  // devid order: 1, 2, 0
  CHECK(picks(state, ms, t, 2048, 6) == std::vector<int>{1, 2, 0, 1, 2, 0});
  CHECK(state.total_read_requests.load() == 6);
  CHECK(state.total_read_blocks.load() == 6 * 256);  // blocks still counted
  SECTION("below one block behaves the same") {
    t.min_contig_read = 1000;
    CHECK(picks(state, ms, t, 8, 2) == std::vector<int>{1, 2});
  }
}

TEST_CASE("btrfs-rr: a request under 4 KiB counts as one block", "[btrfs-rr]") {
  PolicyState state;
  Tunables t;
  t.min_contig_read = 4096;
  CHECK(picks(state, {ssd(0), ssd(1)}, t, 1, 4) == std::vector<int>{0, 1, 0, 1});
  CHECK(state.total_read_blocks.load() == 4);
}

TEST_CASE("btrfs-rr: an unreadable mirror's turn goes to the next readable in devid order", "[btrfs-rr]") {
  PolicyState state;
  Tunables t;
  t.min_contig_read = 0;
  MemberSnapshot dead = ssd(1);
  dead.readable = false;
  CHECK(picks(state, {ssd(0), dead, ssd(2)}, t, 8, 6) == std::vector<int>{0, 2, 2, 0, 2, 2});
  SECTION("none readable: no mirror, nothing counted") {
    PolicyState empty;
    MemberSnapshot dead0 = ssd(0);
    dead0.readable = false;
    CHECK(picks(empty, {dead0, dead}, t, 8, 2) == std::vector<int>{-1, -1});
    CHECK(empty.total_read_blocks.load() == 0);
    CHECK(empty.total_read_requests.load() == 0);
  }
}
