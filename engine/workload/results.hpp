// The result model of one workload run: what the job runner fills while and
// after jobs run, and what the fio-format writers (fio/json_output.hpp, fio/normal_output.hpp) read.
//
// Units follow fio's internals so the writers can apply fio's own formulas:
// latencies and times in nanoseconds, bytes in bytes, bandwidth samples in
// KiB/s, IOPS samples in I/Os per second. Derived figures (bw, iops, runtime
// in ms, percentages) are computed by the writers, never stored twice.
//
// group_reporting: the runner always fills one JobResults per job thread
// (numjobs expanded). reported_jobs() merges them the way fio does, and
// group_status() computes fio's "Run status group" lines from the result.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "workload/latency_histogram.hpp"

namespace rs::workload {

using OptionList = std::vector<std::pair<std::string, std::string>>;  // as written, in order

// One direction (read or write) of one job: fio's per-ddir thread_stat fields.
struct DirectionResults {
  uint64_t io_bytes = 0;      // bytes transferred by completed I/Os
  uint64_t total_ios = 0;     // completed I/Os (fio total_io_u)
  uint64_t short_ios = 0;     // completed with fewer bytes than asked
  uint64_t drop_ios = 0;      // dropped (not issued)
  uint64_t runtime_ns = 0;    // time this job spent in this direction's phase (0: did not run it)
  LatencyHistogram slat;      // submission latency: start of issue .. handed to the backend
  LatencyHistogram clat;      // completion latency: handed to the backend .. completion
  LatencyHistogram lat;       // total: start of issue .. completion
  RunningStats bw_samples;    // optional: one sample per bw_avg_time interval, in KiB/s
  RunningStats iops_samples;  // optional: one sample per iops_avg_time interval, in IO/s
  // fio's per-priority latency (ts->clat_prio): a job with cmdprio_* keeps
  // one entry per priority its I/Os of this direction may get, the job's
  // own first (fio's order); completion latency, or total latency with
  // lat_percentiles. The writers show them when two or more have samples.
  struct PrioLatency {
    uint16_t ioprio = 0;  // class << 13 | level
    LatencyHistogram lat;
  };
  std::vector<PrioLatency> prios;
  // The entries that have samples, when two or more have (fio's rule); else none.
  std::vector<const PrioLatency*> shown_prios() const;

