// bench: the fio-equivalent load generator on an array, a file, a block
// device or the null target, with live telemetry and tunables changed while
// it runs. The engine's BenchSession does the work; this parses and prints.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <optional>
#include <thread>

#include "args.hpp"
#include "bandwidth_log.hpp"
#include "base/read_file.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "fio/job_parser.hpp"
#include "fio/json_output.hpp"
#include "fio/log_compression.hpp"
#include "fio/log_files.hpp"
#include "fio/normal_output.hpp"
#include "fio/terse_output.hpp"
#include "io/uring_backend.hpp"
#include "member_failures.hpp"
#include "resources.hpp"
#include "result_capture.hpp"
#include "status_dumps.hpp"
#include "telemetry/sample.hpp"
#include "workload/bench.hpp"
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
              --section=NAME runs only that section of the job files (repeatable).
TARGET        --array=M1,M2,...   an array (its members, comma separated)
              --run               start the array even with members missing
              --force-dirty-degraded   start it degraded before its resync
                                  finished (parity may be wrong where it was
                                  being written when it stopped)
              --filename=PATH     a file or block device (fio's option); without
                                  one, fio's ./JOBNAME.JOBNUM.FILENUM
              --parse-only --readonly --eta=always|never|auto --max-jobs=N
              --debug=CATEGORIES --bandwidth-log   fio's run flags (--debug: parse's lines only)
              --filename=null or --ioengine=null: the null target
OPTIONS       --policy=NAME       read policy: md-legacy md-rr btrfs-pid btrfs-rr btrfs-qlen
              --member-profile=PROFILE | INDEX=PROFILE   emulate a device per member
              --profile-scale=F   slow every profile by F (0 < F <= 1)
              --min-contig-read=BYTES --rot-round-down=N --nonrot-round-down=N
              --io-opt=INDEX=BYTES  override a member's optimal I/O size (repeatable)
              --write-mostly=INDEX  mark a member write-mostly (repeatable)
              --set=NAME=VALUE    set a tunable before the run (see `raidscope-cli tunables`)
              --set-at=SECONDS:NAME=VALUE   change a tunable while the run goes on (repeatable)
              --fail-member=INDEX@SECONDS   fail a member while the run goes on
              --telemetry-ms=MS   telemetry sample interval (default 100, 20..1000)
              --status-interval=TIME  fio's: the whole output so far every TIME
                                  (seconds, or 500ms, 2s...), then the final one
              --telemetry=FILE.jsonl  write one JSON object per sample
              --output-format=normal|json|json+|terse (a comma list)  --minimal
              --terse-version=2..5   --output=FILE   --force
              --inflate-log=NAME.fz  print a log kept with log_store_compressed=1
              --save=FILE.json    keep the run as a result document (raidscope-cli report)
Ctrl-C stops the run cleanly and prints what was measured so far (exit 130).
)";

double parse_seconds(const std::string& opt, const std::string& text) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || !end || *end || !(v >= 0) || v > 1e7)
    throw UsageError("--" + opt + ": '" + text + "' is not a time in seconds (e.g. 2.5)");
  return v;
}

int member_index(const std::string& opt, const std::string& text) {
  if (text.empty() || text.size() > 4 || text.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError("--" + opt + ": '" + text + "' is not a member index");
  return std::stoi(text);
}

std::pair<std::string, std::string> name_value(const std::string& opt, const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0) throw UsageError("--" + opt + "=" + text + ": expected NAME=VALUE");
  return {text.substr(0, eq), text.substr(eq + 1)};
}

