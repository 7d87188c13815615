// Workload commands: bench (the fio-equivalent load generator on an array,
// a file, a block device or the null target) and simulate (seed scenarios
// on the simulator).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "args.hpp"
#include "commands.hpp"
#include "discovery/signature.hpp"
#include "io/device_profile.hpp"
#include "io/uring_backend.hpp"
#include "raid/array.hpp"
#include "resources.hpp"
#include "workload/fio_json.hpp"
#include "workload/fio_text.hpp"
#include "workload/job_parser.hpp"
#include "workload/runner.hpp"
#include "workload/scenario.hpp"
#include "workload/targets.hpp"

namespace rs::cli {
namespace {

using workload::JobOptions;

const char* kBenchHelp = R"(usage: raidscope-cli bench [JOBFILE...] [FIO OPTIONS] [TARGET] [OPTIONS]

FIO OPTIONS   fio's command-line job options (--name=NAME starts a job;
              options before the first --name apply to all jobs): --rw, --bs,
              --size, --offset, --iodepth, --numjobs, --runtime, --time_based,
              --ramp_time, --direct, --rwmixread, --randseed, --verify, ...
              Without --name and without a job file, one job named "bench".
TARGET        --array=M1,M2,...   an array (its members, comma separated)
              --filename=PATH     a file or block device (fio's option)
              --filename=null or --ioengine=null: the null target
OPTIONS       --policy=NAME       read policy: md-legacy md-rr btrfs-pid btrfs-rr btrfs-qlen
              --member-profile=PROFILE | INDEX=PROFILE   emulate a device per member
              --profile-scale=F   slow every profile by F (0 < F <= 1)
              --min-contig-read=BYTES --rot-round-down=N --nonrot-round-down=N
              --io-opt=INDEX=BYTES  override a member's optimal I/O size (repeatable)
              --write-mostly=INDEX  mark a member write-mostly (repeatable)
              --fail-member=INDEX@SECONDS   fail a member while the run goes on
              --output-format=normal|json   --output=FILE   --force
)";

const char* kSimulateHelp = R"(usage: raidscope-cli simulate --list
       raidscope-cli simulate --scenario=NAME [--json] [--policy-before=NAME]
              [--policy-after=NAME] [--members=P1,P2,...|--profile=PROFILE]
              [--min-contig-read=BYTES] [--rot-round-down=N] [--nonrot-round-down=N]
              [FIO OPTIONS replacing the scenario's: --bs= --iodepth= --rw= --runtime= ...]
)";

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string item; std::getline(ss, item, sep);)
    if (!item.empty()) out.push_back(item);
  return out;
}

// Takes our own `--key=value` options (and flags) out of argv, leaving fio's.
struct Split {
  std::map<std::string, std::vector<std::string>> ours;
  std::vector<std::string> fio;
};
Split split_args(const Argv& argv, const std::set<std::string>& valued, const std::set<std::string>& flags) {
  Split s;
  for (const auto& a : argv) {
    if (a.rfind("--", 0) == 0) {
      std::string key = a.substr(2), val;
      auto eq = key.find('=');
      if (eq != std::string::npos) val = key.substr(eq + 1), key = key.substr(0, eq);
      if (flags.count(key)) {
        if (eq != std::string::npos) throw UsageError("option --" + key + " takes no value");
        s.ours[key].push_back("");
        continue;
      }
      if (valued.count(key)) {
        if (eq == std::string::npos)
          throw UsageError("option --" + key + " needs a value (--" + key + "=...)");
        s.ours[key].push_back(val);
        continue;
      }
    }
    s.fio.push_back(a);
  }
  return s;
}

std::optional<std::string> one(const Split& s, const std::string& key) {
  auto it = s.ours.find(key);
  if (it == s.ours.end()) return std::nullopt;
  if (it->second.size() > 1) throw UsageError("option --" + key + " given twice");
  return it->second[0];
}

uint32_t parse_u32(const std::string& key, const std::string& text) {
  auto v = parse_size(text);
  if (!v || *v > 0xffffffffull) throw UsageError("--" + key + "=" + text + " is not a valid number");
  return uint32_t(*v);
}