  // fio keeps runtime in whole ms, rounded up (backend.c update_runtime).
  uint64_t runtime_ms() const noexcept { return (runtime_ns + 999'999) / 1'000'000; }
  // Bytes per second and I/Os per second over runtime_ms(), as fio computes them.
  uint64_t bw_bytes() const noexcept;
  double iops() const noexcept;
  // Whole I/Os per second (rounded down), as fio's normal and terse outputs print them.
  uint64_t iops_whole() const noexcept;
};

// fio's completion-latency distribution (io_u_lat_n/u/m): counts of clat per
// band of both directions, shown as latency_ns/us/ms. Each band counts
// latencies below its key and at or above the previous key; the ms ">=2000"
// band takes everything from 2 s up.
struct LatencyDistribution {
  static constexpr std::array<unsigned, 10> kEdges = {2, 4, 10, 20, 50, 100, 250, 500, 750, 1000};
  std::array<uint64_t, 10> ns{};
  std::array<uint64_t, 10> us{};
  std::array<uint64_t, 12> ms{};  // ms[10] is "2000" (1000..1999 ms), ms[11] is ">=2000"

  // Hot path: O(1), no allocation.
  void record(uint64_t clat_ns) noexcept;
  void merge(const LatencyDistribution& other) noexcept;
  // For a runner that did not call record(): approximates the bands from a
  // clat histogram, placing each bucket by its reported value (exact below
  // 128 ns, within a bucket width above).
  void add_histogram(const LatencyHistogram& clat) noexcept;
  uint64_t total() const noexcept;
};

// fio's I/O depth distributions (io_u_map, io_u_submit, io_u_complete).
struct DepthDistribution {
  std::array<uint64_t, 7> level{};     // by depth in flight: 1, 2, 4, 8, 16, 32, >=64
  std::array<uint64_t, 7> submit{};    // by I/Os per submit call: 0, 1-4, 5-8, 9-16, 17-32, 33-64, >64
  std::array<uint64_t, 7> complete{};  // by I/Os per reap call, same bands
  uint64_t total_submit = 0;           // submit calls
  uint64_t total_complete = 0;         // reap calls that returned I/Os

  // `ios` I/Os were issued while `depth` were in flight (fio io_u_mark_depth).
  void record_depth(unsigned depth, unsigned ios) noexcept;
  void record_submit(unsigned ios) noexcept;    // one submit call that passed `ios` I/Os
  void record_complete(unsigned ios) noexcept;  // one reap call that returned `ios` I/Os
  void merge(const DepthDistribution& other) noexcept;
};

// RaidScope's own figures for one member device of the array a job drove.
struct MemberShare {
  std::string path;
  uint64_t reads = 0;
  uint64_t read_bytes = 0;
  double read_share = 0.0;  // reads / all member reads of the array in this job, 0..1
  uint64_t writes = 0;
  uint64_t write_bytes = 0;
  double mean_pending = 0.0;  // time-average of nr_pending over the job's run
};

// The "raidscope" extension of a job. Member counters are those attributable
// to this job (deltas over its run), so a group's figures are their sums.
struct RaidscopeJobExtension {
  std::string target;   // Target::describe()
  std::string policy;   // read-balancing policy name, empty if not an array
  std::string engine;   // what ran for this job (JobIo::engine), never only what was asked
  std::string io_mode;  // "buffered (page cache)", "direct (O_DIRECT)", ... (JobIo::io_mode)
  std::vector<MemberShare> members;
};

// fio's steady-state figures of a job (its JSON "steadystate" section and
// the normal output's "steadystate" line): steady_state.hpp fills them.
struct SteadyStateReport {
  bool iops = true;      // iops or bw samples are judged
  bool slope = false;    // the slope, or the largest deviation from the mean
  bool percent = false;  // the limit and criterion are percentages of the mean
  double limit = 0;
  uint64_t duration_s = 0;  // ss_dur, whole seconds
  bool attained = false;
  double criterion = 0;  // the last window's slope or deviation (percent of the mean with `percent`)
  double max_deviation = 0, slope_value = 0;
  // The last window's samples, oldest first, padded with zeros to its
  // length while it has not filled: I/Os per second and bytes per second.
  std::vector<uint64_t> iops_data, bw_data;
};
// fio's mean of a window: the sum over its length, in whole units.
inline uint64_t steady_mean(const std::vector<uint64_t>& window) {
  uint64_t sum = 0;
  for (uint64_t v : window) sum += v;
  return window.empty() ? 0 : sum / window.size();
}

struct JobResults {
  std::string jobname;
  std::string description;  // fio's description=, printed when not empty
  int groupid = 0;
  bool group_reporting = false;  // this job's group_reporting option
  unsigned members = 1;          // jobs merged into this entry (fio jobs=N); the runner leaves 1
  int pid = 0;                   // shown in the text header
  int error = 0;                 // errno value of the first error, 0 = none
  std::string error_text;        // fio's verror; strerror(error) when empty
  OptionList options;            // "job options": the job's own options as written

  DirectionResults read;
  DirectionResults write;
  DirectionResults trim;  // rw=trim, randtrim, trimwrite (fio's DDIR_TRIM)
  DirectionResults& dir(int ddir) { return ddir == 0 ? read : ddir == 1 ? write : trim; }
  const DirectionResults& dir(int ddir) const { return ddir == 0 ? read : ddir == 1 ? write : trim; }

  uint64_t job_runtime_ns = 0;  // fio total_run_time: the job's whole run, ramp excluded
  uint64_t elapsed_sec = 0;     // fio "elapsed": seconds since the run started
  double usr_cpu = 0.0;         // percent of job_runtime spent in user mode
  double sys_cpu = 0.0;         // percent of job_runtime spent in the kernel
  uint64_t ctx = 0;             // context switches (voluntary + involuntary)
  uint64_t majf = 0;            // major page faults, 0 if not measured
  // fio's "sync" figures: the fsyncs fsync=N issued (fio counts DDIR_SYNC
  // only: fdatasync, sync_file_range and end_fsync are not in them).
  uint64_t sync_ios = 0;
  LatencyHistogram sync_lat;
  uint64_t minf = 0;               // minor page faults, 0 if not measured
  unsigned iodepth = 1;            // shown as latency_depth: with a latency target, the depth it ended at
  uint64_t zone_resets = 0;        // zonemode=zbd: zones this job reset (fio's nr_zone_resets)
  uint64_t latency_target_ns = 0;  // fio's latency_target, latency_window (us), latency_percentile
  uint64_t latency_window_us = 0;
  double latency_percentile = 100.0;

  LatencyDistribution latency_dist;
  DepthDistribution depth_dist;

  // Percentiles to report; empty means fio's default list. Entries outside
  // (0, 100] are ignored; the writers sort the list like fio does.
  std::vector<double> percentile_list;
  // Decimals in the text percentile block; -1: 2 for the default list, else
  // the most decimals any entry needs (fio counts them as the user wrote them).
  int percentile_precision = -1;
  bool clat_percentiles = true;
  bool lat_percentiles = false;
  bool slat_percentiles = false;
  unsigned unified_rw_reporting = 0;  // fio's: 0 each direction, 1 one "mixed" direction, 2 both

  std::optional<SteadyStateReport> steadystate;  // a job with ss_dur
  std::optional<RaidscopeJobExtension> raidscope;
};

struct RunResults {
  std::string raidscope_version;  // e.g. "0.1.0"; goes into "fio version"
  int64_t timestamp_ms = 0;       // wall clock (ms since the epoch) when the run ended
  OptionList global_options;      // "global options" as written
  std::vector<JobResults> jobs;   // one per job thread, in start order
  int sig_figs = 4;               // fio sig_figs: digits in the text output's numbers
  // What the run said besides its figures (fio's log_info lines: a file
  // laid out, a depth capped): fio prints them on its output, not stderr.
  std::vector<std::string> messages;
};

// A run's figures as the output writers take them, for the final report and
// a --status-interval dump alike: this program's version, the wall clock
// now, the run's global options and its jobs (sig_figs at fio's default).
RunResults make_run_results(OptionList global_options, std::vector<JobResults> jobs);

// fio's "Run status group" figures for one group, per direction (0 read, 1 write, 2 trim).
struct GroupDirStatus {
  uint64_t io_bytes = 0;
  uint64_t agg_bw = 0;  // B/s: io_bytes over the slowest member's runtime
  uint64_t min_bw = 0;  // B/s, slowest reported entry
  uint64_t max_bw = 0;  // B/s, fastest reported entry
  uint64_t min_run_ms = 0;
  uint64_t max_run_ms = 0;  // 0: nothing in this direction
};
struct GroupStatus {
  int groupid = 0;
  std::array<GroupDirStatus, 3> dir;
};

inline constexpr std::array<double, 17> kFioDefaultPercentiles = {1,  5,  10, 20, 30,   40,   50,    60,   70,
                                                                  80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};

// "raidscope-<version> (fio-3.33 compatible)": tools that look for fio's
// version find "fio-3.33" in it, and nobody mistakes us for fio.
std::string fio_version_string(const RunResults& run);

// The entries fio would report: consecutive jobs of one group with
// group_reporting merged into one (fio __show_run_stats / sum_thread_stats),
// every other job as it is.
std::vector<JobResults> reported_jobs(const RunResults& run);
// fio's mixed direction (gen_mixed_ddir_stats_from_ts): reads, writes and
// trims summed as one, for unified_rw_reporting.
DirectionResults mixed_direction(const JobResults& job);
// Merges `src` into `dst` the way fio sums a job into its group's entry.
void merge_into_group(JobResults& dst, const JobResults& src);
// One entry per groupid present, ascending, computed over reported entries.
std::vector<GroupStatus> group_status(const std::vector<JobResults>& reported);

// The list to report for a job (its own or fio's default), sorted, filtered.
std::vector<double> effective_percentiles(const JobResults& job);
// The decimals the text block shows for that list.
int effective_percentile_precision(const JobResults& job);
// fio's "bw_agg"/"per=": a job's mean sampled bandwidth as a percentage of
// its group's aggregate (fio convert_agg_kbytes_percent), capped at 100.
double bw_percent_of_group(const GroupDirStatus& group, double mean_kib);

}  // namespace rs::workload
