#include "scenario/scenario.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "base/read_file.hpp"
#include "fio/job_parser.hpp"
#include "fio/log_files.hpp"
#include "levels/levels.hpp"
#include "raid/level_info.hpp"
#include "workload/runner.hpp"
#include "workload/targets.hpp"

namespace rs::scenario {

using namespace rs::workload;

namespace {

using json = nlohmann::json;

std::string as_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "1" : "0";
  return v.dump();
}

std::vector<double> doubles(const json& v) {
  std::vector<double> out;
  if (v.is_array())
    for (auto& x : v) out.push_back(x.get<double>());
  return out;
}

Result<std::pair<double, double>> band(const json& s, const char* key, const std::string& where) {
  if (!s.contains(key)) return std::pair<double, double>{0, 0};
  auto v = doubles(s.at(key));
  if (v.size() != 2 || !(v[0] >= 0 && v[0] < v[1]))
    return make_error(Errc::invalid_argument,
                      where + ": \"" + key + "\" must be [low, high] with low < high");
  return std::pair<double, double>{v[0], v[1]};
}

// A level's name in the level table ("raid6") for a scenario comparing levels.
Result<int> level_named(const std::string& name) {
  for (const raid::LevelInfo& l : levels::builtin().levels)
    if (name == l.name) return l.level;
  return make_error(Errc::invalid_argument,
                    "unknown level '" + name +
                        "' (the policies of a scenario with "
                        "policy_tunable \"level\" are level names: raid5, raid6, ...)");
}

// nlohmann-json throws on a malformed document or a missing key: caught
// here, at the call, and returned as an Error naming the file.
Result<Scenario> parse_scenario(const std::string& text, const std::string& origin) {
  try {
    json j = json::parse(text);
    Scenario sc;
    sc.name = j.at("name").get<std::string>();
    sc.description = j.value("description", "");
    sc.seed_ref = j.value("seed", "");
    sc.policy_tunable = j.value("policy_tunable", std::string(kDefaultPolicyTunable));
    sc.policy_before = as_text(j.at("policy_before"));
    sc.policy_after = as_text(j.at("policy_after"));
    for (auto& r : j.at("rows")) {
      ScenarioRow row;
      row.label = r.at("label").get<std::string>();
      row.level = r.value("level", 1);
      row.layout = r.value("layout", "");
      row.chunk_bytes = r.value("chunk_bytes", kDefaultScenarioChunkBytes);
      row.bitmap_chunk_bytes = r.value("bitmap_chunk_bytes", 0u);
      row.member_bytes = r.value("member_bytes", uint64_t{0});
      row.policy_tunable = sc.policy_tunable;
      if (r.contains("tunables"))
        for (auto& [k, v] : r.at("tunables").items()) row.tunables.emplace_back(k, as_text(v));
      row.members = r.at("members").get<std::vector<std::string>>();
      for (auto& [k, v] : r.at("job").items()) row.job.emplace_back(k, as_text(v));
      if (r.contains("seed")) {
        const json& s = r["seed"];
        row.seed.before_bw = s.value("before_bw", 0.0);
        row.seed.after_bw = s.value("after_bw", 0.0);
        const std::string where = origin + ": row '" + row.label + "'";
        auto before = band(s, "before_bw_range", where), after = band(s, "after_bw_range", where);
        for (auto* r : {&before, &after})
          if (!r->ok()) return r->take_error();
        row.seed.before_range = *before;
        row.seed.after_range = *after;
        if (s.contains("before_share")) row.seed.before_share = doubles(s["before_share"]);
        if (s.contains("after_share")) row.seed.after_share = doubles(s["after_share"]);
        row.seed.note = s.value("note", "");
      }
      sc.rows.push_back(std::move(row));
    }
    // Read policies are known here; any other tunable's values are checked
    // by the array's registry when the row runs.
    for (const auto& p : {sc.policy_before, sc.policy_after}) {
      if (sc.policy_tunable == kDefaultPolicyTunable)
        if (auto known = balance::parse_policy(p); !known)
          return make_error(Errc::invalid_argument, origin + ": " + known.error().message);
      if (sc.policy_tunable == kLevelPolicy)
        if (auto level = level_named(p); !level)
          return make_error(Errc::invalid_argument, origin + ": " + level.error().message);
    }
    return sc;
  } catch (const std::exception& e) {
    return make_error(Errc::invalid_argument, origin + ": " + e.what());
  }
}

// md sizes a mirror to its smallest member; each emulated disk keeps its own
// capacity, so an HDD seeks over the part of its platters the array uses.
uint64_t member_bytes(const std::vector<io::DeviceProfile>& profiles) {
  uint64_t bytes = ~uint64_t{0};
  for (auto& p : profiles) bytes = std::min<uint64_t>(bytes, p.capacity_bytes);
  return bytes;
}

std::string mbs(double bytes_per_s) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.4g MB/s", bytes_per_s / 1e6);
  return buf;
}