// Our options become engine settings: every tunable through the registry.
void fill_settings(const Split& s, workload::BenchSpec& spec) {
  auto all = [&](const std::string& key) {
    auto it = s.ours.find(key);
    return it == s.ours.end() ? std::vector<std::string>{} : it->second;
  };
  if (auto v = one(s, "array")) spec.array_members = split(*v, ',');
  spec.run_degraded = s.ours.count("run") > 0;
  spec.start_dirty_degraded = s.ours.count("force-dirty-degraded") > 0;
  spec.force = s.ours.count("force") > 0;
  if (auto p = one(s, "policy")) spec.read_policy = policy_or_usage(*p);  // parsed here, once: typed on
  for (const char* key : {"min-contig-read", "rot-round-down", "nonrot-round-down"}) {
    std::string name = key;
    std::replace(name.begin(), name.end(), '-', '_');
    if (auto v = one(s, key)) spec.set.emplace_back(name, *v);
  }
  for (auto& v : all("io-opt")) {
    auto [idx, bytes] = name_value("io-opt", v);
    spec.set.emplace_back("rd" + std::to_string(member_index("io-opt", idx)) + "/io_opt", bytes);
  }
  for (auto& v : all("write-mostly"))
    spec.set.emplace_back("rd" + std::to_string(member_index("write-mostly", v)) + "/write_mostly", "on");
  for (auto& v : all("set")) spec.set.push_back(name_value("set", v));
  for (auto& v : all("set-at")) {
    const auto colon = v.find(':');
    if (colon == std::string::npos) throw UsageError("--set-at=" + v + ": expected SECONDS:NAME=VALUE");
    auto [name, value] = name_value("set-at", v.substr(colon + 1));
    spec.set_at.push_back({parse_seconds("set-at", v.substr(0, colon)), name, value});
  }
  if (auto v = one(s, "fail-member")) {
    const auto at = v->find('@');
    if (at == std::string::npos)
      throw UsageError("--fail-member=" + *v + ": expected INDEX@SECONDS, e.g. 1@2.5");
    spec.fail_member_at = {member_index("fail-member", v->substr(0, at)),
                           parse_seconds("fail-member", v->substr(at + 1))};
  }
  if (auto v = one(s, "profile-scale")) {
    char* end = nullptr;
    spec.profile_scale = std::strtod(v->c_str(), &end);
    if (v->empty() || !end || *end || !(spec.profile_scale > 0 && spec.profile_scale <= 1))
      throw UsageError("--profile-scale=" + *v + " must be a number above 0 and at most 1");
  }
  for (auto& v : all("member-profile")) {
    const auto eq = v.find('=');
    if (eq == std::string::npos)
      spec.profiles.push_back({-1, profile_or_usage(v)});
    else
      spec.profiles.push_back(
          {member_index("member-profile", v.substr(0, eq)), profile_or_usage(v.substr(eq + 1))});
  }
  if (auto v = one(s, "telemetry-ms")) {
    const auto ms = parse_size(*v);
    if (!ms || *ms < 20 || *ms > 1000)
      throw UsageError("--telemetry-ms=" + *v +
                       ": milliseconds between telemetry samples, 20..1000 (50 Hz..1 Hz)");
    spec.sample_hz = unsigned(1000 / *ms);
  }
  spec.profile_dirs = resource_dirs("profiles");
}

std::vector<JobOptions> parse_jobs(Split& s, fio::ParsedCliJobs& parsed) {
  bool has_name = false, has_file = false;
  for (auto& a : s.fio) {
    if (a.rfind("--name", 0) == 0) has_name = true;
    if (a.rfind("-", 0) != 0) has_file = true;
  }
  const bool default_job = !has_name && !has_file;
  if (default_job) s.fio.insert(s.fio.begin(), "--name=bench");
  auto cli = fio::parse_cli_job(s.fio);
  if (!cli) throw UsageError(cli.error().message);
  parsed = std::move(*cli);
  if (default_job) parsed.parse_trace.erase(parsed.parse_trace.begin());  // our --name=bench, not the user's
  std::vector<JobOptions> jobs = parsed.jobs;
  for (const auto& file : parsed.job_files) {
    const Result<std::string> text = read_file(file);
    if (!text) throw UsageError("job file " + text.error().message);
    auto r = fio::parse_job_file(*text, file, parsed.global);
    if (!r) throw UsageError(r.error().message);
    for (auto& w : r->warnings) std::fprintf(stderr, "raidscope-cli bench: warning: %s\n", w.c_str());
    parsed.parse_trace.insert(parsed.parse_trace.end(), r->parse_trace.begin(), r->parse_trace.end());
    for (auto& job : r->jobs)
      if (parsed.sections.empty() || std::count(parsed.sections.begin(), parsed.sections.end(), job.name))
        jobs.push_back(job);
  }
  // fio runs the sections it finds and says nothing of the others; a name
  // that matches nothing is more likely a typo than a wish: say so.
  for (const auto& name : parsed.sections)
    if (std::none_of(jobs.begin(), jobs.end(), [&](const JobOptions& j) { return j.name == name; })) {
      if (parsed.job_files.empty()) throw UsageError("--section=" + name + " needs a job file");
      std::fprintf(stderr, "raidscope-cli bench: warning: --section=%s: no job section of that name\n",
                   name.c_str());
    }
  for (auto& w : parsed.warnings) std::fprintf(stderr, "raidscope-cli bench: warning: %s\n", w.c_str());
  if (jobs.empty())
    throw UsageError(parsed.sections.empty() ? "no job given" : "--section: no job section of those names");
  return jobs;
}

