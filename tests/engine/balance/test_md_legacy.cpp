// md-legacy: mainline md read_balance on hand-made snapshots.
#include <catch2/catch.hpp>

#include "mirrors.hpp"

using namespace rs::balance;
using namespace rs::balance::test;

namespace {
constexpr PolicyId kMd = PolicyId::MdLegacy;
}

TEST_CASE("md-legacy: a sequential read stays on its mirror", "[md-legacy]") {
  const ReadRequest req = read_at(1000);
  SECTION("next_seq_sect matches, although the mirror is busy and another is idle") {
    MemberSnapshot busy = hdd(1, 3);
    busy.next_seq_sect = 1000;
    busy.seq_start = 900;
    const Choice c = pick(kMd, req, {hdd(0, 0), busy});
    CHECK(c.index == 1);
    CHECK(c.sectors == 8);
  }
  SECTION("head_position matches") {
    MemberSnapshot head = ssd(1, 5);
    head.head_position = 1000;
    CHECK(pick(kMd, req, {ssd(0, 0), head}).index == 1);
  }
  SECTION("the array's own update_read_sectors keeps a stream on one mirror") {
    std::vector<MemberSnapshot> ms{hdd(0), hdd(1)};
    PolicyState state;
    for (uint64_t s = 0; s < 64; s += 8) {
      const ReadRequest r = read_at(s);
      for (auto& m : ms) m.sector = s;
      const Choice c = choose(kMd, r, ms, state, {});
      REQUIRE(c.index == 0);
      issue(ms[c.index], s, c.sectors);
    }
    CHECK(ms[0].nr_pending == 8);
    CHECK(ms[1].nr_pending == 0);
  }
}

TEST_CASE("md-legacy: should_choose_next moves a long run off a busy SSD", "[md-legacy]") {
  // Mirror 0 has streamed 256 sectors from 0; io_opt is 128 sectors.
  MemberSnapshot seq = ssd(0, 1);
  seq.seq_start = 0;
  seq.next_seq_sect = 256;
  seq.io_opt_sectors = 128;
  const ReadRequest req = read_at(256);

  SECTION("an idle mirror takes over") {
    CHECK(pick(kMd, req, {seq, ssd(1, 0)}).index == 1);
  }
  SECTION("no idle mirror: the sequential one stays, even with another less busy") {
    CHECK(pick(kMd, req, {seq, ssd(1, 1)}).index == 0);
  }
  SECTION("io_opt 0: never switches") {
    seq.io_opt_sectors = 0;
    CHECK(pick(kMd, req, {seq, ssd(1, 0)}).index == 0);
  }
  SECTION("run shorter than io_opt: stays") {
    seq.seq_start = 200;
    CHECK(pick(kMd, req, {seq, ssd(1, 0)}).index == 0);
  }
  SECTION("no run recorded (seq_start = MaxSector): stays") {
    seq.seq_start = kMaxSector;
    CHECK(pick(kMd, req, {seq, ssd(1, 0)}).index == 0);
  }
  SECTION("a rotational sequential mirror never switches") {
    seq.rotational = true;
    CHECK(pick(kMd, req, {seq, ssd(1, 0)}).index == 0);
  }
}

TEST_CASE("md-legacy: a sequential mirror with pending I/O still wins (no seed 000)", "[md-legacy]") {
  MemberSnapshot seq = ssd(0, 4);
  seq.next_seq_sect = 64;
  CHECK(pick(kMd, read_at(64), {seq, ssd(1, 0)}).index == 0);
}

TEST_CASE("md-legacy: equal pending keeps the first mirror", "[md-legacy]") {
  PolicyState state;
  for (int i = 0; i < 5; ++i) {
    CHECK(pick(kMd, read_at(10000 + 1000 * i), {ssd(0, 2), ssd(1, 2), ssd(2, 2)}, state).index == 0);
    CHECK(pick(kMd, read_at(10000 + 1000 * i), {ssd(0, 3), ssd(1, 2), ssd(2, 2)}, state).index == 1);
  }
  CHECK(state.read_rr.load() == -1);  // md-legacy never rotates
}

