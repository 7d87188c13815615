// bench: the fio-equivalent load generator on an array, a file, a block
// device or the null target.
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
#include "workload/targets.hpp"
#include "workload_args.hpp"

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

}  // namespace rs::cli
