// btrfs-pid: pid % mirrors, with find_live_mirror's fallback.
#include <catch2/catch.hpp>

#include "mirrors.hpp"

using namespace rs::balance;
using namespace rs::balance::test;

namespace {
constexpr PolicyId kPid = PolicyId::BtrfsPid;
}

TEST_CASE("btrfs-pid: job id modulo the number of mirrors", "[btrfs-pid]") {
  // Load, heads, sequential runs and bad blocks play no part.
  MemberSnapshot busy = hdd(1, 50);
  busy.bad_sectors_from = 1;
  MemberSnapshot seq = ssd(0);
  seq.next_seq_sect = 0;
  const std::vector<MemberSnapshot> ms{seq, busy, ssd(2)};
  for (uint32_t job = 0; job < 9; ++job) {
    const Choice c = pick(kPid, read_at(0, 16, job), ms);
    CHECK(c.index == static_cast<int>(job % 3));
    CHECK(c.sectors == 16);
  }
  CHECK(pick(kPid, read_at(0, 8, 4'000'000'001u), ms).index == 2);  // 4000000001 % 3
}

TEST_CASE("btrfs-pid: an unreadable preferred mirror falls back to the first readable", "[btrfs-pid]") {
  MemberSnapshot dead = ssd(0);
  dead.readable = false;
  SECTION("job 2 prefers mirror 2") {
    std::vector<MemberSnapshot> ms{ssd(0), ssd(1), dead};
    CHECK(pick(kPid, read_at(0, 8, 2), ms).index == 0);
    CHECK(pick(kPid, read_at(0, 8, 1), ms).index == 1);  // readable preference is kept
  }
  SECTION("job 0 prefers mirror 0") {
    CHECK(pick(kPid, read_at(0, 8, 0), {dead, ssd(1), ssd(2)}).index == 1);
  }
  SECTION("none readable") {
    const Choice c = pick(kPid, read_at(0, 8, 0), {dead, dead});
    CHECK(c.index == -1);
    CHECK(c.sectors == 0);
  }
}