// fio's --debug: parse's option lines, on stdout as fio prints them
// ("parse    PID handle_option=bs, ptr=4k"); other categories' traces are
// not produced, and the output says so.
void debug_output(const fio::ParsedCliJobs& parsed, std::vector<std::string>& messages) {
  const std::vector<std::string>& cats = parsed.flags.debug;
  if (cats.empty()) return;
  const bool all = std::count(cats.begin(), cats.end(), "all") > 0;
  if (all || std::count(cats.begin(), cats.end(), "parse") > 0) {
    std::printf(all ? "fio: set all debug options\n" : "fio: set debug option parse\n");
    for (const std::string& line : parsed.parse_trace)
      std::printf("%-8s %-5u %s\n", "parse", unsigned(::getpid()), line.c_str());
    std::fflush(stdout);
  }
  if (all || std::any_of(cats.begin(), cats.end(), [](const std::string& c) { return c != "parse"; }))
    messages.push_back("note: --debug: only parse's option lines are produced, not fio's other traces");
}

// fio's status line on a terminal while the run goes on; it also turns a
// signal into a clean stop of the jobs.
class Monitor {
 public:
  // fio's --eta: the line on a terminal (auto), always (on stdout, as
  // fio's), or never.
  // With `dumps`, fio's --status-interval: a dump every `status_ns`.
  Monitor(workload::RunProgress& p, uint64_t plan_bytes, uint64_t plan_ns, fio::RunFlags::Eta eta,
          StatusDumps* dumps = nullptr, uint64_t status_ns = 0)
      : progress_(p),
        dumps_(dumps),
        status_ns_(status_ns),
        plan_bytes_(plan_bytes),
        plan_ns_(plan_ns),
        out_(eta == fio::RunFlags::Eta::always                          ? stdout
             : eta == fio::RunFlags::Eta::automatic && ::isatty(2) != 0 ? stderr
                                                                        : nullptr),
        thread_([this] { run(); }) {}
  ~Monitor() {
    {
      std::lock_guard lock(mutex_);
      running_ = false;
    }
    stopped_.notify_all();  // at once: a short run does not wait out a 50 ms nap
    thread_.join();
  }

