// btrfs-qlen: seed 003's guess_optimal, generalised to N mirrors.
#include <catch2/catch.hpp>

#include "mirrors.hpp"

using namespace rs::balance;
using namespace rs::balance::test;

namespace {
constexpr PolicyId kQ = PolicyId::BtrfsQlen;

Choice q(std::vector<MemberSnapshot> ms, uint32_t job = 0, const Tunables& t = {}) {
  PolicyState state;
  return pick(kQ, read_at(0, 8, job), std::move(ms), state, t);
}
}  // namespace

TEST_CASE("btrfs-qlen: pid guess when queues are equal", "[btrfs-qlen]") {
  for (uint32_t job = 0; job < 6; ++job)
    CHECK(q({hdd(0), hdd(1), hdd(2)}, job).index == static_cast<int>(job % 3));
  const Choice c = q({ssd(0), ssd(1)}, 1);
  CHECK(c.index == 1);
  CHECK(c.sectors == 8);
}

TEST_CASE("btrfs-qlen: rotational queues are rounded down to 8", "[btrfs-qlen]") {
  SECTION("7 vs 0 is 0 vs 0 after rounding: stays") {
    CHECK(q({hdd(0, 7), hdd(1, 0)}).index == 0);
  }
  SECTION("9 vs 0 is 8 vs 0: switches") {
    CHECK(q({hdd(0, 9), hdd(1, 0)}).index == 1);
  }
  SECTION("8 vs 7: switches to the strictly shorter rounded queue") {
    CHECK(q({hdd(0, 8), hdd(1, 7)}).index == 1);
  }
  SECTION("15 vs 8: equal after rounding: stays") {
    CHECK(q({hdd(0, 15), hdd(1, 8)}).index == 0);
  }
  SECTION("2 vs 0 stays on spinning disks") {
    CHECK(q({hdd(0, 2), hdd(1, 0)}).index == 0);
  }
  SECTION("the factor is the rot_round_down tunable") {
    Tunables t;
    t.rot_round_down = 1;
    CHECK(q({hdd(0, 1), hdd(1, 0)}, 0, t).index == 1);
  }
}

TEST_CASE("btrfs-qlen: all non-rotational arrays round down to 2", "[btrfs-qlen]") {
  SECTION("1 vs 0: stays") {
    CHECK(q({ssd(0, 1), ssd(1, 0)}).index == 0);
  }
  SECTION("2 vs 0: switches") {
    CHECK(q({ssd(0, 2), ssd(1, 0)}).index == 1);
  }
  SECTION("the factor is the nonrot_round_down tunable") {
    Tunables t;
    t.nonrot_round_down = 4;
    CHECK(q({ssd(0, 2), ssd(1, 0)}, 0, t).index == 0);
    CHECK(q({ssd(0, 4), ssd(1, 0)}, 0, t).index == 1);
  }
}

TEST_CASE("btrfs-qlen: a mixed array prefers the SSD", "[btrfs-qlen]") {
  SECTION("the pid guess is the HDD, the SSD is taken") {
    CHECK(q({hdd(0), ssd(1)}, 0).index == 1);
    CHECK(q({ssd(0), hdd(1)}, 1).index == 0);
  }
  SECTION("mixed arrays round by 8: SSD 7 vs HDD 0 stays on the SSD") {
    CHECK(q({hdd(0, 0), ssd(1, 7)}, 0).index == 1);
  }
  SECTION("SSD 8 vs HDD 0: the HDD's queue is shorter") {
    CHECK(q({hdd(0, 0), ssd(1, 8)}, 0).index == 0);
  }
  SECTION("with several SSDs the pid guess still spreads jobs over them") {
    const std::vector<MemberSnapshot> ms{ssd(0), hdd(1), ssd(2), hdd(3)};
    CHECK(q(ms, 0).index == 0);
    CHECK(q(ms, 1).index == 2);
    CHECK(q(ms, 2).index == 2);
    CHECK(q(ms, 3).index == 0);
  }
}

TEST_CASE("btrfs-qlen: N mirrors: the shortest strictly shorter queue", "[btrfs-qlen]") {
  // job 5 -> guess 1 (queue 16); 2 and 0 are both shorter, 2 the shortest.
  CHECK(q({hdd(0, 8), hdd(1, 16), hdd(2, 3), hdd(3, 17)}, 5).index == 2);
  // ties between shorter queues: the first after the guess
  CHECK(q({hdd(0, 0), hdd(1, 16), hdd(2, 0)}, 1).index == 2);
}

TEST_CASE("btrfs-qlen: unreadable mirrors are skipped", "[btrfs-qlen]") {
  MemberSnapshot dead_idle = hdd(1, 0);
  dead_idle.readable = false;
  SECTION("an idle but unreadable mirror is not taken") {
    CHECK(q({hdd(0, 30), dead_idle}, 0).index == 0);
  }
  SECTION("an unreadable pid guess moves to the next readable") {
    CHECK(q({hdd(0, 0), dead_idle, hdd(2, 0)}, 1).index == 2);
  }
  SECTION("an unreadable SSD is not preferred") {
    MemberSnapshot dead_ssd = ssd(2, 0);
    dead_ssd.readable = false;
    CHECK(q({hdd(0, 0), hdd(1, 0), dead_ssd}, 0).index == 0);
  }
  SECTION("an unreadable HDD leaves an all-SSD array (round by 2)") {
    CHECK(q({ssd(0, 2), ssd(1, 0), dead_idle}, 0).index == 1);
  }
  SECTION("none readable") {
    MemberSnapshot dead0 = ssd(0);
    dead0.readable = false;
    const Choice c = q({dead0, dead_idle}, 0);
    CHECK(c.index == -1);
    CHECK(c.sectors == 0);
  }
}
