// Seed scenarios: a seed's published benchmark replayed on the simulator,
// once with the policy before the patch and once with the policy after, on
// emulated disks whose profiles were calibrated to the seed's hardware.
// Scenario files are JSON in resources/scenarios/ (one per seed table).
//
// The "policy" is the value of one tunable of the array's registry, named by
// the scenario's `policy_tunable` (default "read_policy": the read-balance
// seeds); a RAID5 scenario varies "stripe_scheduling", a bitmap one its own
// knob. A row may also fix other tunables (`tunables`: {name: value}, applied
// before the policy), the chunk (`chunk_bytes`, default 512 KiB), a
// write-intent bitmap (`bitmap_chunk_bytes`) and the members' usable size
// (`member_bytes`).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "balance/policy.hpp"
#include "base/result.hpp"
#include "io/device_profile.hpp"
#include "raid/level_info.hpp"

namespace rs::scenario {

// What the seed's author measured (0 / empty: not published).
struct SeedFigures {
  double before_bw = 0, after_bw = 0;  // bytes/s
  // Where the seed gives a figure only to its printed precision or as an
  // estimate ("0.001 GB/s", "~3.0+ GB/s"): the band it stands for, which
  // replaces the 10 % tolerance. {0, 0}: none.
  std::pair<double, double> before_range{0, 0}, after_range{0, 0};
  std::vector<double> before_share, after_share;  // read share per member, 0..1
  std::string note;
};

// How far a simulated figure may be from the seed's and still reproduce it.
inline constexpr double kBandwidthTolerance = 0.10;  // relative
inline constexpr double kShareTolerance = 0.05;      // absolute, per member

// One seed figure against the simulated one.
struct FigureCheck {
  std::string what;  // "before bandwidth", "after share", ...
  bool within = true;
  std::string detail;  // seed vs simulated, for the reader
};

inline constexpr const char* kDefaultPolicyTunable = "read_policy";
// A scenario whose policy_tunable is "level" compares RAID levels instead of
// a tunable's values: policy_before/after are level names ("raid5",
// "raid6"), each row's level is replaced by them, and everything else (the
// disks, layout name, chunk, tunables, job) stays the same.
inline constexpr const char* kLevelPolicy = "level";
inline constexpr uint32_t kDefaultScenarioChunkBytes = raid::kDefaultChunkBytes;  // the level table's

struct ScenarioRow {
  std::string label;
  int level = 1;
  std::string layout;  // mdadm's name for the level ("n2", "left-symmetric"); "": the level's default
  uint32_t chunk_bytes = kDefaultScenarioChunkBytes;  // chunked levels only
  uint32_t bitmap_chunk_bytes = 0;                    // a write-intent bitmap of this chunk; 0: none
  // Each member's usable size (what is left after md's data offset, as the
  // seed's array had it); 0: the smallest profile's capacity.
  uint64_t member_bytes = 0;
  // The tunable simulate_row() sets to the policy (the scenario's).
  std::string policy_tunable = kDefaultPolicyTunable;
  // Tunables set on the array before the policy, in order ("stripe_cache_size": "512").
  std::vector<std::pair<std::string, std::string>> tunables;
  std::vector<std::string> members;                      // profile name per member
  std::vector<std::pair<std::string, std::string>> job;  // fio options
  SeedFigures seed;
};

struct Scenario {
  std::string name, description, seed_ref;
  std::string policy_tunable = kDefaultPolicyTunable;
  std::string policy_before, policy_after;  // values of policy_tunable
  std::vector<ScenarioRow> rows;
};

struct PolicyFigures {
  double bw_bytes = 0, iops = 0;
  std::vector<double> read_share;
  double mean_lat_us = 0;
  uint64_t member_ios = 0;  // member I/Os the simulator executed
  // The write cost: the job's array writes and what the members did for
  // them (reads are pre-reads on a write-only job).
  uint64_t array_writes = 0, array_write_bytes = 0;
  uint64_t member_reads = 0, member_writes = 0, member_read_bytes = 0, member_write_bytes = 0;
  // `n` per array write (0 without writes).
  double per_array_write(uint64_t n) const { return array_writes ? double(n) / double(array_writes) : 0; }
  uint64_t wall_ns = 0;  // wall-clock time the run took
  // The array's telemetry sections at the end of the run, flattened as
  // "section.key" (e.g. "raid5.prereads_total"): what a level counted.
  std::vector<std::pair<std::string, double>> sections;
  // The bitmap's page writes by size (bytes -> count); empty without one.
  std::map<uint32_t, uint64_t> bitmap_writes;
  // The value of `key` in sections, or `fallback` when absent.
  double section(const std::string& key, double fallback = 0) const;
  // The value of `key` in whichever section has it ("rmw_writes_total" is
  // in raid5's or raid6's), or `fallback`.
  double in_any_section(const std::string& key, double fallback = 0) const;
};

struct ScenarioRowResult {
  std::string label, policy_tunable, policy_before, policy_after;
  std::vector<std::pair<std::string, std::string>> tunables;  // the row's fixed tunables
  std::vector<std::string> members;
  SeedFigures seed;
  PolicyFigures before, after;
  double ratio = 0;  // after bw / before bw
  // Every figure the seed gives, checked (bandwidths within
  // kBandwidthTolerance or the seed's band, shares within kShareTolerance).
  // Only meaningful when the row ran with the scenario's own policies,
  // profiles and workload: with overrides the checks are left empty.
  std::vector<FigureCheck> checks;
  bool within = true;  // every check passed
};

// Checks the seed's figures of a row against the simulated ones.
std::vector<FigureCheck> check_against_seed(const SeedFigures& seed, const PolicyFigures& before,
                                            const PolicyFigures& after);

// Overrides from the command line (empty/0: keep the scenario's).
struct ScenarioOverrides {
  std::string policy_before, policy_after;
  std::vector<std::string> members;  // profile name per member (a single one: all), found in profile_dirs
  // Profiles already loaded (e.g. from a file), each for member `index`, or
  // for every member with index -1. Applied after `members`.
  std::vector<std::pair<int, io::DeviceProfile>> profiles;
  std::vector<std::pair<std::string, std::string>> job;  // fio options replacing the row's
  std::optional<balance::Tunables> tunables;
  bool any() const {
    return !policy_before.empty() || !policy_after.empty() || !members.empty() || !profiles.empty() ||
           !job.empty() || tunables.has_value();
  }
};

// A scenario file; the error names the file and what is wrong in it.
Result<Scenario> load_scenario_file(const std::string& path);
// NAME.json in the first of `dirs` that has it; not_found lists the known ones.
Result<Scenario> find_scenario(const std::string& name, const std::vector<std::string>& dirs);
std::vector<Scenario> list_scenarios(const std::vector<std::string>& dirs);

// Runs one row with one policy (the value of row.policy_tunable) on a fresh
// simulated array of the given emulated disks, each as big as the smallest
// of them (md's rule). `tunables` (the read-balance knobs) are set only on
// arrays that have them. Deterministic.
Result<PolicyFigures> simulate_row(const ScenarioRow& row, const std::string& policy,
                                   const std::vector<io::DeviceProfile>& profiles,
                                   const balance::Tunables& tunables);

// Runs every row before and after. `profile_dirs` resolves profile names.
// An override index beyond a row's members is an error naming the row.
Result<std::vector<ScenarioRowResult>> run_scenario(const Scenario& sc, const ScenarioOverrides& ov,
                                                    const std::vector<std::string>& profile_dirs);

}  // namespace rs::scenario