// Tunables from the command line, validated (exit 2 on a bad value).
std::optional<balance::Tunables> tunables_from(const Split& s) {
  balance::Tunables t;
  bool any = false;
  if (auto v = one(s, "min-contig-read")) t.min_contig_read = parse_u32("min-contig-read", *v), any = true;
  if (auto v = one(s, "rot-round-down")) t.rot_round_down = parse_u32("rot-round-down", *v), any = true;
  if (auto v = one(s, "nonrot-round-down"))
    t.nonrot_round_down = parse_u32("nonrot-round-down", *v), any = true;
  if (!any) return std::nullopt;
  std::string err = balance::validate(t);
  if (!err.empty()) throw UsageError(err);
  return t;
}

balance::PolicyId policy_or_usage(const std::string& name) {
  auto p = balance::policy_from_name(name);
  if (!p) {
    std::string known;
    for (auto n : balance::policy_names()) known += (known.empty() ? "" : ", ") + std::string(n);
    throw UsageError("unknown policy '" + name + "' (known: " + known + ")");
  }
  return *p;
}

// A profile by name (resources/profiles/NAME.json) or by path to a JSON file.
io::DeviceProfile profile_or_usage(const std::string& name) {
  std::string err;
  const bool is_path = name.find('/') != std::string::npos || name.ends_with(".json");
  auto p =
      is_path ? io::load_profile_file(name, &err) : io::find_profile(name, resource_dirs("profiles"), &err);
  if (!p) throw UsageError(err);
  return *p;
}

// How fast the host reads the first member (1 MiB reads, 8 in flight, a
// quarter second): the ceiling for emulated members sharing it.
double probe_host_bandwidth(io::MemberDevice& dev, uint64_t data_offset, uint64_t span) {
  constexpr uint32_t kBlock = 1 << 20;
  constexpr unsigned kDepth = 8;
  io::MemberDevice* devs[] = {&dev};
  auto backend = io::make_real_backend(devs, kDepth);
  io::AlignedBuffer buf(size_t(kBlock) * kDepth);
  struct Probe {
    uint64_t bytes = 0;
    std::vector<io::MemberIo*> free;
  } probe;
  std::vector<io::MemberIo> ios(kDepth);
  for (size_t i = 0; i < ios.size(); ++i) {
    ios[i].buffer = buf.data() + i * kBlock;
    ios[i].member = 0;
    ios[i].length = kBlock;
    ios[i].owner = &probe;
    ios[i].done = [](io::MemberIo& m, int res) {
      auto* p = static_cast<Probe*>(m.owner);
      if (res > 0) p->bytes += uint64_t(res);
      p->free.push_back(&m);
    };
    probe.free.push_back(&ios[i]);
  }
  const uint64_t blocks = std::max<uint64_t>(span / kBlock, 1);
  uint64_t next = 0;
  const uint64_t start = io::monotonic_ns();
  while (io::monotonic_ns() - start < 250000000ull) {
    while (!probe.free.empty()) {
      io::MemberIo* m = probe.free.back();
      probe.free.pop_back();
      m->offset = data_offset + (next++ % blocks) * kBlock;
      backend->queue(*m);
    }
    backend->reap(1);
  }
  while (backend->in_flight()) backend->reap(1);
  return double(probe.bytes) / (double(io::monotonic_ns() - start) / 1e9);
}

// Reads of a sparse image file's holes return zeros without touching the
// disk (O_DIRECT or not), so a read benchmark there measures the filesystem.
// Says so for every regular file that is less than 90 % allocated.
void warn_sparse_files(const std::vector<std::string>& paths) {
  for (const auto& path : paths) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) continue;
    const double allocated = double(st.st_blocks) * 512.0 / double(st.st_size);
    if (allocated >= 0.9) continue;
    std::fprintf(stderr,
                 "raidscope-cli bench: warning: %s is sparse (%.0f%% of its %lld MiB allocated): reads of "
                 "parts never written return zeros without reaching the disk; write the region first for "
                 "disk figures\n",
                 path.c_str(), 100.0 * allocated, static_cast<long long>(st.st_size >> 20));
  }
}

std::string mb(double bytes_per_s) {
  char buf[32];
  if (bytes_per_s >= 1e9)
    std::snprintf(buf, sizeof buf, "%.2f GB/s", bytes_per_s / 1e9);
  else
    std::snprintf(buf, sizeof buf, "%.1f MB/s", bytes_per_s / 1e6);
  return buf;
}

std::string shares(const std::vector<double>& v) {
  std::string s;
  for (double x : v) {
    if (!s.empty()) s += "/";
    s += std::to_string(int(std::lround(x * 100)));
  }
  return s.empty() ? "-" : s;
}

}  // namespace

