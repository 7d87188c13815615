#include "report/report_model.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "report/result_file.hpp"

namespace rs::report {

namespace {

double num(const Json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return 0;
  return j[key].get<double>();
}

std::string str(const Json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_string()) return "";
  return j[key].get<std::string>();
}

// The percentiles a report charts, from fio's full list.
const double kShownPercentiles[] = {50, 90, 99, 99.9};

DirFigures dir_figures(const Json& d) {
  DirFigures f;
  f.present = num(d, "total_ios") > 0;
  f.bw_bytes = num(d, "bw_bytes");
  f.iops = num(d, "iops");
  const Json clat = d.value("clat_ns", Json::object());
  f.mean_us = num(clat, "mean") / 1000;
  if (clat.contains("percentile") && clat["percentile"].is_object())
    for (double p : kShownPercentiles) {
      char key[32];
      std::snprintf(key, sizeof key, "%f", p);
      if (clat["percentile"].contains(key) && clat["percentile"][key].is_number())
        f.percentiles.push_back({p, clat["percentile"][key].get<double>() / 1000});
    }
  return f;
}

std::vector<JobFigures> bench_jobs(const Json& doc) {
  std::vector<JobFigures> out;
  for (const auto& j : doc["fio"]["jobs"]) {
    JobFigures f;
    f.name = str(j, "jobname");
    f.read = dir_figures(j.value("read", Json::object()));
    f.write = dir_figures(j.value("write", Json::object()));
    f.bw_bytes = f.read.bw_bytes + f.write.bw_bytes;
    f.iops = f.read.iops + f.write.iops;
    const double ios = (f.read.present ? f.read.iops : 0) + (f.write.present ? f.write.iops : 0);
    f.mean_us = ios > 0 ? (f.read.mean_us * f.read.iops + f.write.mean_us * f.write.iops) / ios : 0;
    if (j.contains("raidscope") && j["raidscope"].contains("members"))
      for (const auto& m : j["raidscope"]["members"]) f.read_share.push_back({str(m, "path"), num(m, "read_share")});
    out.push_back(std::move(f));
  }
  return out;
}

// A simulate row becomes two jobs: the row with the policy before and after.
std::vector<JobFigures> simulate_jobs(const Json& doc) {
  std::vector<JobFigures> out;
  for (const auto& sc : doc["scenarios"])
    for (const auto& row : sc.value("rows", Json::array()))
      for (const char* when : {"before", "after"}) {
        const Json f = row.value(when, Json::object());
        JobFigures j;
        j.name = str(row, "label") + " [" + str(row, (std::string("policy_") + when).c_str()) + "]";
        j.bw_bytes = num(f, "bw_bytes");
        j.iops = num(f, "iops");
        j.mean_us = num(f, "mean_clat_us");
        const Json members = row.value("members", Json::array());
        const Json shares = f.value("read_share", Json::array());
        for (size_t i = 0; i < shares.size(); ++i)
          j.read_share.push_back({"rd" + std::to_string(i) + (i < members.size() && members[i].is_string()
                                                                  ? " " + members[i].get<std::string>()
                                                                  : ""),
                                  shares[i].is_number() ? shares[i].get<double>() : 0});
        out.push_back(std::move(j));
      }
  return out;
}

std::string join_values(const Json& values) {
  std::string s;
  if (!values.is_array()) return s;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) s += ", ";
    s += values[i].is_string() ? values[i].get<std::string>() : values[i].dump();
  }
  return s;
}

std::vector<std::vector<std::string>> tunable_rows(const Json& tunables) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& t : tunables) {
    if (!t.is_object()) continue;
    // bench: {name, start, end}; simulate: {name, value}
    const std::string start = join_values(t.contains("start") ? t["start"] : Json::array({t.value("value", Json())}));
    const std::string end = t.contains("end") ? join_values(t["end"]) : start;
    rows.push_back({str(t, "name"), start, end == start ? "" : end});
  }
  return rows;
}

