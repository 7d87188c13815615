// The scenario runner's generalisation: a scenario names the tunable it
// varies (`policy_tunable`), rows may fix other tunables and the chunk.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "../../common/source_dir.hpp"
#include "scenario/scenario.hpp"

using namespace rs::scenario;

using rs::test::kProfileDirs;

namespace {

// Writes `text` as a scenario file in a fresh directory and loads it.
Scenario load(const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / ("rs_scenario_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto path = (dir / "s.json").string();
  std::ofstream(path) << text;
  std::string err;
  auto sc = load_scenario_file(path);
  if (!sc) err = sc.error().message;
  std::filesystem::remove_all(dir);
  INFO(err);
  REQUIRE(sc);
  return *sc;
}

// Two 100 MB/s disks, btrfs-rr fixed by the row, 1 MiB reads; the scenario
// varies min_contig_read.
const char* kContigScenario = R"({
  "name": "contig", "seed": "-", "description": "test",
  "policy_tunable": "min_contig_read", "policy_before": 262144, "policy_after": "0",
  "rows": [{"label": "rr 1M", "level": 1, "members": ["virtio-100mbs", "virtio-100mbs"],
            "tunables": {"read_policy": "btrfs-rr"},
            "job": {"rw": "read", "bs": "1M", "iodepth": 8, "size": "256m"}}]})";

}  // namespace

TEST_CASE("a scenario varies the tunable it names, with the row's tunables fixed", "[scenario]") {
  Scenario sc = load(kContigScenario);
  CHECK(sc.policy_tunable == "min_contig_read");
  CHECK(sc.policy_before == "262144");  // a number in JSON is taken as its text
  REQUIRE(sc.rows.size() == 1);
  CHECK(sc.rows[0].tunables == std::vector<std::pair<std::string, std::string>>{{"read_policy", "btrfs-rr"}});

  std::string err;
  auto rows = run_scenario(sc, {}, kProfileDirs);
  if (!rows) err = rows.error().message;
  INFO(err);
  REQUIRE(rows);
  const auto& r = (*rows)[0];
  CHECK(r.policy_tunable == "min_contig_read");
  // btrfs-rr's arithmetic: with min_contig_read 256 KiB a 1 MiB read always
  // rounds to the same mirror; with 0 each read goes to the next one.
  REQUIRE(r.before.read_share.size() == 2);
  CHECK(std::max(r.before.read_share[0], r.before.read_share[1]) > 0.99);
  CHECK(r.after.read_share[0] == Approx(0.5).margin(0.05));
  CHECK(r.after.read_share[1] == Approx(0.5).margin(0.05));
  // The mirrors' telemetry section comes back with the figures.
  CHECK(r.after.section("read_balance.total_read_blocks", -1) >= 0);
  CHECK(r.after.section("no.such", -7) == -7);
}

TEST_CASE("a scenario's unknown tunable or bad chunk is an error naming it", "[scenario]") {
  std::string text = kContigScenario;
  text.replace(text.find("\"read_policy\": \"btrfs-rr\""), 25, "\"no_such_knob\": \"1\"");
  std::string err;
  {
    auto refused = run_scenario(load(text), {}, kProfileDirs);
    REQUIRE_FALSE(refused);
    err = refused.error().message;
  }
  CHECK(err.find("no_such_knob") != std::string::npos);
  CHECK(err.find("rr 1M") != std::string::npos);

  text = kContigScenario;
  text.replace(text.find("262144"), 6, "5");  // not a multiple of 4096: the registry refuses
  {
    auto refused = run_scenario(load(text), {}, kProfileDirs);
    REQUIRE_FALSE(refused);
    err = refused.error().message;
  }
  CHECK(err.find("min_contig_read") != std::string::npos);

  text = kContigScenario;
  text.replace(text.find("\"level\": 1"), 10, "\"level\": 10, \"chunk_bytes\": 5000");
  {
    auto refused = run_scenario(load(text), {}, kProfileDirs);
    REQUIRE_FALSE(refused);
    err = refused.error().message;
  }
  CHECK(err.find("chunk_bytes 5000") != std::string::npos);
}

TEST_CASE("read-policy scenarios still check their policy names when loaded", "[scenario]") {
  std::string text = R"({"name": "x", "policy_before": "md-legacy", "policy_after": "no-such-policy",
    "rows": [{"label": "r", "members": ["virtio-100mbs", "virtio-100mbs"], "job": {"rw": "read"}}]})";
  const auto path =
      std::filesystem::temp_directory_path() / ("rs_bad_" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << text;
  std::string err;
  {
    auto refused = load_scenario_file(path.string());
    REQUIRE_FALSE(refused);
    err = refused.error().message;
  }
  std::filesystem::remove(path);
  CHECK(err.find("no-such-policy") != std::string::npos);
}

TEST_CASE("a scenario's bad figure band is an error naming the file and row, not an exception",
          "[scenario]") {
  std::string text = R"({"name": "x", "policy_before": "md-legacy", "policy_after": "md-legacy",
    "rows": [{"label": "r1", "members": ["virtio-100mbs", "virtio-100mbs"], "job": {"rw": "read"},
              "seed": {"before_bw_range": [200, 100]}}]})";
  const auto path =
      std::filesystem::temp_directory_path() / ("rs_band_" + std::to_string(::getpid()) + ".json");
  std::ofstream(path) << text;
  auto refused = load_scenario_file(path.string());
  std::filesystem::remove(path);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().code == rs::Errc::invalid_argument);
  CHECK(refused.error().message.find(path.string() + ": row 'r1'") == 0);
  CHECK(refused.error().message.find("\"before_bw_range\" must be [low, high] with low < high") !=
        std::string::npos);
}