std::string share_text(const std::vector<double>& v) {
  std::string s;
  for (double x : v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%s%.0f", s.empty() ? "" : "/", x * 100);
    s += buf;
  }
  return s;
}

void check_bw(std::vector<FigureCheck>& out, const char* what, double seed, std::pair<double, double> range,
              double sim) {
  if (seed <= 0 && range.second <= 0) return;
  FigureCheck c;
  c.what = what;
  if (range.second > 0) {
    c.within = sim >= range.first && sim <= range.second;
    c.detail = "seed " + mbs(range.first) + " to " + mbs(range.second) + ", simulated " + mbs(sim);
  } else {
    c.within = std::fabs(sim - seed) <= kBandwidthTolerance * seed;
    char buf[32];
    std::snprintf(buf, sizeof buf, " (%+.1f %%)", (sim / seed - 1) * 100);
    c.detail = "seed " + mbs(seed) + ", simulated " + mbs(sim) + buf;
  }
  out.push_back(c);
}

void check_share(std::vector<FigureCheck>& out, const char* what, const std::vector<double>& seed,
                 const std::vector<double>& sim) {
  if (seed.empty()) return;
  FigureCheck c;
  c.what = what;
  c.within = seed.size() == sim.size();
  for (size_t i = 0; c.within && i < seed.size(); ++i)
    c.within = std::fabs(seed[i] - sim[i]) <= kShareTolerance;
  c.detail = "seed " + share_text(seed) + ", simulated " + share_text(sim);
  out.push_back(c);
}

// md's shape for a row: the level's rules (levels::builtin()) with the
// row's layout name and chunk; whole granules of 512 KiB (or of the chunk).
Result<raid::Shape> row_shape(const ScenarioRow& row, int disks, uint64_t member_bytes) {
  auto fail = [&](const std::string& why) {
    return make_error(Errc::invalid_argument, row.label + ": " + why);
  };
  auto level = levels::builtin().get(row.level);
  if (!level) return fail(level.error().message);
  const raid::LevelInfo& info = **level;
  std::optional<uint32_t> layout;
  if (!row.layout.empty()) {
    auto word = info.parse_layout(row.layout, disks);
    if (!word) return fail(word.error().message);
    layout = *word;
  }
  if (info.chunked)
    if (std::string why = raid::LevelInfo::chunk_problem(row.chunk_bytes); !why.empty())
      return fail("chunk_bytes " + std::to_string(row.chunk_bytes) + ": " + why);
  auto shape = info.new_shape(disks, layout, info.chunked ? std::optional(row.chunk_bytes) : std::nullopt);
  if (!shape) return fail(shape.error().message);
  const uint64_t granule = std::max<uint64_t>(1024, shape->chunk_sectors);
  shape->dev_sectors = member_bytes / 512 / granule * granule;
  return *shape;
}

Status set_tunable(telemetry::TunableRegistry& reg, const std::string& row, const std::string& name,
                   const std::string& value) {
  if (!reg.has(name)) {
    std::string known;
    for (auto& t : reg.list()) known += (known.empty() ? "" : ", ") + t.spec.name;
    return make_error(Errc::invalid_argument,
                      row + ": this array has no tunable '" + name + "' (it has: " + known + ")");
  }
  if (Status st = reg.set(name, value); !st)
    return make_error(st.error().code, row + ": " + st.error().message);
  return {};
}

}  // namespace

double PolicyFigures::section(const std::string& key, double fallback) const {
  for (auto& [k, v] : sections)
    if (k == key) return v;
  return fallback;
}

double PolicyFigures::in_any_section(const std::string& key, double fallback) const {
  for (auto& [k, v] : sections)
    if (k.size() > key.size() && k.compare(k.size() - key.size(), key.size(), key) == 0 &&
        k[k.size() - key.size() - 1] == '.')
      return v;
  return fallback;
}