// Telemetry samples -> time charts: bandwidth, read share and pending depth
// per member, and every numeric section value (RAID5 stripe queues...).
void telemetry_charts(const Json& samples, RunReport& run) {
  if (!samples.is_array() || samples.empty()) return;
  std::vector<std::string> members;
  for (const auto& s : samples)
    for (const auto& m : s.value("members", Json::array()))
      if (std::find(members.begin(), members.end(), str(m, "name")) == members.end()) members.push_back(str(m, "name"));
  TimeChart bw{"Bandwidth over time", "MB/s", {{"read", {}}, {"write", {}}}};
  TimeChart share{"Read share per member over time", "%", {}};
  TimeChart pending{"Pending I/Os per member over time (time average)", "I/Os", {}};
  for (auto& m : members) share.lines.push_back({m, {}}), pending.lines.push_back({m, {}});
  std::map<std::string, TimeChart> sections;  // by section name
  std::vector<std::string> section_order;
  size_t n = 0;
  for (const auto& s : samples) {
    run.t.push_back(num(s, "t"));
    const Json a = s.value("array", Json::object());
    bw.lines[0].y.push_back(num(a, "read_bw_bytes") / 1e6);
    bw.lines[1].y.push_back(num(a, "write_bw_bytes") / 1e6);
    for (size_t i = 0; i < members.size(); ++i) {
      double sh = 0, pd = 0;
      for (const auto& m : s.value("members", Json::array()))
        if (str(m, "name") == members[i]) sh = num(m, "read_share") * 100, pd = num(m, "avg_pending");
      share.lines[i].y.push_back(sh);
      pending.lines[i].y.push_back(pd);
    }
    const Json sample_sections = s.value("sections", Json::object());  // items() must not outlive it
    for (const auto& [sec, values] : sample_sections.items()) {
      if (!sections.count(sec)) section_order.push_back(sec), sections[sec] = {sec + " over time", "", {}};
      TimeChart& c = sections[sec];
      for (const auto& [key, v] : values.items()) {
        if (!v.is_number()) continue;
        auto it = std::find_if(c.lines.begin(), c.lines.end(), [&](auto& l) { return l.name == key; });
        if (it == c.lines.end()) c.lines.push_back({key, std::vector<double>(n, 0.0)}), it = c.lines.end() - 1;
        it->y.push_back(v.get<double>());
      }
    }
    ++n;
    for (auto& [name, c] : sections)  // a key missing in this sample counts as 0
      for (auto& l : c.lines) l.y.resize(n, 0.0);
    for (const auto& e : s.value("events", Json::array())) {
      std::string label = e.contains("tunable") ? str(e, "tunable") + "=" + str(e, "value")
                                                : str(e, "kind") + " " + str(e, "name") + " " + str(e, "value");
      run.marks.push_back({num(e, "t"), label});
    }
  }
  run.charts.push_back(std::move(bw));
  if (!members.empty()) {
    run.charts.push_back(std::move(share));
    run.charts.push_back(std::move(pending));
  }
  for (auto& sec : section_order) run.charts.push_back(std::move(sections[sec]));
}

}  // namespace

Result<ReportModel> build_model(const std::vector<NamedResult>& results, bool force) {
  if (results.empty()) return make_error(Errc::invalid_argument, "no result given");
  ReportModel model;
  for (const auto& r : results) {
    if (Status st = check_result(r.doc, r.name); !st) return st.error();
    const std::string kind = r.doc["kind"];
    if (model.kind.empty()) {
      model.kind = kind;
    } else if (kind != model.kind && model.kind != "mixed") {
      if (!force)
        return make_error(Errc::invalid_argument,
                          r.name + ": a " + kind + " result, but " + results.front().name + " is a " + model.kind +
                              " result; comparing different kinds needs --force");
      model.kind = "mixed";
    }
    RunReport run;
    run.name = r.name;
    run.kind = kind;
    run.created = str(r.doc, "created");
    run.host = r.doc.value("host", Json::object());
    run.array = r.doc.value("array", Json());
    run.target = str(r.doc, "target");
    run.policy = str(r.doc, "policy");
    run.tunables = tunable_rows(r.doc.value("tunables", Json::array()));
    run.jobs = kind == "bench" ? bench_jobs(r.doc) : simulate_jobs(r.doc);
    telemetry_charts(r.doc.value("telemetry", Json::array()), run);
    model.runs.push_back(std::move(run));
  }
  return model;
}

const JobFigures* matching_job(const RunReport& run, const JobFigures& job, size_t index) {
  for (const auto& j : run.jobs)
    if (j.name == job.name) return &j;
  return index < run.jobs.size() ? &run.jobs[index] : nullptr;
}

std::optional<double> ratio(double a, double b) {
  if (!(b > 0) || !std::isfinite(a)) return std::nullopt;
  return a / b;
}

std::string fmt_bw(double b) {
  char buf[32];
  if (b >= 1e9)
    std::snprintf(buf, sizeof buf, "%.2f GB/s", b / 1e9);
  else
    std::snprintf(buf, sizeof buf, "%.1f MB/s", b / 1e6);
  return buf;
}

std::string fmt_iops(double v) {
  char buf[32];
  if (v >= 1e6)
    std::snprintf(buf, sizeof buf, "%.2fM", v / 1e6);
  else if (v >= 1e4)
    std::snprintf(buf, sizeof buf, "%.1fk", v / 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

std::string fmt_us(double us) {
  char buf[32];
  if (us >= 10000)
    std::snprintf(buf, sizeof buf, "%.1f ms", us / 1000);
  else if (us >= 100)
    std::snprintf(buf, sizeof buf, "%.0f us", us);
  else
    std::snprintf(buf, sizeof buf, "%.1f us", us);
  return buf;
}

std::string fmt_ratio(std::optional<double> r) {
  if (!r) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "x%.2f", *r);
  return buf;
}

std::string fmt_share(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", share * 100);
  return buf;
}

}  // namespace rs::report
