// The seeds' shapes on the simulator (issue 3 acceptance): each scenario
// row is run with the policy before and after the seed's patch, and the
// figures must move the way the seed's tables say.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>

#include "workload/scenario.hpp"

using namespace rs::workload;

namespace {

const std::vector<std::string> kScenarioDirs = {std::string(RAIDSCOPE_SOURCE_DIR) + "/resources/scenarios"};
const std::vector<std::string> kProfileDirs = {std::string(RAIDSCOPE_SOURCE_DIR) + "/resources/profiles"};

std::vector<ScenarioRowResult> run(const std::string& name) {
  std::string err;
  auto sc = find_scenario(name, kScenarioDirs, &err);
  INFO(err);
  REQUIRE(sc);
  auto rows = run_scenario(*sc, {}, kProfileDirs, &err);
  INFO(err);
  REQUIRE(rows);
  return *rows;
}

const ScenarioRowResult& row(const std::vector<ScenarioRowResult>& rows, const std::string& label) {
  for (auto& r : rows)
    if (r.label == label) return r;
  FAIL("no row '" << label << "'");
  throw;
}

double max_share(const std::vector<double>& s) {
  return s.empty() ? 0 : *std::max_element(s.begin(), s.end());
}

void require_even(const std::vector<double>& shares, double tolerance) {
  REQUIRE(!shares.empty());
  const double even = 1.0 / double(shares.size());
  for (double s : shares) CHECK(s == Approx(even).margin(tolerance));
}

}  // namespace

TEST_CASE("seed-md-rr-nvme: 1M QD16 jobs=1 goes from lopsided to 50/50 and about doubles",
          "[scenario][seed000]") {
  auto rows = run("seed-md-rr-nvme");
  const auto& r = row(rows, "1M read QD16 jobs=1");
  CHECK(max_share(r.before.read_share) >= 0.6);
  require_even(r.after.read_share, 0.05);
  CHECK(r.ratio >= 1.8);

  const auto& qd1 = row(rows, "4k randread QD1 jobs=1");
  CHECK(max_share(qd1.before.read_share) >= 0.95);  // 100/0
  require_even(qd1.after.read_share, 0.05);
  CHECK(qd1.ratio == Approx(1.0).margin(0.05));  // equal throughput

  const auto& two = row(rows, "1M read QD16 jobs=2");
  require_even(two.before.read_share, 0.05);
  require_even(two.after.read_share, 0.05);
}

TEST_CASE("seed-md-rr-optane: four Optane members share a 1M stream with md-rr", "[scenario][seed000]") {
  auto rows = run("seed-md-rr-optane");
  REQUIRE(rows.size() == 1);
  CHECK(max_share(rows[0].before.read_share) >= 0.95);
  require_even(rows[0].after.read_share, 0.05);
  CHECK(rows[0].ratio >= 3.0);
}

TEST_CASE("seed-md-rr-hdd: sequential reads spread, 4k QD1 random reads stay on one disk",
          "[scenario][seed000]") {
  auto rows = run("seed-md-rr-hdd");
  const auto& three = row(rows, "3 disks, 1M read QD16 jobs=1");
  require_even(three.after.read_share, 0.05);
  CHECK(three.ratio >= 1.8);
  const auto& two = row(rows, "2 disks, 1M read QD16 jobs=1");
  require_even(two.after.read_share, 0.05);
  for (const char* label : {"2 disks, 4k randread QD1 jobs=1", "3 disks, 4k randread QD1 jobs=1"}) {
    const auto& r = row(rows, label);
    CHECK(max_share(r.before.read_share) >= 0.95);
    CHECK(max_share(r.after.read_share) >= 0.95);
    CHECK(r.ratio == Approx(1.0).margin(0.1));
  }
}

TEST_CASE("seed-btrfs-rr: round robin doubles a sequential read on two throttled disks",
          "[scenario][seed002]") {
  auto rows = run("seed-btrfs-rr");
  REQUIRE(rows.size() == 1);
  CHECK(max_share(rows[0].before.read_share) >= 0.95);
  require_even(rows[0].after.read_share, 0.05);
  CHECK(rows[0].ratio >= 1.8);
}

TEST_CASE("seed-btrfs-qlen: HDD+SSD puts most reads on the SSD", "[scenario][seed003]") {
  auto rows = run("seed-btrfs-qlen");
  const auto& mixed = row(rows, "HDD (old) + SSD, 32k randread QD16");
  REQUIRE(mixed.after.read_share.size() == 2);
  CHECK(mixed.after.read_share[1] > 0.8);  // member 1 is the SSD
  CHECK(mixed.ratio > 5);
  const auto& hdds = row(rows, "2 HDDs (old + modern), 32k randread QD16");
  CHECK(hdds.ratio > 1.3);  // both disks work once queues are compared
}

TEST_CASE("a simulated run is deterministic", "[scenario]") {
  std::string err;
  auto sc = find_scenario("seed-md-rr-hdd", kScenarioDirs, &err);
  REQUIRE(sc);
  std::vector<rs::io::DeviceProfile> profiles;
  for (auto& m : sc->rows[0].members) profiles.push_back(*rs::io::find_profile(m, kProfileDirs, &err));
  for (const char* policy : {"md-legacy", "md-rr", "btrfs-qlen"}) {
    auto a = simulate_row(sc->rows[0], policy, profiles, {}, &err);
    auto b = simulate_row(sc->rows[0], policy, profiles, {}, &err);
    REQUIRE(a);
    REQUIRE(b);
    CHECK(a->bw_bytes == b->bw_bytes);
    CHECK(a->iops == b->iops);
    CHECK(a->read_share == b->read_share);
    CHECK(a->mean_lat_us == b->mean_lat_us);
  }
}

TEST_CASE("scenario overrides: policies, profiles and workload options", "[scenario]") {
  std::string err;
  auto sc = find_scenario("seed-btrfs-rr", kScenarioDirs, &err);
  REQUIRE(sc);
  ScenarioOverrides ov;
  ov.policy_after = "md-rr";
  ov.job = {{"iodepth", "1"}};
  auto rows = run_scenario(*sc, ov, kProfileDirs, &err);
  REQUIRE(rows);
  CHECK((*rows)[0].policy_after == "md-rr");
  // One read in flight cannot use two disks at once: no gain.
  CHECK((*rows)[0].ratio == Approx(1.0).margin(0.1));

  ov = {};
  ov.members = {"no-such-profile"};
  CHECK_FALSE(run_scenario(*sc, ov, kProfileDirs, &err));
  CHECK(err.find("no-such-profile") != std::string::npos);

  CHECK_FALSE(find_scenario("no-such-scenario", kScenarioDirs, &err));
  CHECK(err.find("seed-md-rr-nvme") != std::string::npos);  // lists the known ones
}
