// seed-raid5-priority: seed 004's Test1 replayed on the simulator through
// the stripe cache and raid5d. The acceptance: at
// stripe_cache_size 256 the priority order carries at least 1.15 x what
// the legacy order does, with fewer pre-reads. The seed's own +33 % / +25 %
// are relative gains the model overshoots (the scenario lists them as
// known misses): they are not asserted.
#include <catch2/catch.hpp>

#include "../../common/source_dir.hpp"
#include "scenario/scenario.hpp"

using namespace rs::scenario;

using rs::test::kProfileDirs;
using rs::test::kScenarioDirs;

TEST_CASE("seed-raid5-priority: priority >= 1.15 x legacy at stripe_cache_size 256, fewer pre-reads",
          "[raid5][sim][seed]") {
  std::string err;
  auto sc = find_scenario("seed-raid5-priority", kScenarioDirs);
  if (!sc) err = sc.error().message;
  INFO(err);
  REQUIRE(sc);
  REQUIRE(sc->policy_tunable == "stripe_scheduling");
  REQUIRE(sc->policy_before == "legacy");
  REQUIRE(sc->policy_after == "priority");
  auto rows = run_scenario(*sc, {}, kProfileDirs);
  if (!rows) err = rows.error().message;
  INFO(err);
  REQUIRE(rows);
  REQUIRE(rows->size() == 3);
  const ScenarioRowResult& r = (*rows)[0];
  // md's behaviour: no stream hold (the scenario pins it off).
  REQUIRE(r.tunables == std::vector<std::pair<std::string, std::string>>{{"hold_stream_stripes", "off"},
                                                                         {"stripe_cache_size", "256"}});
  INFO("legacy " << r.before.bw_bytes << " B/s, " << r.before.section("raid5.prereads_total", -1)
                 << " pre-reads; priority " << r.after.bw_bytes << " B/s, "
                 << r.after.section("raid5.prereads_total", -1) << " pre-reads");
  CHECK(r.after.bw_bytes >= 1.15 * r.before.bw_bytes);
  CHECK(r.ratio == Approx(r.after.bw_bytes / r.before.bw_bytes));
  CHECK(r.after.section("raid5.prereads_total", -1) < r.before.section("raid5.prereads_total", -1));
  // The whole 2 GiB went through the cache: 2 GiB / (3 data pages of
  // 4 KiB) stripe heads at least (more where a head is written twice).
  const double heads = 2.0 * 1024 * 1024 * 1024 / (3 * 4096);
  CHECK(r.after.section("raid5.full_stripe_writes_total") + r.after.section("raid5.rcw_writes_total") +
            r.after.section("raid5.rmw_writes_total") >=
        heads);
  // A write under the priority order is a full-stripe write far more often.
  CHECK(r.after.section("raid5.full_stripe_writes_total") >
        r.before.section("raid5.full_stripe_writes_total"));
  // The other rows (stripe_cache_size 512; bypass threshold 0) run and gain.
  for (size_t i = 1; i < rows->size(); ++i) {
    INFO((*rows)[i].label);
    CHECK((*rows)[i].after.bw_bytes >= (*rows)[i].before.bw_bytes);
    CHECK((*rows)[i].after.section("raid5.prereads_total") <=
          (*rows)[i].before.section("raid5.prereads_total"));
  }
}