 private:
  void run() {
    const bool tty = out_ != nullptr;
    const uint64_t t0 = io::monotonic_ns();
    uint64_t last_bytes = 0, last_ios = 0, last_t = t0, last_print = t0, next_status = t0 + status_ns_;
    for (;;) {
      {
        std::unique_lock lock(mutex_);
        if (stopped_.wait_for(lock, std::chrono::milliseconds(50), [this] { return !running_; })) break;
      }
      if (interrupted_signal()) progress_.cancel = true;
      uint64_t now = io::monotonic_ns();
      if (dumps_ && now >= next_status) {
        dumps_->dump();
        next_status += status_ns_ * (1 + (now - next_status) / status_ns_);
        now = io::monotonic_ns();
      }
      if (!tty || now - last_print < 500'000'000ull) continue;
      last_print = now;
      const uint64_t b = progress_.bytes, n = progress_.ios;
      const double dt = double(now - last_t) / 1e9, el = double(now - t0) / 1e9;
      double pct = plan_bytes_ ? 100.0 * double(b) / double(plan_bytes_)
                   : plan_ns_  ? 100.0 * el * 1e9 / double(plan_ns_)
                               : 0;
      pct = std::min(pct, 100.0);
      const double eta = pct > 0 ? el * (100 - pct) / pct : 0;
      std::fprintf(out_, "\rJobs: [%5.1f%%] [%s, %.0f IOPS] [eta %.0fs]   ", pct,
                   mb(double(b - last_bytes) / dt).c_str(), double(n - last_ios) / dt, eta);
      last_bytes = b, last_ios = n, last_t = now;
    }
    if (tty) std::fprintf(out_, "\r%70s\r", "");
  }
  workload::RunProgress& progress_;
  StatusDumps* dumps_;
  uint64_t status_ns_;
  uint64_t plan_bytes_, plan_ns_;
  std::FILE* out_;  // null: no status line
  std::mutex mutex_;
  std::condition_variable stopped_;
  bool running_ = true;  // guarded by mutex_
  std::thread thread_;   // last: started once the members above exist
};

bool writes_or_trims(const std::vector<JobOptions>& jobs) {
  return std::any_of(jobs.begin(), jobs.end(), [](const JobOptions& j) {
    return workload::does_write(j.rw) || workload::does_trim(j.rw);
  });
}

// Where each telemetry sample goes: the --telemetry file, the --save
// capture, the --bandwidth-log files (each optional; empty: nowhere).
std::function<void(const telemetry::Sample&)> sample_sink(std::ofstream& telemetry,
                                                          std::optional<ResultCapture>& capture,
                                                          std::optional<BandwidthLog>& bw_log) {
  if (!telemetry.is_open() && !capture && !bw_log) return {};
  return [&telemetry, &capture, &bw_log](const telemetry::Sample& smp) {
    if (telemetry.is_open()) telemetry << telemetry::to_json_line(smp) << '\n';
    if (capture) capture->sample(smp);
    if (bw_log) bw_log->sample(smp);
  };
}

// fio's --inflate-log=FILE: the log's text on stdout, and nothing else
// done. False when the option is not given.
bool inflate_log(const Split& s) {
  const std::optional<std::string> path = one(s, "inflate-log");
  if (!path) return false;
  if (path->empty()) throw UsageError("--inflate-log needs a file (--inflate-log=NAME.fz)");
  std::fputs(check(fio::inflate_log(*path)).c_str(), stdout);
  return true;
}

