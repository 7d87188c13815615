// simulate: seed scenarios replayed on the simulator, before and after the
// policy each seed introduces.
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "args.hpp"
#include "commands.hpp"
#include "resources.hpp"
#include "workload/job_parser.hpp"
#include "workload/scenario.hpp"
#include "workload_args.hpp"

namespace rs::cli {
namespace {

const char* kSimulateHelp = R"(usage: raidscope-cli simulate --list
       raidscope-cli simulate --scenario=NAME [--json] [--policy-before=NAME]
              [--policy-after=NAME] [--members=P1,P2,...|--profile=PROFILE]
              [--min-contig-read=BYTES] [--rot-round-down=N] [--nonrot-round-down=N]
              [FIO OPTIONS replacing the scenario's: --bs= --iodepth= --rw= --runtime= ...]
)";
}  // namespace

int cmd_simulate(const Argv& argv) {
  for (auto& a : argv)
    if (a == "--help" || a == "-h") {
      std::fputs(kSimulateHelp, stdout);
      return 0;
    }
  Split s = split_args(argv,
                       {"scenario", "policy-before", "policy-after", "members", "profile", "min-contig-read",
                        "rot-round-down", "nonrot-round-down"},
                       {"json", "list"});
  const auto dirs = resource_dirs("scenarios");
  if (s.ours.count("list")) {
    for (auto& sc : workload::list_scenarios(dirs))
      std::printf("%-20s seed %s: %s -> %s, %zu row(s)\n", sc.name.c_str(), sc.seed_ref.c_str(),
                  sc.policy_before.c_str(), sc.policy_after.c_str(), sc.rows.size());
    return 0;
  }
  auto name = one(s, "scenario");
  if (!name) throw UsageError("give --scenario=NAME (see simulate --list)");
  std::string err;
  auto sc = workload::find_scenario(*name, dirs, &err);
  if (!sc) throw UsageError(err);
  workload::ScenarioOverrides ov;
  if (auto p = one(s, "policy-before")) policy_or_usage(*p), ov.policy_before = *p;
  if (auto p = one(s, "policy-after")) policy_or_usage(*p), ov.policy_after = *p;
  if (auto m = one(s, "members")) ov.members = split(*m, ',');
  if (auto p = one(s, "profile")) {
    if (!ov.members.empty()) throw UsageError("give --members or --profile, not both");
    ov.members = {*p};
  }
  for (auto& m : ov.members) profile_or_usage(m);
  ov.tunables = tunables_from(s);
  for (auto& a : s.fio) {
    if (a.rfind("--", 0) != 0 || a.find('=') == std::string::npos)
      throw UsageError("unexpected argument '" + a + "' (workload options are --key=value)");
    std::string key = a.substr(2, a.find('=') - 2), val = a.substr(a.find('=') + 1);
    if (workload::canonical_option_name(key).empty()) throw UsageError("unknown option '--" + key + "'");
    ov.job.emplace_back(std::string(workload::canonical_option_name(key)), val);
  }
  if (ov.members.size() > 1)
    for (auto& row : sc->rows)
      if (row.members.size() != ov.members.size())
        throw UsageError("--members lists " + std::to_string(ov.members.size()) + " profiles but row '" +
                         row.label + "' has " + std::to_string(row.members.size()) + " members");
  auto rows = workload::run_scenario(*sc, ov, resource_dirs("profiles"), &err);
  if (!rows) throw UsageError(err);

  if (s.ours.count("json")) {
    nlohmann::ordered_json j;
    j["scenario"] = sc->name;
    j["seed_ref"] = sc->seed_ref;
    auto& out = j["rows"] = nlohmann::ordered_json::array();
    for (auto& r : *rows) {
      nlohmann::ordered_json row;
      row["label"] = r.label;
      row["members"] = r.members;
      row["policy_before"] = r.policy_before;
      row["policy_after"] = r.policy_after;
      nlohmann::ordered_json seed;
      if (r.seed.before_bw) seed["before_bw_bytes"] = r.seed.before_bw;
      if (r.seed.after_bw) seed["after_bw_bytes"] = r.seed.after_bw;
      if (!r.seed.before_share.empty()) seed["before_read_share"] = r.seed.before_share;
      if (!r.seed.after_share.empty()) seed["after_read_share"] = r.seed.after_share;
      if (!r.seed.note.empty()) seed["note"] = r.seed.note;
      row["seed"] = seed;
      for (auto [key, f] : {std::pair{"before", &r.before}, std::pair{"after", &r.after}})
        row[key] = {{"bw_bytes", f->bw_bytes},     {"iops", f->iops},
                    {"read_share", f->read_share}, {"mean_clat_us", f->mean_lat_us},
                    {"member_ios", f->member_ios}, {"wall_ns", f->wall_ns}};
      row["ratio"] = r.ratio;
      out.push_back(row);
    }
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::printf("scenario %s (seed %s): %s\n\n", sc->name.c_str(), sc->seed_ref.c_str(),
              sc->description.c_str());
  std::printf("%-44s %-11s %12s %12s %12s %12s\n", "row", "policy", "seed", "simulated", "seed share",
              "sim share");
  for (auto& r : *rows) {
    std::printf("%-44s %-11s %12s %12s %12s %12s\n", r.label.c_str(), r.policy_before.c_str(),
                r.seed.before_bw ? mb(r.seed.before_bw).c_str() : "-", mb(r.before.bw_bytes).c_str(),
                shares(r.seed.before_share).c_str(), shares(r.before.read_share).c_str());
    std::printf("%-44s %-11s %12s %12s %12s %12s\n", "", r.policy_after.c_str(),
                r.seed.after_bw ? mb(r.seed.after_bw).c_str() : "-", mb(r.after.bw_bytes).c_str(),
                shares(r.seed.after_share).c_str(), shares(r.after.read_share).c_str());
    std::printf("%-44s %-11s %12s %12s\n", "", "ratio",
                r.seed.before_bw && r.seed.after_bw
                    ? ("x" + std::to_string(r.seed.after_bw / r.seed.before_bw).substr(0, 4)).c_str()
                    : "-",
                ("x" + std::to_string(r.ratio).substr(0, 4)).c_str());
    if (!r.seed.note.empty()) std::printf("%-44s (seed: %s)\n", "", r.seed.note.c_str());
  }
  uint64_t ios = 0, wall = 0;
  for (auto& r : *rows)
    ios += r.before.member_ios + r.after.member_ios, wall += r.before.wall_ns + r.after.wall_ns;
  std::printf(
      "\nsimulator: %llu member I/Os in %.3f s of wall-clock time (%.2f million per second, one thread)\n",
      static_cast<unsigned long long>(ios), double(wall) / 1e9,
      wall ? double(ios) / (double(wall) / 1e9) / 1e6 : 0.0);
  return 0;
}

}  // namespace rs::cli
