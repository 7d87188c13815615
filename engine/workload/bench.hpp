// A benchmark run as one engine object, the headless twin of the GUI's
// Benchmark page: it builds the target (an array of members with optional
// emulated disks, a file or block device laid out if new, or the null
// target), applies the tunables asked for, runs the jobs with a telemetry
// sampler, changes tunables at the times asked (--set-at: the slider,
// headless), can fail a member mid-run, and stops cleanly on cancel. The
// CLI parses, calls and prints; nothing here prints.
//
// On an array the run is a client of the array's open session
// (session/array_session.hpp): the one given in the spec (the GUI's: no
// second assemble), or one it opens for the run (the CLI's one-shot case).
// Its tunable changes and a failed member are the session's commands, its
// telemetry comes from the session's sampler, and a session that closes
// while it runs stops it.
#pragma once
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "balance/policy.hpp"
#include "base/result.hpp"
#include "io/device_profile.hpp"
#include "raid/array.hpp"
#include "session/array_session.hpp"
#include "telemetry/sampler.hpp"
#include "workload/job_log.hpp"
#include "workload/job_options.hpp"
#include "workload/runner.hpp"
#include "workload/target.hpp"

namespace rs::workload {

struct TimedSet {
  double at_s = 0;  // seconds after the run starts
  std::string name, value;
};

struct BenchSpec {
  std::vector<JobOptions> jobs;
  OptionList global_options;
  // Writes the log files jobs ask for (fio::open_job_logs); a job that asks
  // for one is refused without it.
  JobLogOpener job_logs;

  // The target: an open array session, or array members (a session is
  // opened for the run), else the jobs' filename (or null).
  std::shared_ptr<session::ArraySession> session;
  std::vector<std::string> array_members;
  bool run_degraded = false;          // mdadm's --run for the array
  bool start_dirty_degraded = false;  // start it degraded before its resync finished, on purpose
  bool readonly = false;  // fio's --readonly: no file is created or extended (write jobs are refused before)
  bool force = false;     // write jobs over a file that holds a signature
  std::vector<std::string> profile_dirs;  // where device profiles are found (device_profile tunable)

  // Before the run. The read policy is typed: the edge that read its name
  // (the CLI's --policy, the GUI) parsed it, and it reaches the mirror as
  // the enum (balance::kReadPolicy); `set` is text for any tunable, read
  // once by the array's registry.
  std::optional<balance::PolicyId> read_policy;
  std::vector<std::pair<std::string, std::string>> set;     // tunable name (rdN/name) -> value
  std::vector<std::pair<int, io::DeviceProfile>> profiles;  // member (-1: every member) -> emulated disk
  double profile_scale = 1.0;

  // During the run.
  std::vector<TimedSet> set_at;
  std::optional<std::pair<int, double>> fail_member_at;  // member, seconds
  // Telemetry rate, 1..50, of the session the run opens (and of a file's
  // run); a given session keeps the rate its owner chose.
  unsigned sample_hz = 10;
};

// What the session tells its caller besides the results (printed by the CLI).
struct BenchNotes {
  std::vector<std::string> warnings;  // sparse members, rejected members, ...
  std::vector<std::string> info;      // host probe, laid-out files, ...
};

class BenchSession {
 public:
  // Builds and checks everything before any I/O: bad options are
  // Errc::invalid_argument (usage), a target that cannot be opened or
  // written another code. Nothing is written on failure.
  static Result<std::unique_ptr<BenchSession>> open(BenchSpec spec, BenchNotes* notes);
  ~BenchSession();

  Target& target() { return *target_; }
  // The array (until close()); null for other targets.
  raid::Array* array() { return array_; }
  session::ArraySession* array_session() { return session_.get(); }
  const std::shared_ptr<session::ArraySession>& array_session_ptr() const { return session_; }
  const BenchSpec& spec() const { return spec_; }
  telemetry::TunableRegistry* tunables() { return array_ ? &array_->tunables() : nullptr; }

  // Runs the jobs. `on_sample` (optional) gets every telemetry sample on the
  // sampler thread; `progress.cancel` stops the run cleanly (jobs stop
  // issuing, what was measured is returned). Events (set-at, failures) are
  // recorded in the array's event log and appear in the samples.
  RunOutcome run(RunProgress& progress, std::function<void(const telemetry::Sample&)> on_sample,
                 BenchNotes* notes);
  // Leaves the array's session, and closes it (clean mark) when the run
  // opened it; the target and array() are gone after. Called by the
  // destructor too.
  Status close();

 private:
  BenchSession() = default;
  Status open_target(BenchNotes* notes);
  // The array branch: the session (given or opened), the run's client, the
  // tunables and profiles asked for.
  Status open_array(BenchNotes* notes);
  Status check_live_settings();
  // The session is closing: the run stops as on cancel.
  void stop_for_session();
  // Jobs on files of their own (file_set.hpp): every file laid out as fio's
  // setup_files does, then a FileSetTarget over them.
  Status open_file_set(BenchNotes* notes);
  void unlink_files();
  Status apply_profiles(BenchNotes* notes);

  BenchSpec spec_;
  std::shared_ptr<session::ArraySession> session_;
  bool own_session_ = false;  // opened for this run: closed with it
  session::Client client_;
  raid::Array* array_ = nullptr;  // client_'s, while attached
  std::unique_ptr<Target> target_;
  std::mutex stop_mutex_;
  RunProgress* running_ = nullptr;   // under stop_mutex_
  bool stop_asked_ = false;          // under stop_mutex_
  telemetry::EventLog file_events_;  // events for non-array targets
};

// Lays out a new file of `bytes` for a job, as fio does before reading it:
// checks the directory and free space first, writes pseudo-random data in
// large aligned pieces. `progress` (optional) is called with bytes done.
Status lay_out_file(const std::string& path, uint64_t bytes, const std::function<void(uint64_t)>& progress);

// fio's extend_file for a multi-file job: makes `path` (created if needed)
// at least `bytes` long, reserving the space, and writes pseudo-random data
// into the new part when `fill` (a job reads it; a write-only job's file is
// only reserved, as fio does with overwrite=0).
Status extend_file(const std::string& path, uint64_t bytes, bool fill,
                   JobOptions::Fallocate mode = JobOptions::Fallocate::posix);

}  // namespace rs::workload
