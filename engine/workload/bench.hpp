// A benchmark run as one engine object, the headless twin of the GUI's
// Benchmark page: it builds the target (an array of members with optional
// emulated disks, a file or block device laid out if new, or the null
// target), applies the tunables asked for, runs the jobs with a telemetry
// sampler, changes tunables at the times asked (--set-at: the slider,
// headless), can fail a member mid-run, and stops cleanly on cancel. The
// CLI parses, calls and prints; nothing here prints.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "io/device_profile.hpp"
#include "raid/array.hpp"
#include "telemetry/sampler.hpp"
#include "workload/job_options.hpp"
#include "workload/job_parser.hpp"
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

  // The target: array members, else the jobs' filename (or null).
  std::vector<std::string> array_members;
  bool run_degraded = false;              // mdadm's --run for the array
  bool force = false;                     // write jobs over a file that holds a signature
  std::vector<std::string> profile_dirs;  // where device profiles are found (device_profile tunable)

  // Before the run.
  std::vector<std::pair<std::string, std::string>> set;     // tunable name (rdN/name) -> value
  std::vector<std::pair<int, io::DeviceProfile>> profiles;  // member (-1: every member) -> emulated disk
  double profile_scale = 1.0;

  // During the run.
  std::vector<TimedSet> set_at;
  std::optional<std::pair<int, double>> fail_member_at;  // member, seconds
  unsigned sample_hz = 10;                               // telemetry rate, 1..50
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
  raid::Array* array() { return array_.get(); }
  const BenchSpec& spec() const { return spec_; }
  telemetry::TunableRegistry* tunables() { return array_ ? &array_->tunables() : nullptr; }

  // Runs the jobs. `on_sample` (optional) gets every telemetry sample on the
  // sampler thread; `progress.cancel` stops the run cleanly (jobs stop
  // issuing, what was measured is returned). Events (set-at, failures) are
  // recorded in the array's event log and appear in the samples.
  RunOutcome run(RunProgress& progress, std::function<void(const telemetry::Sample&)> on_sample,
                 BenchNotes* notes);
  // Closes the array (clean mark). Called by the destructor too.
  Status close();

 private:
  BenchSession() = default;
  Status open_target(BenchNotes* notes);
  // Jobs on files of their own (file_set.hpp): every file laid out as fio's
  // setup_files does, then a FileSetTarget over them.
  Status open_file_set(BenchNotes* notes);
  void unlink_files();
  Status apply_profiles(BenchNotes* notes);
  void register_profile_tunable();

  BenchSpec spec_;
  std::unique_ptr<raid::Array> array_;
  std::unique_ptr<Target> target_;
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
Status extend_file(const std::string& path, uint64_t bytes, bool fill);

}  // namespace rs::workload
