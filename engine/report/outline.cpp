#include "report/outline.hpp"

#include <algorithm>
#include <cstdio>

#include "report/text_reports.hpp"

namespace rs::report {

namespace {

using Kind = Block::Kind;

Block heading(std::string s) {
  return {Kind::heading, std::move(s), {}, {}};
}
Block paragraph(std::string s) {
  return {Kind::paragraph, std::move(s), {}, {}};
}
Block table(std::string caption, std::vector<std::vector<std::string>> rows) {
  return {Kind::table, std::move(caption), std::move(rows), {}};
}
Block chart(Chart c) {
  return {Kind::chart, "", {}, std::move(c)};
}

std::string jstr(const Json& j, const char* key) {
  if (!j.is_object() || !j.contains(key)) return "";
  return j[key].is_string() ? j[key].get<std::string>() : j[key].dump();
}

std::string bytes_text(const Json& j, const char* key) {
  if (!j.is_object() || !j.contains(key) || !j[key].is_number()) return "";
  const double b = j[key].get<double>();
  char buf[32];
  if (b >= double(1ull << 30))
    std::snprintf(buf, sizeof buf, "%.1f GiB", b / double(1ull << 30));
  else if (b >= double(1 << 20))
    std::snprintf(buf, sizeof buf, "%.1f MiB", b / double(1 << 20));
  else
    std::snprintf(buf, sizeof buf, "%.0f KiB", b / 1024);
  return buf;
}

// "run 2 · randread" when there are several runs, else the job's name.
std::string run_job(const ReportModel& m, size_t run, const JobFigures& j) {
  return m.runs.size() > 1 ? "run " + std::to_string(run + 1) + " \u00b7 " + j.name : j.name;
}

Block summary_table(const ReportModel& m) {
  const bool several = m.runs.size() > 1;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> head = {"Run", "Job", "Read", "Read IOPS", "Write", "Write IOPS", "p99 latency", "Read + write"};
  if (several) head.insert(head.end(), {"Bandwidth vs run 1", "IOPS vs run 1"});
  rows.push_back(head);
  for (const auto& r : comparison_rows(m)) {
    const JobFigures& j = *r.job;
    auto dir = [](const DirFigures& d, bool bw) { return d.present ? (bw ? fmt_bw(d.bw_bytes) : fmt_iops(d.iops)) : "-"; };
    const DirFigures* latency_dir = j.read.present ? &j.read : j.write.present ? &j.write : nullptr;
    const std::optional<double> p99 = latency_dir ? latency_dir->p99_us() : std::nullopt;
    std::string lat = p99 ? fmt_us(*p99) : "-";
    if (lat == "-" && j.mean_us > 0) lat = fmt_us(j.mean_us) + " (mean)";
    std::vector<std::string> row = {std::to_string(r.run + 1) + ": " + m.runs[r.run].name,
                                    j.name,
                                    dir(j.read, true),
                                    dir(j.read, false),
                                    dir(j.write, true),
                                    dir(j.write, false),
                                    lat,
                                    fmt_bw(j.bw_bytes)};
    if (several) row.insert(row.end(), {fmt_ratio(r.bw_ratio), fmt_ratio(r.iops_ratio)});
    rows.push_back(row);
  }
  return table("Headline figures per job" + std::string(several ? "; ratios against run 1's job of the same name" : ""),
               rows);
}

// Bars per job (categories) and run (series).
std::vector<Block> bar_charts(const ReportModel& m) {
  std::vector<std::string> jobs;
  for (auto& run : m.runs)
    for (auto& j : run.jobs)
      if (std::find(jobs.begin(), jobs.end(), j.name) == jobs.end()) jobs.push_back(j.name);
  std::vector<BarSeries> bw, iops;
  for (size_t r = 0; r < m.runs.size(); ++r) {
    const std::string name = m.runs.size() > 1 ? "run " + std::to_string(r + 1) + ": " + m.runs[r].name : m.runs[r].name;
    BarSeries b{name, {}}, i{name, {}};
    for (auto& job : jobs) {
      double vb = 0, vi = 0;
      for (auto& j : m.runs[r].jobs)
        if (j.name == job) vb = j.bw_bytes / 1e6, vi = j.iops;
      b.values.push_back(vb), i.values.push_back(vi);
    }
    bw.push_back(b), iops.push_back(i);
  }
  return {chart(bar_chart("Bandwidth per job", "job", "MB/s (read + write)", jobs, bw)),
          chart(bar_chart("IOPS per job", "job", "I/Os per second", jobs, iops))};
}

// Completion latency percentiles, one series per run, job and direction.
std::vector<Block> latency_chart(const ReportModel& m) {
  std::vector<BarSeries> series;
  std::vector<std::string> cats;
  for (size_t r = 0; r < m.runs.size(); ++r)
    for (auto& j : m.runs[r].jobs)
      for (auto [dir, name] : {std::pair{&j.read, "read"}, std::pair{&j.write, "write"}}) {
        if (!dir->present || dir->percentiles.empty() || series.size() >= 10) continue;
        BarSeries s{run_job(m, r, j) + " " + name, {}};
        std::vector<std::string> c;
        for (auto& p : dir->percentiles) {
          char buf[16];
          std::snprintf(buf, sizeof buf, "p%g", p.p);
          c.push_back(buf), s.values.push_back(p.us);
        }
        if (c.size() > cats.size()) cats = c;
        series.push_back(s);
      }
  if (series.empty()) return {};
  return {chart(bar_chart("Completion latency percentiles", "percentile", "microseconds", cats, series))};
}

std::vector<Block> share_charts(const ReportModel& m) {
  std::vector<ShareRow> rows;
  for (size_t r = 0; r < m.runs.size(); ++r)
    for (auto& j : m.runs[r].jobs)
      if (!j.read_share.empty()) rows.push_back({run_job(m, r, j), j.read_share});
  if (rows.empty()) return {};
  return {chart(share_chart("Read share per member", rows))};
}

std::vector<Block> run_section(const ReportModel& m, size_t index) {
  const RunReport& run = m.runs[index];
  std::vector<Block> out;
  out.push_back(heading("Run " + std::to_string(index + 1) + ": " + run.name));
  std::string facts = "A " + run.kind + " result made " + run.created + " on " + jstr(run.host, "kernel") + " (" +
                      jstr(run.host, "machine") + "), " + jstr(run.host, "cpus") + " \u00d7 " + jstr(run.host, "cpu") +
                      ", raidscope " + jstr(run.host, "raidscope_version") + ".";
  if (!run.target.empty()) facts += " Target: " + run.target + ".";
  if (!run.policy.empty()) facts += " Read policy at the start: " + run.policy + ".";
  out.push_back(paragraph(facts));
  if (run.array.is_object()) {
    const Json& a = run.array;
    out.push_back(table("Array geometry", {{"Level", "Layout", "Chunk", "Size", "Members", "State"},
                                           {jstr(a, "level"), jstr(a, "layout").empty() ? "-" : jstr(a, "layout"),
                                            bytes_text(a, "chunk_bytes").empty() || jstr(a, "chunk_bytes") == "0"
                                                ? "-"
                                                : bytes_text(a, "chunk_bytes"),
                                            bytes_text(a, "size_bytes"), jstr(a, "raid_devices"), jstr(a, "state")}}));
    std::vector<std::vector<std::string>> members = {{"Role", "Device", "State", "Emulated disk", "Rotational", "Size"}};
    for (const auto& mem : a.value("members", Json::array()))
      members.push_back({jstr(mem, "role"), jstr(mem, "path"), jstr(mem, "state"), jstr(mem, "profile"),
                         jstr(mem, "rotational") == "true" ? "yes" : "no", bytes_text(mem, "size_bytes")});
    out.push_back(table("Members", members));
  }
  if (!run.tunables.empty()) {
    std::vector<std::vector<std::string>> rows = {{"Tunable", "Value at the start", "Value at the end (when changed)"}};
    for (auto& t : run.tunables) rows.push_back(t);
    out.push_back(table("Policy and tunables", rows));
  }
  if (!run.marks.empty()) {
    std::vector<std::vector<std::string>> rows = {{"Time (s)", "Event"}};
    for (auto& mk : run.marks) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.2f", mk.t);
      rows.push_back({buf, mk.label});
    }
    out.push_back(table("Events during the run (dashed lines in the charts below)", rows));
  }
  if (!run.charts.empty()) {
    for (const auto& c : run.charts) out.push_back(chart(line_chart(c.title, c.unit.empty() ? "value" : c.unit, run.t, c.lines, run.marks)));
  } else if (run.kind == "bench") {
    out.push_back(paragraph("No telemetry samples were recorded in this run."));
  }
  return out;
}

}  // namespace

std::vector<Block> report_outline(const ReportModel& m) {
  std::vector<Block> out;
  const bool several = m.runs.size() > 1;
  out.push_back({Kind::title, several ? "RaidScope comparison of " + std::to_string(m.runs.size()) + " runs"
                                      : "RaidScope " + m.kind + " report: " + m.runs[0].name,
                 {}, {}});
  std::string intro = several ? "Runs compared against run 1 (" + m.runs[0].name + "): " : "Run: ";
  for (size_t r = 0; r < m.runs.size(); ++r)
    intro += (r ? ", " : "") + std::to_string(r + 1) + " = " + m.runs[r].name + " (" + m.runs[r].kind + ", " +
             m.runs[r].created + ")";
  out.push_back(paragraph(intro + "."));
  out.push_back(heading("Summary"));
  out.push_back(summary_table(m));
  for (auto& b : bar_charts(m)) out.push_back(std::move(b));
  for (auto& b : latency_chart(m)) out.push_back(std::move(b));
  for (auto& b : share_charts(m)) out.push_back(std::move(b));
  for (size_t r = 0; r < m.runs.size(); ++r)
    for (auto& b : run_section(m, r)) out.push_back(std::move(b));
  return out;
}

}  // namespace rs::report
