// Seed scenarios: a seed's published benchmark replayed on the simulator,
// once with the policy before the patch and once with the policy after, on
// emulated disks whose profiles were calibrated to the seed's hardware.
// Scenario files are JSON in resources/scenarios/ (one per seed table).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "balance/policy.hpp"
#include "io/device_profile.hpp"
#include "workload/job_options.hpp"

namespace rs::workload {

struct SeedFigures {                   // what the seed's author measured (0 / empty: not published)
  double before_bw = 0, after_bw = 0;  // bytes/s
  std::vector<double> before_share, after_share;
  std::string note;
};

struct ScenarioRow {
  std::string label;
  int level = 1;
  std::string layout = "n2";
  std::vector<std::string> members;                      // profile name per member
  std::vector<std::pair<std::string, std::string>> job;  // fio options
  SeedFigures seed;
};

struct Scenario {
  std::string name, description, seed_ref;
  std::string policy_before, policy_after;
  std::vector<ScenarioRow> rows;
};

struct PolicyFigures {
  double bw_bytes = 0, iops = 0;
  std::vector<double> read_share;
  double mean_lat_us = 0;
  uint64_t member_ios = 0;  // member I/Os the simulator executed
  uint64_t wall_ns = 0;     // wall-clock time the run took
};

struct ScenarioRowResult {
  std::string label, policy_before, policy_after;
  std::vector<std::string> members;
  SeedFigures seed;
  PolicyFigures before, after;
  double ratio = 0;  // after bw / before bw
};

// Overrides from the command line (empty/0: keep the scenario's).
struct ScenarioOverrides {
  std::string policy_before, policy_after;
  std::vector<std::string> members;                      // profile per member (a single one: all)
  std::vector<std::pair<std::string, std::string>> job;  // fio options replacing the row's
  std::optional<balance::Tunables> tunables;
};

std::optional<Scenario> load_scenario_file(const std::string& path, std::string* error);
std::optional<Scenario> find_scenario(const std::string& name, const std::vector<std::string>& dirs,
                                      std::string* error);
std::vector<Scenario> list_scenarios(const std::vector<std::string>& dirs);

// Runs one row with one policy on a fresh simulated array. Deterministic.
std::optional<PolicyFigures> simulate_row(const ScenarioRow& row, const std::string& policy,
                                          const std::vector<io::DeviceProfile>& profiles,
                                          const balance::Tunables& tunables, std::string* error);

// Runs every row before and after. `profile_dirs` resolves profile names.
std::optional<std::vector<ScenarioRowResult>> run_scenario(const Scenario& sc, const ScenarioOverrides& ov,
                                                           const std::vector<std::string>& profile_dirs,
                                                           std::string* error);

}  // namespace rs::workload
