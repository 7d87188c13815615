// The report model and text formats over hand-made result documents: the
// expected figures are the documents' own numbers and ratios worked out by
// hand (150 MB/s over 100 MB/s is x1.50).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "report/html_report.hpp"
#include "report/report_model.hpp"
#include "report/result_file.hpp"
#include "report/svg_chart.hpp"
#include "report/text_reports.hpp"

using namespace rs::report;

namespace {

// A bench result with one job reading `bw` bytes/s at `iops`, over two members.
Json bench_doc(const std::string& job, double bw, double iops, double share0) {
  Json read = {{"io_bytes", 1000},  {"total_ios", 10}, {"bw_bytes", bw}, {"iops", iops},
               {"clat_ns", {{"mean", 2000.0}, {"percentile", {{"50.000000", 1000}, {"99.000000", 9000}}}}}};
  Json write = {{"io_bytes", 0}, {"total_ios", 0}, {"bw_bytes", 0}, {"iops", 0}};
  Json jobj = {{"jobname", job}, {"read", read}, {"write", write}};
  jobj["raidscope"] = {{"members", {{{"path", "a.img"}, {"read_share", share0}}, {{"path", "b.img"}, {"read_share", 1 - share0}}}}};
  Json d = {{"format", "raidscope-result"}, {"format_version", 1}, {"kind", "bench"}, {"created", "2026-01-01T00:00:00Z"}};
  d["host"] = {{"kernel", "Linux 6.1"}, {"machine", "x86_64"}, {"cpu", "test"}, {"cpus", 2}, {"raidscope_version", "0"}};
  d["fio"] = {{"jobs", {jobj}}};
  d["telemetry"] = Json::array({Json{{"t", 0.5},
                                     {"members", {{{"name", "a.img"}, {"read_share", 0.25}, {"avg_pending", 1.0}}}},
                                     {"array", {{"read_bw_bytes", 2e6}}},
                                     {"sections", {{"raid5", {{"stripe_queue", 3}}}}},
                                     {"events", {{{"t", 0.4}, {"tunable", "read_policy"}, {"value", "md-rr"}}}}}});
  return d;
}

Json simulate_doc() {
  Json row = {{"label", "row, one"}, {"policy_before", "md-legacy"}, {"policy_after", "md-rr"},
              {"members", {"hdd", "hdd"}}};
  row["before"] = {{"bw_bytes", 100e6}, {"iops", 100}, {"read_share", {1.0, 0.0}}, {"mean_clat_us", 10}};
  row["after"] = {{"bw_bytes", 200e6}, {"iops", 200}, {"read_share", {0.5, 0.5}}, {"mean_clat_us", 5}};
  return {{"format", "raidscope-result"}, {"format_version", 1}, {"kind", "simulate"},
          {"scenarios", {{{"scenario", "x"}, {"rows", {row}}}}}};
}

}  // namespace

TEST_CASE("the model reads a bench result's figures, shares and telemetry") {
  auto m = build_model({{"one.json", bench_doc("rr", 100e6, 1000, 0.25)}}, false);
  REQUIRE(m);
  REQUIRE(m->runs.size() == 1);
  const JobFigures& j = m->runs[0].jobs.at(0);
  CHECK(j.name == "rr");
  CHECK(j.read.present);
  CHECK_FALSE(j.write.present);
  CHECK(j.read.bw_bytes == 100e6);
  CHECK(j.read.mean_us == 2.0);
  REQUIRE(j.read.percentiles.size() == 2);
  CHECK(j.read.percentiles[1].p == 99);
  CHECK(j.read.percentiles[1].us == 9.0);
  REQUIRE(j.read_share.size() == 2);
  CHECK(j.read_share[1].second == 0.75);
  const RunReport& r = m->runs[0];
  REQUIRE(r.t == std::vector<double>{0.5});
  REQUIRE(r.marks.size() == 1);
  CHECK(r.marks[0].label == "read_policy=md-rr");
  CHECK(r.marks[0].t == 0.4);
  // bandwidth (MB/s), share, pending, and the raid5 section
  REQUIRE(r.charts.size() == 4);
  CHECK(r.charts[0].lines[0].y == std::vector<double>{2.0});
  CHECK(r.charts[1].lines[0].y == std::vector<double>{25.0});
  CHECK(r.charts[3].title == "raid5 over time");
  CHECK(r.charts[3].lines[0].y == std::vector<double>{3.0});
}

TEST_CASE("a comparison gives ratios against the first run's job of the same name") {
  auto m = build_model({{"a.json", bench_doc("rr", 100e6, 1000, 0.5)}, {"b.json", bench_doc("rr", 150e6, 500, 0.5)}},
                       false);
  REQUIRE(m);
  auto rows = comparison_rows(*m);
  REQUIRE(rows.size() == 2);
  CHECK_FALSE(rows[0].bw_ratio);
  REQUIRE(rows[1].bw_ratio);
  CHECK(*rows[1].bw_ratio == Approx(1.5));
  CHECK(*rows[1].iops_ratio == Approx(0.5));
  CHECK(fmt_ratio(rows[1].bw_ratio) == "x1.50");
  const std::string csv = render_csv(*m);
  CHECK(csv.find("\r\n2,b.json,bench,rr,150000000,500,2,9,,,,,150000000,500,2,1.5,0.5\r\n") != std::string::npos);
  const std::string html = render_html(*m);
  CHECK(html.find("x1.50") != std::string::npos);
  CHECK(html.find("150.0 MB/s") != std::string::npos);
  CHECK(html.find("100.0 MB/s") != std::string::npos);
}

