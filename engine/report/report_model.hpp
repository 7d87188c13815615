// What a report shows, taken out of one or more result documents: the
// headline figures of every job of every run, ratios against the first run,
// read shares, latency percentiles and the telemetry over time. The HTML,
// PDF, CSV and JSON writers all start from here, so they say the same.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "report/result_doc.hpp"

namespace rs::report {

// A loaded result and the name it is shown under (its file name).
struct NamedResult {
  std::string name;
  Json doc;
};

struct Percentile {
  double p = 0;   // 50, 99, 99.9 ...
  double us = 0;  // completion latency in microseconds
};

struct DirFigures {
  bool present = false;  // the job did I/O in this direction
  double bw_bytes = 0, iops = 0, mean_us = 0;
  std::vector<Percentile> percentiles;

  // The 99th percentile completion latency, if the job's output had it.
  std::optional<double> p99_us() const {
    for (auto& p : percentiles)
      if (p.p == 99) return p.us;
    return std::nullopt;
  }
};

struct JobFigures {
  std::string name;
  DirFigures read, write;
  double bw_bytes = 0, iops = 0;  // both directions
  double mean_us = 0;             // simulate rows: mean latency (no percentiles)
  std::vector<std::pair<std::string, double>> read_share;  // member -> share 0..1
};

struct SeriesLine {
  std::string name;
  std::vector<double> y;  // one per time point
};

// One chart's worth of telemetry: lines over the samples' times.
struct TimeChart {
  std::string title, unit;
  std::vector<SeriesLine> lines;
};

struct Mark {
  double t = 0;
  std::string label;  // "read_policy=md-rr", "member /dev/x faulty"
};

struct RunReport {
  std::string name, kind, created;
  Json host, array;  // as in the document
  std::string target, policy;
  std::vector<std::vector<std::string>> tunables;  // rows: name, start, end
  std::vector<JobFigures> jobs;
  std::vector<double> t;  // telemetry sample times, seconds
  std::vector<TimeChart> charts;
  std::vector<Mark> marks;
};

struct ReportModel {
  std::string kind;  // the runs' kind, or "mixed"
  std::vector<RunReport> runs;
};

// Checks every document and that all are of one kind (unless `force`); the
// errors name the file. Errc::invalid_argument for refused input.
Result<ReportModel> build_model(const std::vector<NamedResult>& results, bool force);

// The job of `run` that `job` of another run compares with: same name, else
// same position; nullptr when neither exists.
const JobFigures* matching_job(const RunReport& run, const JobFigures& job, size_t index);
// ratio of a to b, or nullopt when b is 0.
std::optional<double> ratio(double a, double b);

// Figures as people read them: "123.4 MB/s", "1.23 GB/s", "12.3k", "x1.25".
std::string fmt_bw(double bytes_per_s);
std::string fmt_iops(double iops);
std::string fmt_us(double us);
std::string fmt_ratio(std::optional<double> r);
std::string fmt_share(double share);  // "48.2%"

}  // namespace rs::report
