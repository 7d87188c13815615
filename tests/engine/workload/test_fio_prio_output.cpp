// fio 3.33's per-priority latency output (issue 16; stat.c
// show_ddir_status and add_ddir_status_json): a job with cmdprio_* keeps
// latency figures per priority, the job's own first and then each cmdprio
// value once (engines/cmdprio.c), and prints them ("clat prio C/L" lines,
// "clat prio C/L (N% of IOs) percentiles" blocks, JSON "prios") only when
// two or more priorities have samples. Expected values are Linux's ioprio
// encoding (class << 13 | level) and counts of the I/Os run.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "../../common/needs_uring.hpp"
#include "../../common/temp_dir.hpp"
#include "fio/json_output.hpp"
#include "fio/normal_output.hpp"
#include "fio_run_on_file.hpp"
#include "workload/io_priority.hpp"

using namespace rs;
using namespace rs::workload;
using namespace rs::fio;

TEST_CASE("the priorities fio keeps figures for: the job's, then each cmdprio once", "[fio][prio]") {
  auto prios = [](std::vector<std::string> args, int ddir) {
    return IoPriorities(fio_test::parse_one_job(std::move(args)), 1).stat_prios(ddir);
  };
  // prioclass=3 (idle 0x6000), 20 % at class 1 (RT 0x2000).
  CHECK(prios({"--name=a", "--prioclass=3", "--cmdprio_percentage=20", "--cmdprio_class=1"}, 0) ==
        std::vector<uint16_t>{0x6000, 0x2000});
  // No prio options: the job's is 0. bssplit entries in order, an entry
  // without a priority takes cmdprio_class/cmdprio's (2/5: 0x4005), once.
  CHECK(
      prios({"--name=b", "--cmdprio_bssplit=4k/10/1/1:8k/20:16k/30/1/1", "--cmdprio_class=2", "--cmdprio=5"},
            1) == std::vector<uint16_t>{0, 0x2001, 0x4005});
  // A cmdprio equal to the job's own is the same entry; no share: none.
  CHECK(prios({"--name=c", "--prioclass=1", "--cmdprio_percentage=50", "--cmdprio_class=1"}, 0) ==
        std::vector<uint16_t>{0x2000});
  CHECK(prios({"--name=d", "--cmdprio_percentage=0,30", "--cmdprio_class=1"}, 0).empty());
}

TEST_CASE("per-priority latency: clat prio lines, percentile blocks and JSON prios as fio 3.33",
          "[fio][prio][needs-uring]") {
  rs::test::require_uring();
  test::TempDir dir("rs-prio-out");
  const std::string path = dir.file("data");
  fio_test::write_filled_file(path, 8ull << 20);
  std::vector<std::string> args = {
      "--name=r",    "--ioengine=libaio", "--rw=randread", "--bs=4k",           "--direct=1",
      "--iodepth=4", "--size=8m",         "--prioclass=3", "--cmdprio_class=1", "--cmdprio_percentage=25",
      "--numjobs=2", "--group_reporting"};
  auto out = fio_test::run_on_file(path, args);
  REQUIRE(out.results.jobs.size() == 2);
  for (const JobResults& j : out.results.jobs) {
    REQUIRE(j.read.prios.size() == 2);
    CHECK(j.read.prios[0].ioprio == 0x6000);
    CHECK(j.read.prios[1].ioprio == 0x2000);
    // Every I/O in one of them: 8 MiB / 4 KiB = 2048 per clone.
    CHECK(j.read.prios[0].lat.count() + j.read.prios[1].lat.count() == 2048);
    CHECK(j.read.prios[1].lat.count() > 400);  // 25 % of 2048 is 512, sigma 20
    CHECK(j.read.prios[1].lat.count() < 620);
  }
  const std::string text = format_fio_normal(out.results);
  INFO(text);
  CHECK(text.find("    clat prio 3/0 (") != std::string::npos);
  CHECK(text.find("    clat prio 1/0 (") != std::string::npos);
  // group_reporting: one entry, the clones' counts added.
  const auto merged = reported_jobs(out.results);
  REQUIRE(merged.size() == 1);
  const uint64_t rt = merged[0].read.prios[1].lat.count();
  char share[64];
  std::snprintf(share, sizeof share, "clat prio 1/0 (%.2f%% of IOs) percentiles", 100.0 * double(rt) / 4096);
  CHECK(text.find(share) != std::string::npos);
  const auto json = nlohmann::json::parse(format_fio_json(out.results));
  const auto& p = json["jobs"][0]["read"]["prios"];
  REQUIRE(p.size() == 2);
  CHECK(p[0]["prioclass"] == 3);
  CHECK(p[0]["prio"] == 0);
  CHECK(p[1]["prioclass"] == 1);
  CHECK(p[1]["clat_ns"]["N"] == rt);
  CHECK(p[0]["clat_ns"]["N"].get<uint64_t>() + rt == 4096);
  CHECK(p[1]["clat_ns"]["percentile"].size() == 17);

  // Without cmdprio (one priority): no prio lines, no "prios".
  out = fio_test::run_on_file(path, {"--name=r", "--ioengine=libaio", "--rw=randread", "--bs=4k",
                                     "--direct=1", "--size=1m", "--prioclass=3"});
  CHECK(format_fio_normal(out.results).find(" prio ") == std::string::npos);
  CHECK_FALSE(nlohmann::json::parse(format_fio_json(out.results))["jobs"][0]["read"].contains("prios"));
}
