// md-rr: md read_balance with seed 000's choose_best_rdev.
#include <catch2/catch.hpp>
#include <climits>

#include "mirrors.hpp"

using namespace rs::balance;
using namespace rs::balance::test;

namespace {
constexpr PolicyId kMdRr = PolicyId::MdRr;

std::vector<int> picks(PolicyState& state, const std::vector<MemberSnapshot>& mirrors, int calls) {
  std::vector<int> out;
  for (int i = 0; i < calls; ++i) out.push_back(pick(kMdRr, read_at(100'000 + 64 * i), mirrors, state).index);
  return out;
}
// A sequential stream of 8 reads of 8 sectors over two SSDs (io_opt 0),
// driven through the array's side of the contract; each read completes
// when the read after next is submitted. Returns the mirror of each read.
std::vector<int> stream(PolicyId policy) {
  std::vector<MemberSnapshot> ms{ssd(0), ssd(1)};
  PolicyState state;
  std::vector<int> chosen;
  for (uint64_t s = 0; s < 64; s += 8) {
    const size_t k = chosen.size();
    if (k >= 2) complete(ms[chosen[k - 2]], s - 8);
    for (auto& m : ms) m.sector = s;
    const Choice c = choose(policy, read_at(s), ms, state, {});
    REQUIRE(c.index >= 0);
    chosen.push_back(c.index);
    issue(ms[c.index], s, c.sectors);
  }
  return chosen;
}
}  // namespace

TEST_CASE("md-rr: read_rr starts at -1 so the first start slot is 0", "[md-rr]") {
  PolicyState state;
  CHECK(state.read_rr.load() == -1);
  CHECK(pick(kMdRr, read_at(4096), {ssd(0), ssd(1)}, state).index == 0);
  CHECK(state.read_rr.load() == 0);
  CHECK(pick(kMdRr, read_at(8192), {ssd(0), ssd(1)}, state).index == 1);
  CHECK(state.read_rr.load() == 1);
}

TEST_CASE("md-rr: a sequential mirror with pending I/O lets an idle mirror win", "[md-rr]") {
  MemberSnapshot seq = ssd(0, 2);
  seq.next_seq_sect = 64;  // io_opt 0: should_choose_next never fires
  const ReadRequest req = read_at(64);

  SECTION("SSDs: the idle mirror wins; md-legacy would stay") {
    CHECK(pick(kMdRr, req, {seq, ssd(1, 0)}).index == 1);
    CHECK(pick(PolicyId::MdLegacy, req, {seq, ssd(1, 0)}).index == 0);
  }
  SECTION("HDDs too (the seed's rotational 50/50 result)") {
    seq.rotational = true;
    CHECK(pick(kMdRr, req, {seq, hdd(1, 0)}).index == 1);
  }
  SECTION("an idle sequential mirror still returns at once") {
    seq.nr_pending = 0;
    CHECK(pick(kMdRr, req, {ssd(1, 0), seq}).index == 1);
  }
  SECTION("no idle mirror: the sequential one stays") {
    CHECK(pick(kMdRr, req, {seq, ssd(1, 1)}).index == 0);
  }
  SECTION("a stream alternates over two SSDs when each read takes two submissions to complete") {
    CHECK(stream(kMdRr) == std::vector<int>{0, 1, 0, 1, 0, 1, 0, 1});
    CHECK(stream(PolicyId::MdLegacy) == std::vector<int>{0, 0, 0, 0, 0, 0, 0, 0});
  }
}

TEST_CASE("md-rr: should_choose_next with io_opt still moves a long run", "[md-rr]") {
  MemberSnapshot seq = ssd(0, 0);
  seq.seq_start = 0;
  seq.next_seq_sect = 256;
  seq.io_opt_sectors = 128;
  // Idle but past io_opt: pending++ makes the other idle mirror win.
  CHECK(pick(kMdRr, read_at(256), {seq, ssd(1, 0)}).index == 1);
}

TEST_CASE("md-rr: equal pending rotates the start slot on non-rotational arrays", "[md-rr]") {
  PolicyState state;
  SECTION("all idle SSDs") {
    CHECK(picks(state, {ssd(0), ssd(1), ssd(2)}, 7) == std::vector<int>{0, 1, 2, 0, 1, 2, 0});
    CHECK(state.read_rr.load() == 6);
  }
  SECTION("all equally busy SSDs") {
    CHECK(picks(state, {ssd(0, 3), ssd(1, 3), ssd(2, 3)}, 4) == std::vector<int>{0, 1, 2, 0});
  }
  SECTION("only the tied least-pending mirrors share the rotation") {
    // start 0 -> 1 (before 2), start 1 -> 1, start 2 -> 2, start 0 -> 1 ...
    CHECK(picks(state, {ssd(0, 1), ssd(1), ssd(2)}, 6) == std::vector<int>{1, 1, 2, 1, 1, 2});
  }
  SECTION("a mixed array rotates too (it has a non-rotational member)") {
    CHECK(picks(state, {hdd(0), ssd(1)}, 4) == std::vector<int>{0, 1, 0, 1});
  }
  SECTION("unreadable members keep their place in the rotation but are skipped") {
    MemberSnapshot dead = ssd(1);
    dead.readable = false;
    // start 0 -> 0, start 1 -> 2 (1 is out), start 2 -> 2
    CHECK(picks(state, {ssd(0), dead, ssd(2)}, 3) == std::vector<int>{0, 2, 2});
  }
}

TEST_CASE("md-rr: all-rotational arrays do not rotate", "[md-rr]") {
  PolicyState state;
  CHECK(picks(state, {hdd(0), hdd(1), hdd(2)}, 5) == std::vector<int>{0, 0, 0, 0, 0});
  CHECK(state.read_rr.load() == -1);
  SECTION("busy HDDs: still the closest head") {
    MemberSnapshot far = hdd(0, 1);
    far.head_position = 0;
    MemberSnapshot near = hdd(1, 1);
    near.head_position = 99'000;
    CHECK(pick(kMdRr, read_at(100'000), {far, near}, state).index == 1);
    CHECK(state.read_rr.load() == -1);
  }
}

TEST_CASE("md-rr: read_rr wraps like an atomic_t", "[md-rr]") {
  PolicyState state;
  state.read_rr.store(INT_MAX);
  // inc_return gives INT_MIN; as unsigned that is 2^31, and 2^31 % 3 == 2.
  CHECK(pick(kMdRr, read_at(4096), {ssd(0), ssd(1), ssd(2)}, state).index == 2);
  CHECK(state.read_rr.load() == INT_MIN);
}

TEST_CASE("md-rr: the other read_balance steps are md-legacy's", "[md-rr]") {
  PolicyState state;
  SECTION("resync reads the first readable mirror and does not rotate") {
    ReadRequest req = read_at(0);
    req.resync_overlap = true;
    for (int i = 0; i < 3; ++i) CHECK(pick(kMdRr, req, {ssd(0, 5), ssd(1)}, state).index == 0);
    CHECK(state.read_rr.load() == -1);
  }
  SECTION("write-mostly and unreadable members are skipped") {
    MemberSnapshot wm = ssd(0);
    wm.write_mostly = true;
    MemberSnapshot dead = ssd(1);
    dead.readable = false;
    for (int i = 0; i < 3; ++i) CHECK(pick(kMdRr, read_at(0), {wm, dead, ssd(2, 4)}, state).index == 2);
  }
  SECTION("bad blocks shorten the read; write-mostly is the last resort") {
    MemberSnapshot a = ssd(0);
    a.bad_sectors_from = 3;
    MemberSnapshot wm = ssd(1);
    wm.write_mostly = true;
    const Choice c = pick(kMdRr, read_at(0), {a, wm}, state);
    CHECK(c.index == 0);
    CHECK(c.sectors == 3);
    a.bad_sectors_from = 0;
    const Choice s = pick(kMdRr, read_at(0), {a, wm}, state);
    CHECK(s.index == 1);
    CHECK(s.sectors == 8);
  }
}
