// RAID5 on the simulator through the scenario runner: a row of level 5 with
// md's layout name and chunk, the policy tunable stripe_scheduling, writes
// that share stripes (so some wait for a stripe lock and are resumed), and
// the raid5 telemetry section returned with the figures.
#include <catch2/catch.hpp>

#include "../../common/result_helpers.hpp"
#include "../../common/scenario_text.hpp"
#include "../../common/source_dir.hpp"
#include "scenario/scenario.hpp"

using namespace rs::scenario;

using rs::test::kProfileDirs;

namespace {

Scenario raid5_scenario(const std::string& bs, int iodepth) {
  return rs::test::must(rs::test::load_scenario_text(R"({"name": "r5", "policy_tunable": "stripe_scheduling",
    "policy_before": "legacy", "policy_after": "priority",
    "rows": [{"label": "4 x hdd-old", "level": 5, "layout": "left-symmetric", "chunk_bytes": 65536,
              "members": ["hdd-old", "hdd-old", "hdd-old", "hdd-old"], "tunables": {"stripe_cache_size": "512"},
              "job": {"rw": "write", "bs": ")" + bs + R"(", "iodepth": )" +
                                                     std::to_string(iodepth) + R"(, "size": "96m"}}]})"));
}
}  // namespace

TEST_CASE("raid5 on the simulator: stripe writes bounded by the disks, pre-reads counted", "[raid5][sim]") {
  // hdd-old writes 126 MB/s sequentially (its datasheet): 3 data members
  // carry at most 378 MB/s of array data.
  const double limit = 3 * 126e6;
  std::string err;
  // Full stripes (3 x 64K), no stripe shared by two writes.
  auto full = run_scenario(raid5_scenario("192k", 16), {}, kProfileDirs);
  if (!full) err = full.error().message;
  INFO(err);
  REQUIRE(full);
  const auto& f = (*full)[0].before;
  CHECK(f.bw_bytes <= limit * 1.01);
  CHECK(f.bw_bytes >= limit * 0.7);
  CHECK(f.section("raid5.prereads_total", -1) == 0);
  CHECK(f.section("raid5.full_stripe_writes_total") == 96.0 * 1024 * 1024 / (3 * 4096));
  // 512K writes: stripes at their ends are shared with the next write,
  // which waits for the lock; partial stripes pre-read.
  auto part = run_scenario(raid5_scenario("512k", 16), {}, kProfileDirs);
  if (!part) err = part.error().message;
  REQUIRE(part);
  const auto& p = (*part)[0].before;
  CHECK(p.bw_bytes > 0);
  CHECK(p.bw_bytes <= limit * 1.01);
  CHECK(p.member_ios > 0);
  CHECK(p.section("raid5.prereads_total") > 0);
  CHECK(p.section("raid5.rcw_writes_total") + p.section("raid5.rmw_writes_total") > 0);
  CHECK((*part)[0].policy_tunable == "stripe_scheduling");
  CHECK((*part)[0].tunables ==
        std::vector<std::pair<std::string, std::string>>{{"stripe_cache_size", "512"}});
}