int cmd_bench(const Argv& argv) {
  for (auto& a : argv)
    if (a == "--help" || a == "-h") {
      std::fputs(kBenchHelp, stdout);
      return 0;
    }
  Split s =
      split_args(argv,
                 {"array", "policy", "member-profile", "profile-scale", "min-contig-read", "rot-round-down",
                  "nonrot-round-down", "fail-member", "output", "io-opt", "write-mostly"},
                 {"force"});
  bool has_name = false, has_file = false;
  for (auto& a : s.fio) {
    if (a.rfind("--name", 0) == 0) has_name = true;
    if (a.rfind("-", 0) != 0) has_file = true;
  }
  if (!has_name && !has_file) s.fio.insert(s.fio.begin(), "--name=bench");
  workload::CliParseResult parsed = workload::parse_cli_job(s.fio);
  if (!parsed.ok) throw UsageError(parsed.error);
  std::vector<JobOptions> jobs = parsed.jobs;
  for (const auto& file : parsed.job_files) {
    std::ifstream f(file);
    if (!f) throw UsageError("cannot read job file " + file);
    std::stringstream text;
    text << f.rdbuf();
    auto r = workload::parse_job_file(text.str(), file, parsed.global);
    if (!r.ok) throw UsageError(r.error);
    for (auto& w : r.warnings) std::fprintf(stderr, "raidscope-cli bench: warning: %s\n", w.c_str());
    jobs.insert(jobs.end(), r.jobs.begin(), r.jobs.end());
  }
  for (auto& w : parsed.warnings) std::fprintf(stderr, "raidscope-cli bench: warning: %s\n", w.c_str());
  if (jobs.empty()) throw UsageError("no job given");

  auto tunables = tunables_from(s);
  std::optional<balance::PolicyId> policy;
  if (auto p = one(s, "policy")) policy = policy_or_usage(*p);
  double profile_scale = 1.0;
  if (auto v = one(s, "profile-scale")) {
    char* end = nullptr;
    profile_scale = std::strtod(v->c_str(), &end);
    if (!end || *end || !(profile_scale > 0 && profile_scale <= 1))
      throw UsageError("--profile-scale=" + *v + " must be a number above 0 and at most 1");
  }
  std::vector<std::pair<int, io::DeviceProfile>> profiles;  // index -1: every member
  if (s.ours.count("member-profile"))
    for (auto& spec : s.ours["member-profile"]) {
      auto eq = spec.find('=');
      if (eq == std::string::npos) {
        profiles.push_back({-1, profile_or_usage(spec)});
      } else {
        const std::string idx = spec.substr(0, eq);
        if (idx.empty() || idx.find_first_not_of("0123456789") != std::string::npos)
          throw UsageError("--member-profile=" + spec + ": expected PROFILE or INDEX=PROFILE");
        profiles.push_back({std::stoi(idx), profile_or_usage(spec.substr(eq + 1))});
      }
    }
  int fail_index = -1;
  double fail_after_s = 0;
  if (auto v = one(s, "fail-member")) {
    auto at = v->find('@');
    try {
      if (at == std::string::npos) throw std::invalid_argument("no @");
      fail_index = std::stoi(v->substr(0, at));
      fail_after_s = std::stod(v->substr(at + 1));
    } catch (...) {
      throw UsageError("--fail-member=" + *v + ": expected INDEX@SECONDS, e.g. 1@2.5");
    }
  }

  // ---- the target ----
  std::unique_ptr<raid::Array> array;
  std::unique_ptr<workload::Target> target;
  if (auto a = one(s, "array")) {
    auto members = split(*a, ',');
    std::string err;
    array = raid::Array::assemble(members, &err);
    if (!array) throw RuntimeError(err);
    if (policy) array->set_policy(*policy);
    if (tunables && !array->set_tunables(*tunables, &err)) throw UsageError(err);
    auto member_index = [&](const std::string& opt, const std::string& text) {
      if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos ||
          std::stoul(text) >= unsigned(array->raid_disks()))
        throw UsageError("--" + opt + ": '" + text + "' is not a member index (0.." +
                         std::to_string(array->raid_disks() - 1) + ")");
      return int(std::stoul(text));
    };
    if (s.ours.count("io-opt"))
      for (auto& spec : s.ours["io-opt"]) {
        auto eq = spec.find('=');
        if (eq == std::string::npos) throw UsageError("--io-opt=" + spec + ": expected INDEX=BYTES");
        auto bytes = parse_size(spec.substr(eq + 1));
        if (!bytes || *bytes % 512 || *bytes > (64u << 20))
          throw UsageError("--io-opt=" + spec + ": bytes must be a multiple of 512 up to 64M");
        array->slot(member_index("io-opt", spec.substr(0, eq))).io_opt_override = uint32_t(*bytes);
      }
    if (s.ours.count("write-mostly"))
      for (auto& spec : s.ours["write-mostly"])
        array->slot(member_index("write-mostly", spec)).write_mostly = true;
    for (auto& [idx, prof] : profiles) {
      if (idx >= array->raid_disks())
        throw UsageError("--member-profile index " + std::to_string(idx) + " is beyond the array's " +
                         std::to_string(array->raid_disks()) + " members");
    }
    if (!profiles.empty()) {
      // Emulated members share the host disk: their sum must fit in it.
      double need = 0;
      std::vector<std::optional<io::DeviceProfile>> per(size_t(array->raid_disks()));
      for (auto& [idx, prof] : profiles)
        for (int i = 0; i < array->raid_disks(); ++i)
          if (idx < 0 || idx == i) per[size_t(i)] = prof;
      for (auto& p : per)
        if (p) {
          p->scale *= profile_scale;
          need += p->seq_read_bw * p->scale;
        }
      io::MemberDevice* first = nullptr;
      for (int i = 0; i < array->raid_disks() && !first; ++i) first = array->slot(i).dev.get();
      const double host =
          first ? probe_host_bandwidth(*first, array->geometry().data_offset * 512,
                                       std::min<uint64_t>(array->geometry().dev_sectors * 512, 1ull << 30))
                : 0;
      std::fprintf(stderr, "host probe: %s from %s; emulated members need %s together\n", mb(host).c_str(),
                   first ? first->path().c_str() : "-", mb(need).c_str());
      if (need > 0.9 * host)
        throw RuntimeError("the member profiles need " + mb(need) + " together but the host disk delivered " +
                           mb(host) + " in a quick probe; slow them with --profile-scale=" +
                           std::to_string(std::floor(host * 0.8 / need * 100) / 100).substr(0, 4) +
                           " or use fewer/slower profiles");
      for (int i = 0; i < array->raid_disks(); ++i)
        if (per[size_t(i)] && array->slot(i).dev)
          array->slot(i).dev->set_model(io::make_model(*per[size_t(i)]));
    }
    target = std::make_unique<workload::ArrayTarget>(*array);
  } else {
    if (policy || tunables || !profiles.empty() || s.ours.count("io-opt") || s.ours.count("write-mostly"))
      throw UsageError(
          "--policy, --member-profile, --io-opt, --write-mostly and the policy tunables need --array=...");
    std::string filename;
    bool null_target = false;
    uint64_t size = 0;
    bool writes = false;
    for (auto& j : jobs) {
      if (j.ioengine == workload::IoEngine::null || j.filename == "null")
        null_target = true;
      else if (!j.filename.empty()) {
        if (!filename.empty() && filename != j.filename)
          throw UsageError("jobs name different files (" + filename + ", " + j.filename +
                           "); bench drives one target per run");
        filename = j.filename;
      }
      size = std::max(size, j.size + j.offset);
      writes |= workload::does_write(j.rw);
    }
    if (null_target) {
      target = std::make_unique<workload::NullTarget>(size ? size : (1ull << 30));
    } else if (filename.empty()) {
      throw UsageError("no target: give --array=MEMBER,MEMBER,... or --filename=PATH (or --filename=null)");
    } else {
      std::error_code ec;
      if (!std::filesystem::exists(filename, ec)) {
        if (!size) throw UsageError(filename + " does not exist; give --size to create it");
        // fio lays a new file out before reading it: so do we.
        std::fprintf(stderr, "laying out %s (%llu MiB)\n", filename.c_str(),
                     (unsigned long long)(size >> 20));
        std::ofstream f(filename, std::ios::binary);
        std::vector<char> block(1 << 20);
        for (uint64_t done = 0; done < size; done += block.size()) {
          for (auto& c : block) c = char(std::rand());
          f.write(block.data(), std::streamsize(std::min<uint64_t>(block.size(), size - done)));
        }
        if (!f) throw RuntimeError(filename + ": cannot lay out the file");
      } else if (writes && !s.ours.count("force")) {
        if (std::string why = discovery::block_device_in_use(filename); !why.empty())
          throw RuntimeError(filename + ": refusing to write: " + why);
        std::string sig = discovery::existing_signature(filename);
        if (!sig.empty())
          throw RuntimeError(filename + ": holds " + sig + "; a write job would destroy it (use --force)");
      }
      std::string err;
      auto dev =
          io::MemberDevice::open(filename, writes ? io::OpenMode::ReadWrite : io::OpenMode::ReadOnly, &err);
      if (!dev) throw RuntimeError(err);
      target = std::make_unique<workload::DeviceTarget>(std::move(dev));
    }
  }
  std::string bad = workload::check_jobs(jobs, *target);
  if (!bad.empty()) throw UsageError(bad);
  if (std::any_of(jobs.begin(), jobs.end(), [](const auto& j) { return workload::does_read(j.rw); })) {
    std::vector<std::string> files;
    for (const auto& m : target->members()) files.push_back(m.path);
    warn_sparse_files(files);
  }

  // ---- run, with progress and an optional member failure ----
  workload::RunProgress progress;
  std::atomic<bool> running{true};
  const uint64_t plan_bytes = workload::planned_bytes(jobs), plan_ns = workload::planned_ns(jobs);
  std::thread monitor([&] {
    if (!::isatty(2)) return;
    const uint64_t t0 = io::monotonic_ns();
    uint64_t last_bytes = 0, last_ios = 0, last_t = t0;
    while (running) {
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      const uint64_t now = io::monotonic_ns(), b = progress.bytes, n = progress.ios;
      const double dt = double(now - last_t) / 1e9, el = double(now - t0) / 1e9;
      double pct = plan_bytes ? 100.0 * double(b) / double(plan_bytes)
                   : plan_ns  ? 100.0 * el * 1e9 / double(plan_ns)
                              : 0;
      pct = std::min(pct, 100.0);
      const double eta = pct > 0 ? el * (100 - pct) / pct : 0;
      std::fprintf(stderr, "\rJobs: [%5.1f%%] [%s, %.0f IOPS] [eta %.0fs]   ", pct,
                   mb(double(b - last_bytes) / dt).c_str(), double(n - last_ios) / dt, eta);
      last_bytes = b, last_ios = n, last_t = now;
    }
    std::fprintf(stderr, "\r%70s\r", "");
  });
  std::thread failer;
  if (fail_index >= 0) {
    if (!array) throw UsageError("--fail-member needs --array=...");
    if (fail_index >= array->raid_disks()) throw UsageError("--fail-member index is beyond the array");
    failer = std::thread([&] {
      const uint64_t until = io::monotonic_ns() + uint64_t(fail_after_s * 1e9);
      while (running && io::monotonic_ns() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      if (!running) return;
      std::string err;
      if (array->fail_member(fail_index, "failed during the benchmark (--fail-member)", &err))
        std::fprintf(stderr, "\nmember %d failed at %.1fs\n", fail_index, fail_after_s);
      else
        std::fprintf(stderr, "\ncould not fail member %d: %s\n", fail_index, err.c_str());
    });
  }
  workload::RunOutcome run = workload::run_jobs(jobs, parsed.global.given, *target, &progress);
  running = false;
  monitor.join();
  if (failer.joinable()) failer.join();
  if (array) {
    std::string err;
    if (!array->close(&err)) std::fprintf(stderr, "raidscope-cli bench: warning: %s\n", err.c_str());
  }

  const std::string text = parsed.output_format == workload::OutputFormat::json
                               ? workload::format_fio_json(run.results)
                               : workload::format_fio_normal(run.results);
  if (auto out = one(s, "output")) {
    std::ofstream f(*out);
    f << text;
    if (!f) throw RuntimeError("cannot write " + *out);
  } else {
    std::fputs(text.c_str(), stdout);
  }
  int status = 0;
  for (auto& m : run.verify_messages)
    std::fprintf(stderr, "raidscope-cli bench: %s\n", m.c_str()), status = 1;
  for (auto& j : run.results.jobs)
    if (j.error) {
      std::fprintf(stderr, "raidscope-cli bench: job %s: %s\n", j.jobname.c_str(),
                   j.error_text.empty() ? std::strerror(j.error) : j.error_text.c_str());
      status = 1;
    }
  return status;
}

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