TEST_CASE("mixed kinds are refused naming the file, unless forced") {
  auto m = build_model({{"a.json", bench_doc("rr", 1, 1, 0.5)}, {"sim.json", simulate_doc()}}, false);
  REQUIRE_FALSE(m);
  CHECK(m.error().is_usage());
  CHECK(m.error().message.find("sim.json") != std::string::npos);
  auto forced = build_model({{"a.json", bench_doc("rr", 1, 1, 0.5)}, {"sim.json", simulate_doc()}}, true);
  REQUIRE(forced);
  CHECK(forced->kind == "mixed");
}

TEST_CASE("a simulate row becomes a job per policy; CSV quotes a name with a comma") {
  auto m = build_model({{"s.json", simulate_doc()}}, false);
  REQUIRE(m);
  REQUIRE(m->runs[0].jobs.size() == 2);
  CHECK(m->runs[0].jobs[0].name == "row, one [md-legacy]");
  CHECK(m->runs[0].jobs[1].bw_bytes == 200e6);
  CHECK(m->runs[0].jobs[1].read_share[0].first == "rd0 hdd");
  const std::string csv = render_csv(*m);
  CHECK(csv.find(",\"row, one [md-rr]\",") != std::string::npos);
}

TEST_CASE("documents that are not results are refused with their name") {
  CHECK_FALSE(check_result(Json::array(), "x.json"));
  CHECK(check_result(Json::array(), "x.json").error().message.rfind("x.json: ", 0) == 0);
  Json wrong_version = bench_doc("rr", 1, 1, 0.5);
  wrong_version["format_version"] = 99;
  CHECK_FALSE(check_result(wrong_version, "v.json"));
  Json no_jobs = bench_doc("rr", 1, 1, 0.5);
  no_jobs.erase("fio");
  CHECK_FALSE(check_result(no_jobs, "j.json"));
  CHECK(check_result(bench_doc("rr", 1, 1, 0.5), "ok.json"));
}

TEST_CASE("write_file_atomic replaces a file whole and leaves it alone on failure") {
  const auto dir = std::filesystem::temp_directory_path() / ("rs-report-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "out.txt").string();
  REQUIRE(write_file_atomic(path, "first"));
  REQUIRE(write_file_atomic(path, "second"));
  std::ifstream f(path);
  std::stringstream text;
  text << f.rdbuf();
  CHECK(text.str() == "second");
  CHECK_FALSE(write_file_atomic((dir / "missing" / "x").string(), "x"));
  CHECK(std::distance(std::filesystem::directory_iterator(dir), {}) == 1);  // no temporary left
  std::filesystem::remove_all(dir);
}

TEST_CASE("axis steps are round numbers") {
  CHECK(nice_step(800, 5) == 200);   // 160 -> 200
  CHECK(nice_step(12.3, 5) == 2.5);  // 2.46 -> 2.5
  CHECK(nice_step(1, 5) == Approx(0.2));
  CHECK(nice_step(0, 5) == 1);
  CHECK(xml_escape("a<b&\"c\"") == "a&lt;b&amp;&quot;c&quot;");
}

TEST_CASE("the history keeps every saved result under XDG_DATA_HOME, newest first") {
  const auto dir = std::filesystem::temp_directory_path() / ("rs-history-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const char* old = std::getenv("XDG_DATA_HOME");
  const std::string saved_env = old ? old : "";
  ::setenv("XDG_DATA_HOME", dir.c_str(), 1);
  CHECK(history_dir() == (dir / "raidscope" / "results").string());
  Json a = bench_doc("rr", 1, 1, 0.5);
  a["created"] = "2026-01-01T00:00:00Z";
  Json b = bench_doc("rr", 2, 2, 0.5);
  b["created"] = "2026-01-02T00:00:00Z";
  auto pa = save_to_history(a);
  auto pa2 = save_to_history(a);  // same time stamp: a second file, not an overwrite
  auto pb = save_to_history(b);
  REQUIRE(pa);
  REQUIRE(pa2);
  REQUIRE(pb);
  CHECK(*pa != *pa2);
  const auto list = list_history();
  REQUIRE(list.size() == 3);
  CHECK(list[0] == *pb);
  auto back = load_result(*pb);
  REQUIRE(back);
  CHECK((*back)["fio"] == b["fio"]);
  CHECK_FALSE(save_to_history(Json::object()));  // not a result: refused
  if (old)
    ::setenv("XDG_DATA_HOME", saved_env.c_str(), 1);
  else
    ::unsetenv("XDG_DATA_HOME");
  std::filesystem::remove_all(dir);
}