std::vector<FigureCheck> check_against_seed(const SeedFigures& seed, const PolicyFigures& before,
                                            const PolicyFigures& after) {
  std::vector<FigureCheck> out;
  check_bw(out, "before bandwidth", seed.before_bw, seed.before_range, before.bw_bytes);
  check_bw(out, "after bandwidth", seed.after_bw, seed.after_range, after.bw_bytes);
  check_share(out, "before share", seed.before_share, before.read_share);
  check_share(out, "after share", seed.after_share, after.read_share);
  return out;
}

Result<Scenario> load_scenario_file(const std::string& path) {
  const Result<std::string> text = read_file(path);
  if (!text) return text.error();
  return parse_scenario(*text, path);
}

std::vector<Scenario> list_scenarios(const std::vector<std::string>& dirs) {
  std::vector<Scenario> out;
  for (auto& d : dirs) {
    std::error_code ec;
    std::vector<std::filesystem::path> files;
    for (auto& e : std::filesystem::directory_iterator(d, ec))
      if (e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (auto& f : files) {
      if (auto sc = load_scenario_file(f.string())) out.push_back(std::move(*sc));
    }
    if (!out.empty()) break;
  }
  return out;
}

Result<Scenario> find_scenario(const std::string& name, const std::vector<std::string>& dirs) {
  for (auto& d : dirs) {
    const std::string path = d + "/" + name + ".json";
    if (std::filesystem::exists(path)) return load_scenario_file(path);
  }
  std::string known;
  for (auto& sc : list_scenarios(dirs)) known += (known.empty() ? "" : ", ") + sc.name;
  return make_error(Errc::not_found, "unknown scenario '" + name +
                                         "' (known: " + (known.empty() ? "none found" : known) + ")");
}

Result<PolicyFigures> simulate_row(const ScenarioRow& row, const std::string& policy,
                                   const std::vector<io::DeviceProfile>& profiles,
                                   const balance::Tunables& tunables) {
  // A policy's name is read once, by the registry's read_policy tunable
  // (balance::parse_policy) when the row sets it below.
  const bool levels_compared = row.policy_tunable == kLevelPolicy;
  ScenarioRow shaped = row;
  if (levels_compared) {
    auto level = level_named(policy);
    if (!level) return level.take_error();
    shaped.level = *level;
  }
  const uint64_t capacity = member_bytes(profiles);
  // The seed's disks' usable size; smaller disks given instead (--profile)
  // are used whole.
  const uint64_t usable = row.member_bytes ? std::min(row.member_bytes, capacity) : capacity;
  auto made_shape = row_shape(shaped, int(profiles.size()), usable);
  if (!made_shape) return made_shape.take_error();
  const raid::Shape& shape = *made_shape;
  std::vector<std::shared_ptr<io::DeviceModel>> models;
  for (auto& p : profiles) {
    auto model = io::make_model(p);
    if (!model) return model.take_error();
    models.push_back(std::move(*model));
  }
  auto made = SimArrayTarget::make(shape, models, row.bitmap_chunk_bytes);
  if (!made) return made.take_error();
  SimArrayTarget& target = **made;
  auto& reg = target.array().tunables();
  // The read-balance knobs where the level has them (mirrors), then the
  // row's own tunables, then the policy under test.
  for (auto [name, value] :
       {std::pair<std::string, std::string>{"min_contig_read", std::to_string(tunables.min_contig_read)},
        {"rot_round_down", std::to_string(tunables.rot_round_down)},
        {"nonrot_round_down", std::to_string(tunables.nonrot_round_down)}})
    if (reg.has(name))
      if (Status st = reg.set(name, value); !st) return st.error();
  for (auto& [name, value] : row.tunables)
    if (Status st = set_tunable(reg, row.label, name, value); !st) return st.error();
  if (!levels_compared)
    if (Status st = set_tunable(reg, row.label, row.policy_tunable, policy); !st) return st.error();

  // The row's fio options, as `--key=value` arguments of one job.
  std::vector<std::string> args = {"--name=" + row.label};
  for (auto& [k, v] : row.job) args.push_back("--" + k + "=" + v);
  auto parsed = fio::parse_cli_job(args);
  if (!parsed) return make_error(Errc::invalid_argument, row.label + ": " + parsed.error().message);
  if (std::string bad = check_jobs(parsed->jobs, target); !bad.empty())
    return make_error(Errc::invalid_argument, bad);
  const auto wall0 = std::chrono::steady_clock::now();
  RunOutcome run = run_jobs(parsed->jobs, parsed->global.given, target, nullptr, fio::open_job_logs);
  const auto wall = std::chrono::steady_clock::now() - wall0;
  PolicyFigures f;
  uint64_t bytes = 0, ios = 0, runtime_ns = 0;
  double lat_sum = 0;
  for (auto& j : run.results.jobs) {
    for (const DirectionResults* d : {&j.read, &j.write}) {
      bytes += d->io_bytes;
      ios += d->total_ios;
      lat_sum += d->clat.mean() * double(d->total_ios);
    }
    f.array_writes += j.write.total_ios;
    f.array_write_bytes += j.write.io_bytes;
    runtime_ns = std::max(runtime_ns, j.job_runtime_ns);
  }
  const double secs = double(std::max<uint64_t>(runtime_ns, 1)) / 1e9;
  f.bw_bytes = double(bytes) / secs;
  f.iops = double(ios) / secs;
  f.mean_lat_us = ios ? lat_sum / double(ios) / 1000.0 : 0;
  if (!run.results.jobs.empty() && run.results.jobs[0].raidscope)
    for (auto& m : run.results.jobs[0].raidscope->members) {
      f.read_share.push_back(m.read_share);
      f.member_ios += m.reads + m.writes;
      f.member_reads += m.reads;
      f.member_writes += m.writes;
      f.member_read_bytes += m.read_bytes;
      f.member_write_bytes += m.write_bytes;
    }
  f.wall_ns = uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(wall).count());
  if (const auto* bitmap = target.array().bitmap()) f.bitmap_writes = bitmap->write_sizes();
  for (auto& sec : target.array().read_sections())
    for (auto& [k, v] : sec.values) f.sections.emplace_back(sec.name + "." + k, v);
  return f;
}