// fio's order: terse lines, then the JSON document, then normal output.
std::string format_results(const workload::RunResults& results, const fio::OutputFormats& formats) {
  std::string text;
  if (formats.terse && !formats.json && !formats.normal)  // the run's notes, which the others carry
    for (const std::string& m : results.messages) text += m + "\n";
  if (formats.terse) text += fio::format_fio_terse(results, formats.terse_version);
  if (formats.json) text += fio::format_fio_json(results, formats.json_plus);
  if (formats.normal) text += fio::format_fio_normal(results);
  return text;
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
                  "nonrot-round-down", "fail-member", "output", "io-opt", "write-mostly", "set", "set-at",
                  "telemetry-ms", "status-interval", "telemetry", "save", "inflate-log"},
                 {"force", "run", "force-dirty-degraded"});
  if (inflate_log(s)) return 0;
  fio::ParsedCliJobs parsed;
  workload::BenchSpec spec;
  spec.jobs = parse_jobs(s, parsed);
  // fio's informational lines go with the results (fio prints them on its
  // output); stderr carries only warnings and errors, as fio's.
  std::vector<std::string> messages = workload::engine_notes(spec.jobs);
  debug_output(parsed, messages);
  if (parsed.flags.readonly && writes_or_trims(spec.jobs)) {
    std::fprintf(stderr, "%s\n", fio::kReadonlyRefusal);  // fio's words, fio's exit status
    return 1;
  }
  spec.global_options = parsed.global.given;
  spec.job_logs = fio::open_job_logs;
  fill_settings(s, spec);
  const auto status_text = one(s, "status-interval");
  const uint64_t status_ns = status_text ? status_interval_ns(*status_text) : 0;
  spec.readonly = parsed.flags.readonly;
  if (parsed.flags.parse_only) return 0;  // fio: the jobs read and checked, nothing run or created
  allow_unprotected_members(spec.force);
  std::ofstream telemetry;
  if (auto path = one(s, "telemetry")) {
    telemetry.open(*path, std::ios::trunc);
    if (!telemetry) throw UsageError("--telemetry=" + *path + ": cannot write there");
  }
  std::optional<std::string> output = one(s, "output");
  std::optional<ResultCapture> capture;
  if (auto path = one(s, "save")) {
    Argv command{"bench"};
    command.insert(command.end(), argv.begin(), argv.end());
    capture.emplace(*path, command);
  }

  workload::BenchNotes notes;
  auto session = workload::BenchSession::open(std::move(spec), &notes);
  messages.insert(messages.end(), notes.info.begin(), notes.info.end());
  for (auto& w : notes.warnings) std::fprintf(stderr, "raidscope-cli bench: warning: %s\n", w.c_str());
  notes = {};
  auto bench = check(std::move(session));
  if (bench->array()) warn_unprotected_members(*bench->array(), "bench");
  if (capture) capture->begin(*bench);
  std::optional<MemberFailures> failures;
  if (raid::Array* arr = bench->array()) {
    const auto& sp = bench->spec();
    const int asked = sp.fail_member_at ? sp.fail_member_at->first : -1;
    failures.emplace(*arr, bench->array_session_ptr(), true,
                     asked >= 0 && asked < arr->raid_disks() ? (*arr->table())[asked].name : "");
  }

  workload::RunProgress progress;
  std::optional<StatusDumps> dumps;
  if (status_ns)
    dumps.emplace(
        progress, bench->spec().global_options,
        [&parsed](const workload::RunResults& r) { return format_results(r, parsed.flags.output); }, !output);
  std::optional<BandwidthLog> bw_log;
  if (parsed.flags.bandwidth_log) bw_log.emplace();
  const auto on_sample = sample_sink(telemetry, capture, bw_log);
  workload::RunOutcome run;
  {
    Monitor monitor(progress, workload::planned_bytes(bench->spec().jobs),
                    workload::planned_ns(bench->spec().jobs), parsed.flags.eta, dumps ? &*dumps : nullptr,
                    status_ns);
    run = bench->run(progress, on_sample, &notes);
  }
  for (auto& w : notes.warnings) std::fprintf(stderr, "raidscope-cli bench: warning: %s\n", w.c_str());
  if (bw_log) bw_log->finish();
  if (capture) capture->end(*bench);
  if (Status st = bench->close(); !st)
    std::fprintf(stderr, "raidscope-cli bench: warning: %s\n", st.error().message.c_str());
  if (telemetry.is_open() && !telemetry.flush()) throw RuntimeError("writing the telemetry file failed");

  run.results.messages = std::move(messages);
  const std::string text = (dumps ? dumps->kept() : "") + format_results(run.results, parsed.flags.output);
  if (output) {
    std::ofstream f(*output);
    f << text;
    if (!f) throw RuntimeError("cannot write " + *output);
  } else {
    std::fputs(text.c_str(), stdout);
  }
  if (capture) capture->save(run.results);
  int status = 0;
  for (auto& m : run.verify_messages)
    std::fprintf(stderr, "raidscope-cli bench: %s\n", m.c_str()), status = 1;
  for (auto& j : run.results.jobs)
    if (j.error) {
      std::fprintf(stderr, "raidscope-cli bench: job %s: %s\n", j.jobname.c_str(),
                   j.error_text.empty() ? std::strerror(j.error) : j.error_text.c_str());
      status = 1;
    }
  if (failures) {
    const int degraded = failures->print();
    if (status == 0) status = degraded;
  }
  if (int sig = interrupted_signal()) {
    std::fprintf(stderr, "raidscope-cli bench: interrupted; the figures above cover the run until then\n");
    return 128 + sig;
  }
  return status;
}

}  // namespace rs::cli
