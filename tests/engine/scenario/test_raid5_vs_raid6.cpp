// The RAID5-vs-RAID6 write-cost scenario: the same eight simulated SSDs and
// the same jobs as RAID5 and as RAID6. Expected counts are md's rules worked
// by hand for 8 members (not read from the engine): a 4 KiB write is a
// read-modify-write on both (RAID5: old data + P, 2 pre-reads against 6 for
// reconstruct-write; RAID6: old data + P + Q, 3 against 5), so 2 reads + 2
// writes per array write on RAID5 and 3 + 3 on RAID6; whole-stripe writes
// read nothing and write 8/7 (RAID5) and 8/6 (RAID6) member bytes per array
// byte. Throughput is printed by `simulate`, never asserted.
#include <catch2/catch.hpp>

#include "../../common/source_dir.hpp"
#include "../../common/temp_dir.hpp"
#include "scenario/scenario.hpp"

using namespace rs::scenario;
using rs::test::kProfileDirs;
using rs::test::kScenarioDirs;

namespace {

const std::vector<ScenarioRowResult>& results() {
  static const std::vector<ScenarioRowResult> rows = [] {
    auto sc = find_scenario("raid5-vs-raid6-write-cost", kScenarioDirs);
    INFO((sc ? std::string() : sc.error().message));
    REQUIRE(sc);
    REQUIRE(sc->policy_tunable == kLevelPolicy);
    auto run = run_scenario(*sc, {}, kProfileDirs);
    INFO((run ? std::string() : run.error().message));
    REQUIRE(run);
    return *run;
  }();
  return rows;
}

const ScenarioRowResult& row(const std::string& label) {
  for (auto& r : results())
    if (r.label == label) return r;
  FAIL("no row '" << label << "'");
  throw;
}

}  // namespace

TEST_CASE("raid5 vs raid6: a 4k random write costs 2 reads + 2 writes on RAID5, 3 + 3 on RAID6 (md's rmw)",
          "[scenario][raid6]") {
  const ScenarioRowResult& r = row("4k random write QD1, 8 members");
  CHECK(r.policy_before == "raid5");
  CHECK(r.policy_after == "raid6");
  for (auto [f, cost] : {std::pair{&r.before, 2.0}, std::pair{&r.after, 3.0}}) {
    INFO((f == &r.before ? "raid5" : "raid6")
         << ": " << f->array_writes << " array writes, " << f->member_reads << " member reads, "
         << f->member_writes << " member writes");
    REQUIRE(f->array_writes > 1000);
    // A later write may find a block of an earlier one still cached (a
    // read fewer); random 4 KiB writes over 16 GiB almost never do.
    CHECK(f->per_array_write(f->member_reads) <= cost);
    CHECK(f->per_array_write(f->member_reads) >= cost - 0.01);
    CHECK(f->per_array_write(f->member_writes) == Approx(cost).margin(0.001));
    CHECK(f->in_any_section("rmw_writes_total") == double(f->array_writes));
    CHECK(f->in_any_section("rcw_writes_total") == 0);
  }
  CHECK(r.after.per_array_write(r.after.member_ios) > r.before.per_array_write(r.before.member_ios));
}

TEST_CASE("raid5 vs raid6: whole-stripe writes read nothing and write 8/7 vs 8/6 member bytes per byte",
          "[scenario][raid6]") {
  const ScenarioRowResult& r = row("2688k sequential write QD4, 8 members");
  for (auto [f, ratio] : {std::pair{&r.before, 8.0 / 7.0}, std::pair{&r.after, 8.0 / 6.0}}) {
    INFO((f == &r.before ? "raid5" : "raid6")
         << ": " << f->array_write_bytes << " bytes written, members " << f->member_write_bytes
         << " written, " << f->member_reads << " reads");
    REQUIRE(f->array_write_bytes > 0);
    CHECK(f->member_reads == 0);
    CHECK(double(f->member_write_bytes) / double(f->array_write_bytes) == Approx(ratio).epsilon(0.001));
    CHECK(f->in_any_section("full_stripe_writes_total") > 0);
    CHECK(f->in_any_section("rmw_writes_total") == 0);
    CHECK(f->in_any_section("rcw_writes_total") == 0);
  }
}

TEST_CASE("a level-comparing scenario refuses a level name it does not know, naming it",
          "[scenario][raid6]") {
  rs::test::TempDir dir("rs-scenario");
  const std::string path = dir.file("bad.json");
  FILE* f = std::fopen(path.c_str(), "w");
  REQUIRE(f);
  std::fputs(R"({"name": "bad", "policy_tunable": "level", "policy_before": "raid5", "policy_after": "raid7",
                 "rows": []})",
             f);
  std::fclose(f);
  auto sc = load_scenario_file(path);
  REQUIRE_FALSE(sc);
  CHECK(sc.error().message.find("raid7") != std::string::npos);
}