Result<std::vector<ScenarioRowResult>> run_scenario(const Scenario& sc, const ScenarioOverrides& ov,
                                                    const std::vector<std::string>& profile_dirs) {
  std::vector<ScenarioRowResult> out;
  for (const ScenarioRow& base : sc.rows) {
    ScenarioRow row = base;
    if (!ov.members.empty()) {
      if (ov.members.size() == 1)
        std::fill(row.members.begin(), row.members.end(), ov.members[0]);
      else
        row.members = ov.members;
    }
    for (auto& [k, v] : ov.job) {
      bool replaced = false;
      for (auto& kv : row.job)
        if (kv.first == k) kv.second = v, replaced = true;
      if (!replaced) row.job.emplace_back(k, v);
    }
    std::vector<io::DeviceProfile> profiles;
    for (auto& name : row.members) {
      auto p = io::find_profile(name, profile_dirs);
      if (!p) return p.take_error();
      profiles.push_back(*p);
    }
    for (auto& [index, p] : ov.profiles) {
      if (index >= int(profiles.size())) {
        return make_error(Errc::invalid_argument, "profile for member " + std::to_string(index) + ": row '" +
                                                      row.label + "' has " + std::to_string(profiles.size()) +
                                                      " members (0 to " +
                                                      std::to_string(profiles.size() - 1) + ")");
      }
      if (index < 0)
        std::fill(profiles.begin(), profiles.end(), p);
      else
        profiles[size_t(index)] = p;
    }
    ScenarioRowResult r;
    r.label = row.label;
    r.policy_tunable = row.policy_tunable;
    r.tunables = row.tunables;
    for (auto& p : profiles) r.members.push_back(p.name);
    r.seed = row.seed;
    r.policy_before = ov.policy_before.empty() ? sc.policy_before : ov.policy_before;
    r.policy_after = ov.policy_after.empty() ? sc.policy_after : ov.policy_after;
    const balance::Tunables t = ov.tunables.value_or(balance::Tunables{});
    auto before = simulate_row(row, r.policy_before, profiles, t);
    if (!before) return before.take_error();
    auto after = simulate_row(row, r.policy_after, profiles, t);
    if (!after) return after.take_error();
    r.before = *before;
    r.after = *after;
    r.ratio = before->bw_bytes > 0 ? after->bw_bytes / before->bw_bytes : 0;
    // The seed's figures describe the seed's setup: compare only that.
    if (!ov.any()) {
      r.checks = check_against_seed(r.seed, r.before, r.after);
      for (auto& c : r.checks) r.within = r.within && c.within;
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace rs::scenario
