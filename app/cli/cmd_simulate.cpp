// simulate: seed scenarios replayed on the simulator, before and after the
// policy each seed introduces.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "args.hpp"
#include "commands.hpp"
#include "fio/option_table.hpp"
#include "report/result_doc.hpp"
#include "report/result_file.hpp"
#include "resources.hpp"
#include "result_capture.hpp"
#include "scenario/scenario.hpp"
#include "workload_args.hpp"

namespace rs::cli {
namespace {

const char* kSimulateHelp = R"(usage: raidscope-cli simulate --list
       raidscope-cli simulate --scenario=NAME|FILE.json|all [--json] [--check] [--policy-before=NAME]
              [--policy-after=NAME] [--members=P1,P2,...] [--profile=P | --profile=INDEX=P ...]
              [--min-contig-read=BYTES] [--rot-round-down=N] [--nonrot-round-down=N]
              [FIO OPTIONS replacing the scenario's: --bs= --iodepth= --rw= --runtime= ...]

  --policy-before/--policy-after give values of the tunable the scenario varies
  (its policy_tunable: read_policy for the read-balance scenarios).
  NAME is a shipped scenario (simulate --list); FILE.json a scenario file of
  the same format (resources/scenarios/*.json are examples).
  P is a profile name (resources/profiles/NAME.json) or the path of a profile file.
  --members gives one per member; --profile=P puts P on every member and
  --profile=INDEX=P on member INDEX (0-based; repeatable, applied after --members).
  --check compares every published figure a scenario carries with the simulated
  one (bandwidth within 10 % or the band a rounded figure stands for, read shares
  within 5 points)
  and exits 1 when one misses. With overrides there is nothing to compare.
  --save=FILE.json keeps the run as a result document (raidscope-cli report).
)";

// One --profile value: "P" (every member, index -1) or "INDEX=P".
std::pair<int, io::DeviceProfile> profile_spec(const std::string& spec) {
  const auto eq = spec.find('=');
  if (eq != std::string::npos && eq > 0 && spec.find_first_not_of("0123456789") == eq) {
    const std::string idx = spec.substr(0, eq);
    if (idx.size() > 4) throw UsageError("--profile=" + spec + ": member index " + idx + " is too large");
    return {std::stoi(idx), profile_or_usage(spec.substr(eq + 1))};
  }
  return {-1, profile_or_usage(spec)};
}

nlohmann::ordered_json row_json(const scenario::ScenarioRowResult& r, bool compared) {
  nlohmann::ordered_json row;
  row["label"] = r.label;
  row["members"] = r.members;
  row["policy_tunable"] = r.policy_tunable;
  row["policy_before"] = r.policy_before;
  row["policy_after"] = r.policy_after;
  if (!r.tunables.empty()) {
    auto& t = row["tunables"] = nlohmann::ordered_json::object();
    for (auto& [k, v] : r.tunables) t[k] = v;
  }
  // The seed's figures: as one object (the earlier shape) and flat, next to ours.
  nlohmann::ordered_json seed = nlohmann::ordered_json::object();
  if (r.seed.before_bw) seed["before_bw_bytes"] = r.seed.before_bw;
  if (r.seed.after_bw) seed["after_bw_bytes"] = r.seed.after_bw;
  if (!r.seed.before_share.empty()) seed["before_read_share"] = r.seed.before_share;
  if (!r.seed.after_share.empty()) seed["after_read_share"] = r.seed.after_share;
  if (!r.seed.note.empty()) seed["note"] = r.seed.note;
  row["seed"] = seed;
  if (r.seed.before_bw) row["seed_before"] = r.seed.before_bw;
  if (r.seed.after_bw) row["seed_after"] = r.seed.after_bw;
  if (r.seed.before_range.second > 0)
    row["seed_before_range"] = {r.seed.before_range.first, r.seed.before_range.second};
  if (r.seed.after_range.second > 0)
    row["seed_after_range"] = {r.seed.after_range.first, r.seed.after_range.second};
  if (!r.seed.before_share.empty()) row["seed_before_share"] = r.seed.before_share;
  if (!r.seed.after_share.empty()) row["seed_after_share"] = r.seed.after_share;
  if (!r.seed.note.empty()) row["seed_note"] = r.seed.note;
  for (auto [key, f] : {std::pair{"before", &r.before}, std::pair{"after", &r.after}})
    row[key] = {{"bw_bytes", f->bw_bytes},
                {"iops", f->iops},
                {"read_share", f->read_share},
                {"mean_clat_us", f->mean_lat_us},
                {"member_ios", f->member_ios},
                {"wall_ns", f->wall_ns},
                {"array_writes", f->array_writes},
                {"member_reads_per_write", f->per_array_write(f->member_reads)},
                {"member_writes_per_write", f->per_array_write(f->member_writes)},
                {"member_write_bytes_per_byte",
                 f->array_write_bytes ? double(f->member_write_bytes) / double(f->array_write_bytes) : 0.0}};
  for (auto [key, f] : {std::pair{"before", &r.before}, std::pair{"after", &r.after}})
    if (!f->sections.empty()) {
      auto& sec = row[key]["sections"] = nlohmann::ordered_json::object();
      for (auto& [k, v] : f->sections) sec[k] = v;
      const auto& sizes = f->bitmap_writes;
      if (!sizes.empty()) {
        auto& bw = row[key]["bitmap_write_sizes"] = nlohmann::ordered_json::object();
        for (auto& [bytes, n] : sizes) bw[std::to_string(bytes)] = n;
      }
    }
  row["ratio"] = r.ratio;
  if (compared) {
    row["within"] = r.within;
    auto& checks = row["checks"] = nlohmann::ordered_json::array();
    for (auto& c : r.checks) checks.push_back({{"what", c.what}, {"within", c.within}, {"detail", c.detail}});
  } else {
    row["within"] = nullptr;  // overrides: the seed's figures do not apply
  }
  return row;
}

// What the members did per array write, where the row wrote through a
// parity level (it has md's rmw/rcw counts): the write cost side by side.
void print_write_cost(const scenario::ScenarioRowResult& r) {
  for (auto [label, f] :
       {std::pair{r.policy_before.c_str(), &r.before}, std::pair{r.policy_after.c_str(), &r.after}}) {
    if (!f->array_writes || f->in_any_section("rmw_writes_total", -1) < 0) continue;
    std::printf(
        "%-44s %-11s per array write: %.2f member reads + %.2f member writes, %.3f member bytes "
        "written per byte; rmw %.0f, rcw %.0f, full-stripe %.0f\n",
        "", label, f->per_array_write(f->member_reads), f->per_array_write(f->member_writes),
        f->array_write_bytes ? double(f->member_write_bytes) / double(f->array_write_bytes) : 0.0,
        f->in_any_section("rmw_writes_total"), f->in_any_section("rcw_writes_total"),
        f->in_any_section("full_stripe_writes_total"));
  }
}

void print_table(const scenario::Scenario& sc, const std::vector<scenario::ScenarioRowResult>& rows,
                 bool compared) {
  std::printf("scenario %s (seed %s): %s\n\n", sc.name.c_str(), sc.seed_ref.c_str(), sc.description.c_str());
  std::printf("%-44s %-11s %12s %12s %12s %12s\n", "row", "policy", "seed", "simulated", "seed share",
              "sim share");
  for (auto& r : rows) {
    auto seed_bw = [](double bw, std::pair<double, double> range) {
      if (range.second > 0)
        return mb(range.first) + "-" + mb(range.second).substr(0, mb(range.second).find(' '));
      return bw ? mb(bw) : std::string("-");
    };
    std::printf("%-44s %-11s %12s %12s %12s %12s\n", r.label.c_str(), r.policy_before.c_str(),
                seed_bw(r.seed.before_bw, r.seed.before_range).c_str(), mb(r.before.bw_bytes).c_str(),
                shares(r.seed.before_share).c_str(), shares(r.before.read_share).c_str());
    std::printf("%-44s %-11s %12s %12s %12s %12s\n", "", r.policy_after.c_str(),
                seed_bw(r.seed.after_bw, r.seed.after_range).c_str(), mb(r.after.bw_bytes).c_str(),
                shares(r.seed.after_share).c_str(), shares(r.after.read_share).c_str());
    std::printf("%-44s %-11s %12s %12s\n", "", "ratio",
                r.seed.before_bw && r.seed.after_bw
                    ? ("x" + std::to_string(r.seed.after_bw / r.seed.before_bw).substr(0, 4)).c_str()
                    : "-",
                ("x" + std::to_string(r.ratio).substr(0, 4)).c_str());
    for (auto [label, f] :
         {std::pair{r.policy_before.c_str(), &r.before}, std::pair{r.policy_after.c_str(), &r.after}}) {
      const auto& sizes = f->bitmap_writes;
      if (sizes.empty()) continue;
      std::string text;
      for (auto& [bytes, n] : sizes)
        text += (text.empty() ? "" : ", ") + std::to_string(n) + " x " + std::to_string(bytes) + " B";
      std::printf("%-44s %-11s bitmap page writes: %s\n", "", label, text.c_str());
    }
    print_write_cost(r);
    if (!r.seed.note.empty()) std::printf("%-44s (seed: %s)\n", "", r.seed.note.c_str());
    if (compared)
      for (auto& c : r.checks)
        if (!c.within) std::printf("%-44s MISS %s: %s\n", "", c.what.c_str(), c.detail.c_str());
  }
  uint64_t ios = 0, wall = 0;
  for (auto& r : rows)
    ios += r.before.member_ios + r.after.member_ios, wall += r.before.wall_ns + r.after.wall_ns;
  std::printf(
      "\nsimulator: %llu member I/Os in %.3f s of wall-clock time (%.2f million per second, one thread)\n",
      static_cast<unsigned long long>(ios), double(wall) / 1e9,
      wall ? double(ios) / (double(wall) / 1e9) / 1e6 : 0.0);
}

// The scenarios --scenario names: "all", a shipped one by name, or the
// user's own file (a path: it has a '/' or ends in .json).
std::vector<scenario::Scenario> chosen_scenarios(const std::string& name,
                                                 const std::vector<std::string>& dirs) {
  std::vector<scenario::Scenario> scenarios;
  if (name == "all") {
    scenarios = scenario::list_scenarios(dirs);
    if (scenarios.empty()) throw UsageError("no scenarios found");
    return scenarios;
  }
  const bool is_path = name.find('/') != std::string::npos ||
                       (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0);
  auto sc = is_path ? scenario::load_scenario_file(name) : scenario::find_scenario(name, dirs);
  if (!sc) throw UsageError(sc.error().message);
  scenarios.push_back(*sc);
  return scenarios;
}

// Every override the command line asks for, checked against every row of
// the chosen scenarios before anything runs.
scenario::ScenarioOverrides overrides_from(Split& s, const std::vector<scenario::Scenario>& scenarios) {
  scenario::ScenarioOverrides ov;
  // Read policies are checked here; other policy tunables by the array's
  // registry when the row runs.
  bool read_policies = true;
  for (auto& sc : scenarios)
    read_policies = read_policies && sc.policy_tunable == scenario::kDefaultPolicyTunable;
  if (auto p = one(s, "policy-before")) {
    if (read_policies) policy_or_usage(*p);
    ov.policy_before = *p;
  }
  if (auto p = one(s, "policy-after")) {
    if (read_policies) policy_or_usage(*p);
    ov.policy_after = *p;
  }
  if (auto m = one(s, "members")) {
    const auto specs = split(*m, ',');
    for (size_t i = 0; i < specs.size(); ++i) ov.profiles.push_back({int(i), profile_or_usage(specs[i])});
    for (auto& sc : scenarios)
      for (auto& row : sc.rows)
        if (row.members.size() != specs.size())
          throw UsageError("--members lists " + std::to_string(specs.size()) + " profiles but row '" +
                           row.label + "' has " + std::to_string(row.members.size()) + " members");
  }
  if (s.ours.count("profile"))
    for (auto& spec : s.ours["profile"]) ov.profiles.push_back(profile_spec(spec));
  for (auto& [index, prof] : ov.profiles)
    for (auto& sc : scenarios)
      for (auto& row : sc.rows)
        if (index >= int(row.members.size()))
          throw UsageError("--profile for member " + std::to_string(index) + ": row '" + row.label +
                           "' has " + std::to_string(row.members.size()) + " members (0 to " +
                           std::to_string(row.members.size() - 1) + ")");
  ov.tunables = tunables_from(s);
  for (auto& a : s.fio) {
    if (a.rfind("--", 0) != 0 || a.find('=') == std::string::npos)
      throw UsageError("unexpected argument '" + a + "' (workload options are --key=value)");
    std::string key = a.substr(2, a.find('=') - 2), val = a.substr(a.find('=') + 1);
    if (fio::canonical_option_name(key).empty()) throw UsageError("unknown option '--" + key + "'");
    ov.job.emplace_back(std::string(fio::canonical_option_name(key)), val);
  }
  return ov;
}

// `simulate --save`: the run as a result document.
void save_document(const std::string& path, const Argv& argv, const scenario::ScenarioOverrides& ov,
                   const nlohmann::ordered_json& out) {
  const balance::Tunables t = ov.tunables.value_or(balance::Tunables{});
  const nlohmann::ordered_json tunables = {{{"name", "min_contig_read"}, {"value", t.min_contig_read}},
                                           {{"name", "rot_round_down"}, {"value", t.rot_round_down}},
                                           {{"name", "nonrot_round_down"}, {"value", t.nonrot_round_down}}};
  Argv command{"simulate"};
  command.insert(command.end(), argv.begin(), argv.end());
  const auto doc = report::simulate_document(command, out, tunables);
  if (Status st = report::write_file_atomic(path, doc.dump(2) + "\n"); !st)
    throw RuntimeError(st.error().message);
}

}  // namespace

int cmd_simulate(const Argv& argv) {
  for (auto& a : argv)
    if (a == "--help" || a == "-h") {
      std::fputs(kSimulateHelp, stdout);
      return 0;
    }
  Split s = split_args(argv,
                       {"scenario", "policy-before", "policy-after", "members", "profile", "min-contig-read",
                        "rot-round-down", "nonrot-round-down", "save"},
                       {"json", "list", "check"});
  const auto dirs = resource_dirs("scenarios");
  if (s.ours.count("list")) {
    for (auto& sc : scenario::list_scenarios(dirs))
      std::printf("%-20s seed %s: %s -> %s, %zu row(s)\n", sc.name.c_str(), sc.seed_ref.c_str(),
                  sc.policy_before.c_str(), sc.policy_after.c_str(), sc.rows.size());
    return 0;
  }
  auto name = one(s, "scenario");
  if (!name) throw UsageError("give --scenario=NAME or --scenario=all (see simulate --list)");
  const std::vector<scenario::Scenario> scenarios = chosen_scenarios(*name, dirs);
  const scenario::ScenarioOverrides ov = overrides_from(s, scenarios);
  const bool check = s.ours.count("check") > 0;
  const std::optional<std::string> save = one(s, "save");
  if (save) check_output_dir("save", *save);
  const bool compared = !ov.any();
  if (check && !compared)
    throw UsageError("--check compares with the seeds' own setups: give it without overrides");

  bool all_within = true;
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  for (auto& sc : scenarios) {
    auto rows = scenario::run_scenario(sc, ov, resource_dirs("profiles"));
    if (!rows) throw RuntimeError(rows.error().message);
    for (auto& r : *rows) all_within = all_within && r.within;
    if (s.ours.count("json") || save) {
      nlohmann::ordered_json j;
      j["scenario"] = sc.name;
      j["seed_ref"] = sc.seed_ref;
      if (compared) {
        bool within = true;
        for (auto& r : *rows) within = within && r.within;
        j["within"] = within;
      }
      auto& jr = j["rows"] = nlohmann::ordered_json::array();
      for (auto& r : *rows) jr.push_back(row_json(r, compared));
      out.push_back(j);
    }
    if (!s.ours.count("json")) {
      if (&sc != &scenarios.front()) std::printf("\n");
      print_table(sc, *rows, compared);
    }
  }
  if (s.ours.count("json")) std::cout << (scenarios.size() == 1 ? out[0] : out).dump(2) << "\n";
  if (save) save_document(*save, argv, ov, out);
  if (check) {
    std::fprintf(stderr, "%s\n",
                 all_within ? "check: every seed figure reproduced"
                            : "check: some seed figures missed (MISS lines, or \"within\": false in JSON)");
    return all_within ? 0 : 1;
  }
  return 0;
}

}  // namespace rs::cli
