// The report formats that are text without charts: CSV (one row per job per
// run with the headline figures and the ratio against the first run) and
// JSON (the documents merged, with the same comparison).
#pragma once
#include <string>
#include <vector>

#include "report/report_model.hpp"

namespace rs::report {

// Header line, then one line per job per run; RFC 4180 quoting.
std::string render_csv(const ReportModel& model);
// {"format": "raidscope-report", "kind", "results": [{"name", "result"}],
//  "comparison": [{"run", "job", "bw_bytes", "iops", "bw_ratio", "iops_ratio"}]}
std::string render_json(const ReportModel& model, const std::vector<NamedResult>& results);

// One row per job per run, as the CSV and the report's figure table show it.
struct ComparisonRow {
  size_t run = 0;
  const JobFigures* job = nullptr;
  std::optional<double> bw_ratio, iops_ratio;  // against the first run's matching job
};
std::vector<ComparisonRow> comparison_rows(const ReportModel& model);

}  // namespace rs::report
