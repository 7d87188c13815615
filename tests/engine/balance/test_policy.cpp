// Policy names, tunable validation and dispatch.
#include <catch2/catch.hpp>

#include "mirrors.hpp"

using namespace rs::balance;
using namespace rs::balance::test;

TEST_CASE("policy names round-trip", "[policy]") {
  const std::vector<std::string_view> expected{"md-legacy", "md-rr", "btrfs-pid", "btrfs-rr", "btrfs-qlen"};
  CHECK(policy_names() == expected);
  for (PolicyId id :
       {PolicyId::MdLegacy, PolicyId::MdRr, PolicyId::BtrfsPid, PolicyId::BtrfsRr, PolicyId::BtrfsQlen}) {
    const auto back = parse_policy(policy_name(id));
    REQUIRE(back.ok());
    CHECK(*back == id);
  }
  CHECK(*parse_policy("md-rr") == PolicyId::MdRr);
  for (const char* bad : {"", "MD-RR", "btrfs", "round-robin", " md-rr"}) {
    INFO(bad);
    const auto r = parse_policy(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == rs::Errc::invalid_argument);
    // The refusal names what was typed and every valid name.
    CHECK_THAT(r.error().message, Catch::Contains("'" + std::string(bad) + "'") &&
                                      Catch::Contains("md-legacy, md-rr, btrfs-pid, btrfs-rr, btrfs-qlen"));
  }
  CHECK(kReadPolicy.name == "read_policy");
}

TEST_CASE("validate accepts the defaults and the edges", "[policy]") {
  CHECK(validate(Tunables{}).ok());
  Tunables t;
  t.rot_round_down = 1;
  t.nonrot_round_down = 64;
  t.min_contig_read = 0;
  CHECK(validate(t).ok());
  t.min_contig_read = 64u << 20;
  CHECK(validate(t).ok());
  t.min_contig_read = 4096;
  CHECK(validate(t).ok());
}

TEST_CASE("validate names the bad tunable and its value", "[policy]") {
  Tunables t;
  SECTION("rot_round_down not a power of two") {
    t.rot_round_down = 12;
    const std::string e = validate(t).error().message;
    CHECK_THAT(e, Catch::Contains("rot_round_down") && Catch::Contains("12"));
    CHECK_THAT(e, !Catch::Contains("nonrot_round_down") && !Catch::Contains("min_contig_read"));
  }
  SECTION("rot_round_down 0") {
    t.rot_round_down = 0;
    CHECK_THAT(validate(t).error().message, Catch::Contains("rot_round_down") && Catch::Contains("got 0"));
  }
  SECTION("nonrot_round_down above 64") {
    t.nonrot_round_down = 128;
    const std::string e = validate(t).error().message;
    CHECK_THAT(e, Catch::StartsWith("nonrot_round_down") && Catch::Contains("128"));
  }
  SECTION("min_contig_read not a multiple of 4096") {
    t.min_contig_read = 5000;
    CHECK_THAT(validate(t).error().message, Catch::StartsWith("min_contig_read") && Catch::Contains("5000"));
  }
  SECTION("min_contig_read above 64 MiB") {
    t.min_contig_read = (64u << 20) + 4096;
    CHECK_THAT(validate(t).error().message,
               Catch::Contains("min_contig_read") && Catch::Contains("67112960"));
  }
  SECTION("every bad value is reported") {
    t.rot_round_down = 3;
    t.nonrot_round_down = 65;
    t.min_contig_read = 1;
    const std::string e = validate(t).error().message;
    CHECK_THAT(e, Catch::Contains("rot_round_down") && Catch::Contains("got 3"));
    CHECK_THAT(e, Catch::Contains("nonrot_round_down") && Catch::Contains("got 65"));
    CHECK_THAT(e, Catch::Contains("min_contig_read") && Catch::Contains("got 1"));
  }
}

TEST_CASE("choose: nothing to choose from, nothing to read", "[policy]") {
  for (const std::string_view name : policy_names()) {
    const PolicyId id = *parse_policy(name);
    PolicyState state;
    INFO(name);
    const Choice none = choose(id, read_at(0), {}, state, {});
    CHECK(none.index == -1);
    CHECK(none.sectors == 0);
    const std::vector<MemberSnapshot> ms{ssd(0), ssd(1)};
    const Choice empty = choose(id, read_at(0, 0), ms, state, {});
    CHECK(empty.index == -1);
    CHECK(empty.sectors == 0);
    const Choice one = choose(id, read_at(0, 8), ms, state, {});
    CHECK(one.index >= 0);
    CHECK(one.sectors == 8);
  }
}

TEST_CASE("choose: a lone unreadable mirror is never chosen by any policy", "[policy]") {
  MemberSnapshot dead = ssd(0);
  dead.readable = false;
  const std::vector<MemberSnapshot> ms{dead, hdd(1, 40)};
  for (const std::string_view name : policy_names()) {
    INFO(name);
    PolicyState state;
    for (uint32_t job = 0; job < 4; ++job)
      CHECK(choose(*parse_policy(name), read_at(0, 8, job), ms, state, {}).index == 1);
  }
}