TEST_CASE("md-legacy: rotational arrays pick the closest head unless a mirror is idle", "[md-legacy]") {
  const ReadRequest req = read_at(1'000'000);
  MemberSnapshot far = hdd(0);
  far.head_position = 0;
  MemberSnapshot near = hdd(1);
  near.head_position = 999'000;

  SECTION("both busy: closest head, although it has more pending I/O") {
    far.nr_pending = 1;
    near.nr_pending = 2;
    CHECK(pick(kMd, req, {far, near}).index == 1);
  }
  SECTION("distance counts both ways") {
    far.nr_pending = near.nr_pending = 1;
    far.head_position = 1'000'500;  // 500 past the request beats 1000 before it
    CHECK(pick(kMd, req, {far, near}).index == 0);
  }
  SECTION("an idle mirror wins over the closest head") {
    far.nr_pending = 0;
    near.nr_pending = 2;
    CHECK(pick(kMd, req, {far, near}).index == 0);
  }
  SECTION("one non-rotational member: least pending even if it spins and is far") {
    far.nr_pending = 1;
    near.nr_pending = 2;
    MemberSnapshot fast = ssd(2, 3);
    CHECK(pick(kMd, req, {far, near, fast}).index == 0);
  }
  SECTION("an unreadable SSD does not make the array non-rotational") {
    far.nr_pending = 1;
    near.nr_pending = 2;
    MemberSnapshot gone = ssd(2, 0);
    gone.readable = false;
    CHECK(pick(kMd, req, {far, near, gone}).index == 1);
  }
}

TEST_CASE("md-legacy: unreadable mirrors are never chosen", "[md-legacy]") {
  MemberSnapshot dead = ssd(0, 0);
  dead.readable = false;
  dead.next_seq_sect = 8;  // would be a sequential hit
  SECTION("skipped") {
    const Choice c = pick(kMd, read_at(8), {dead, ssd(1, 9)});
    CHECK(c.index == 1);
    CHECK(c.sectors == 8);
  }
  SECTION("none readable") {
    MemberSnapshot dead2 = hdd(1);
    dead2.readable = false;
    const Choice c = pick(kMd, read_at(8), {dead, dead2});
    CHECK(c.index == -1);
    CHECK(c.sectors == 0);
  }
}

TEST_CASE("md-legacy: write-mostly members only serve when nothing else can", "[md-legacy]") {
  MemberSnapshot wm = ssd(0, 0);
  wm.write_mostly = true;
  wm.next_seq_sect = 64;  // idle and sequential: would win otherwise
  const ReadRequest req = read_at(64);

  SECTION("a busy normal mirror beats an idle write-mostly one") {
    CHECK(pick(kMd, req, {wm, hdd(1, 7)}).index == 1);
  }
  SECTION("a normal mirror with a bad block in range is split before using write-mostly") {
    MemberSnapshot bb = hdd(1);
    bb.bad_sectors_from = 3;
    const Choice c = pick(kMd, req, {wm, bb});
    CHECK(c.index == 1);
    CHECK(c.sectors == 3);
  }
  SECTION("choose_slow_rdev: the only readable mirror is write-mostly") {
    MemberSnapshot dead = hdd(1);
    dead.readable = false;
    const Choice c = pick(kMd, req, {wm, dead});
    CHECK(c.index == 0);
    CHECK(c.sectors == 8);
  }
  SECTION("choose_slow_rdev prefers a write-mostly mirror without bad blocks") {
    MemberSnapshot wm_bb = wm;
    wm_bb.bad_sectors_from = 5;
    MemberSnapshot wm_clean = hdd(1, 9);
    wm_clean.write_mostly = true;
    MemberSnapshot dead = hdd(2);
    dead.readable = false;
    const Choice c = pick(kMd, req, {wm_bb, wm_clean, dead});
    CHECK(c.index == 1);
    CHECK(c.sectors == 8);
  }
  SECTION("choose_slow_rdev: all write-mostly have bad blocks: the longest good prefix") {
    MemberSnapshot a = wm;
    a.bad_sectors_from = 2;
    MemberSnapshot b = hdd(1);
    b.write_mostly = true;
    b.bad_sectors_from = 6;
    MemberSnapshot c0 = hdd(2);
    c0.write_mostly = true;
    c0.bad_sectors_from = 0;
    const Choice c = pick(kMd, req, {a, b, c0});
    CHECK(c.index == 1);
    CHECK(c.sectors == 6);
  }
  SECTION("unreadable write-mostly mirrors are not used either") {
    wm.readable = false;
    MemberSnapshot dead = hdd(1);
    dead.readable = false;
    CHECK(pick(kMd, req, {wm, dead}).index == -1);
  }
}

