#include "report/text_reports.hpp"

#include <cstdio>

namespace rs::report {

namespace {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

// Plain decimal (no exponent, which spreadsheets and people misread), up to 4 decimals.
std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  std::string s = buf;
  s.erase(s.find_last_not_of('0') + 1);
  if (s.back() == '.') s.pop_back();
  return s;
}

std::string opt_number(const std::optional<double>& v) {
  return v ? number(*v) : "";
}

}  // namespace

std::vector<ComparisonRow> comparison_rows(const ReportModel& model) {
  std::vector<ComparisonRow> rows;
  for (size_t r = 0; r < model.runs.size(); ++r)
    for (size_t j = 0; j < model.runs[r].jobs.size(); ++j) {
      ComparisonRow row{r, &model.runs[r].jobs[j], std::nullopt, std::nullopt};
      if (r > 0)
        if (const JobFigures* base = matching_job(model.runs[0], *row.job, j)) {
          row.bw_ratio = ratio(row.job->bw_bytes, base->bw_bytes);
          row.iops_ratio = ratio(row.job->iops, base->iops);
        }
      rows.push_back(row);
    }
  return rows;
}

std::string render_csv(const ReportModel& model) {
  std::string out =
      "run,result,kind,job,read_bw_bytes,read_iops,read_clat_mean_us,read_clat_p99_us,"
      "write_bw_bytes,write_iops,write_clat_mean_us,write_clat_p99_us,bw_bytes,iops,mean_lat_us,"
      "bw_ratio_vs_first,iops_ratio_vs_first\r\n";
  for (const auto& row : comparison_rows(model)) {
    const RunReport& run = model.runs[row.run];
    const JobFigures& j = *row.job;
    auto dir = [](const DirFigures& d) {
      if (!d.present) return std::string(",,,");
      return number(d.bw_bytes) + "," + number(d.iops) + "," + number(d.mean_us) + "," +
             opt_number(d.p99_us());
    };
    out += std::to_string(row.run + 1) + "," + csv_field(run.name) + "," + run.kind + "," + csv_field(j.name) + "," +
           dir(j.read) + "," + dir(j.write) + "," + number(j.bw_bytes) + "," + number(j.iops) + "," +
           number(j.mean_us) + "," + opt_number(row.bw_ratio) + "," + opt_number(row.iops_ratio) + "\r\n";
  }
  return out;
}

std::string render_json(const ReportModel& model, const std::vector<NamedResult>& results) {
  Json out;
  out["format"] = "raidscope-report";
  out["kind"] = model.kind;
  auto& rs = out["results"] = Json::array();
  for (const auto& r : results) rs.push_back(Json{{"name", r.name}, {"result", r.doc}});
  auto& cmp = out["comparison"] = Json::array();
  for (const auto& row : comparison_rows(model)) {
    Json c{{"run", row.run + 1},
           {"result", model.runs[row.run].name},
           {"job", row.job->name},
           {"bw_bytes", row.job->bw_bytes},
           {"iops", row.job->iops}};
    c["bw_ratio"] = row.bw_ratio ? Json(*row.bw_ratio) : Json();
    c["iops_ratio"] = row.iops_ratio ? Json(*row.iops_ratio) : Json();
    cmp.push_back(c);
  }
  return out.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace rs::report