TEST_CASE("md-legacy: bad blocks (choose_bb_rdev)", "[md-legacy]") {
  const ReadRequest req = read_at(0, 16);
  SECTION("choose_best_rdev skips a mirror with a bad block in range") {
    MemberSnapshot bb = ssd(0, 0);
    bb.bad_sectors_from = 15;
    bb.head_position = 0;  // sequential hit, but the bad block disqualifies it
    const Choice c = pick(kMd, req, {bb, ssd(1, 4)});
    CHECK(c.index == 1);
    CHECK(c.sectors == 16);
  }
  SECTION("a bad block past the end of the request does not count") {
    MemberSnapshot bb = ssd(0, 0);
    bb.bad_sectors_from = 16;
    const Choice c = pick(kMd, req, {bb, ssd(1, 4)});
    CHECK(c.index == 0);
    CHECK(c.sectors == 16);
  }
  SECTION("every mirror has one: most good sectors first, read shortened") {
    MemberSnapshot a = ssd(0);
    a.bad_sectors_from = 4;
    MemberSnapshot b = ssd(1, 9);
    b.bad_sectors_from = 11;
    MemberSnapshot c = ssd(2);
    c.bad_sectors_from = 11;  // tie: the first keeps it
    const Choice ch = pick(kMd, req, {a, b, c});
    CHECK(ch.index == 1);
    CHECK(ch.sectors == 11);
  }
  SECTION("every mirror starts on a bad block: nothing to read") {
    MemberSnapshot a = ssd(0);
    a.bad_sectors_from = 0;
    MemberSnapshot b = hdd(1);
    b.bad_sectors_from = 0;
    const Choice c = pick(kMd, req, {a, b});
    CHECK(c.index == -1);
    CHECK(c.sectors == 0);
  }
  SECTION("starting on a bad block: the write-mostly mirror serves it all") {
    MemberSnapshot a = ssd(0);
    a.bad_sectors_from = 0;
    MemberSnapshot wm = hdd(1);
    wm.write_mostly = true;
    const Choice c = pick(kMd, req, {a, wm});
    CHECK(c.index == 1);
    CHECK(c.sectors == 16);
  }
}

TEST_CASE("md-legacy: resync over the range reads the first readable mirror", "[md-legacy]") {
  ReadRequest req = read_at(512);
  req.resync_overlap = true;
  MemberSnapshot dead = ssd(0, 0);
  dead.readable = false;
  MemberSnapshot wm = hdd(1, 30);  // busy, far and write-mostly: still first
  wm.write_mostly = true;
  wm.head_position = 1'000'000;
  MemberSnapshot seq = ssd(2, 0);
  seq.next_seq_sect = 512;

  SECTION("first readable, whatever its load or flags") {
    const Choice c = pick(kMd, req, {dead, wm, seq});
    CHECK(c.index == 1);
    CHECK(c.sectors == 8);
  }
  SECTION("a bad block further in shortens the read but keeps the mirror") {
    wm.bad_sectors_from = 5;
    const Choice c = pick(kMd, req, {dead, wm, seq});
    CHECK(c.index == 1);
    CHECK(c.sectors == 5);
  }
  SECTION("a bad block at the start moves to the next mirror") {
    wm.bad_sectors_from = 0;
    const Choice c = pick(kMd, req, {dead, wm, seq});
    CHECK(c.index == 2);
    CHECK(c.sectors == 8);
  }
  SECTION("without resync the same table balances normally") {
    req.resync_overlap = false;
    CHECK(pick(kMd, req, {dead, wm, seq}).index == 2);
  }
}

TEST_CASE("md-legacy: RAID10 copies use their own device sectors", "[md-legacy]") {
  // Two copies at different device sectors; only copy 1 continues its run.
  MemberSnapshot c0 = hdd(2, 0);
  c0.sector = 5000;
  c0.next_seq_sect = 1000;
  MemberSnapshot c1 = hdd(3, 4);
  c1.sector = 1000;
  c1.next_seq_sect = 1000;
  const std::vector<MemberSnapshot> copies{c0, c1};
  PolicyState state;
  CHECK(choose(kMd, read_at(77, 8), copies, state, {}).index == 1);
}
