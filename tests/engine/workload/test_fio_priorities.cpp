// prio, prioclass, cmdprio_percentage/_class, cmdprio, cmdprio_bssplit and
// log_prio (issue 16), as fio 3.33 has them (engines/cmdprio.c, iolog.c
// flush_samples). Expected values are Linux's ioprio encoding (class << 13
// | level; fio's ioprio_value turns class 0 into best effort, 2) and fio's
// log format, checked by hand against fio 3.33 on cmdprio-percentage.fio
// (prioclass=3, cmdprio_class=1: "0x6000" and "0x2000" lines, about 20 %
// of the latter).
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "../../common/needs_uring.hpp"
#include "../../common/result_helpers.hpp"
#include "../../common/temp_dir.hpp"
#include "fio/job_parser.hpp"
#include "fio_run_on_file.hpp"
#include "workload/io_priority.hpp"

using namespace rs;
using namespace rs::workload;
using namespace rs::fio;

namespace {

JobOptions parsed(std::vector<std::string> args) {
  auto r = parse_cli_job(args);
  INFO(rs::test::error_text(r));
  REQUIRE(r.ok());
  REQUIRE(r->jobs.size() == 1);
  return r->jobs[0];
}

std::string parse_error(std::vector<std::string> args) {
  return parse_cli_job(args).error().message;
}

// The last column of a log file, counted by value.
std::map<std::string, int> prio_column(const std::string& path) {
  std::ifstream in(path);
  REQUIRE(in);
  std::map<std::string, int> counts;
  std::string line;
  while (std::getline(in, line)) counts[line.substr(line.rfind(", ") + 2)]++;
  return counts;
}

}  // namespace

TEST_CASE("cmdprio options: fio's encodings, per direction, bssplit sorted by block size", "[fio][prio]") {
  CHECK(ioprio_value(0, 0) == 0x4000);  // class 0 is best effort
  CHECK(ioprio_value(1, 0) == 0x2000);
  CHECK(ioprio_value(3, 7) == 0x6007);

  JobOptions j = parsed({"--name=a", "--ioengine=libaio", "--cmdprio_percentage=20,30", "--cmdprio_class=1",
                         "--cmdprio=3", "--prioclass=2", "--prio=7"});
  CHECK(j.cmdprio_percentage == std::array<unsigned, 2>{20, 30});
  CHECK(j.cmdprio_class == std::array<unsigned, 2>{1, 1});
  CHECK(j.cmdprio_level == std::array<unsigned, 2>{3, 3});
  CHECK(j.prio == 7);
  CHECK(j.prioclass == 2);

  // cmdprio-bssplit.fio's second job: two shares of 64k with their own
  // priorities, 1024k at 0 % (dropped); writes 1024k/0 only (none left).
  j = parsed({"--name=b", "--cmdprio_bssplit=64k/25/1/1:64k/75/3/2:1024k/0,1024k/0"});
  REQUIRE(j.cmdprio_bssplit[0].size() == 2);
  CHECK(j.cmdprio_bssplit[0][0].bs == 65536);
  CHECK(j.cmdprio_bssplit[0][0].percent == 25);
  CHECK(j.cmdprio_bssplit[0][0].ioprio == 0x2001);
  CHECK(j.cmdprio_bssplit[0][1].ioprio == 0x6002);
  CHECK(j.cmdprio_bssplit[1].empty());
  // One list applies to both directions; sorted by block size; a fifth
  // field (later fios' hint) is ignored as fio 3.33 ignores it.
  j = parsed({"--name=c", "--cmdprio_bssplit=2M/10/2/0/3:1M/40"});
  for (int d = 0; d < 2; ++d) {
    REQUIRE(j.cmdprio_bssplit[size_t(d)].size() == 2);
    CHECK(j.cmdprio_bssplit[size_t(d)][0].bs == (1u << 20));
    CHECK(j.cmdprio_bssplit[size_t(d)][0].ioprio == -1);  // cmdprio_class / cmdprio's
    CHECK(j.cmdprio_bssplit[size_t(d)][1].ioprio == 0x4000);
  }
  CHECK(parse_error({"--name=d", "--cmdprio_bssplit=64k/60:64k/50"}).find("more than 100") !=
        std::string::npos);
  CHECK(parse_error({"--name=e", "--cmdprio_class=0"}).find("cmdprio_class") != std::string::npos);
  CHECK(parse_error({"--name=f", "--prio=8"}).find("prio") != std::string::npos);
}

TEST_CASE("cmdprio: the share of I/Os with the cmdprio priority, the rest with the job's", "[fio][prio]") {
  JobOptions j = parsed({"--name=a", "--ioengine=libaio", "--rw=randread", "--cmdprio_percentage=20",
                         "--cmdprio_class=1", "--prioclass=3"});
  IoPriorities p(j, 42);
  CHECK(p.job_ioprio() == 0x6000);
  int rt = 0, idle = 0;
  for (int i = 0; i < 10000; ++i) {
    const uint16_t v = p.pick(kDdirRead, 4096);
    rt += v == 0x2000;
    idle += v == 0x6000;
  }
  CHECK(rt + idle == 10000);
  CHECK(rt > 1800);  // 20 % of 10000, within 5 sigma (40)
  CHECK(rt < 2200);

  // bssplit: 64k I/Os 25 % 0x2001, 75 % 0x6002; 1M I/Os keep the job's (none: 0).
  j = parsed({"--name=b", "--ioengine=libaio", "--rw=randread", "--cmdprio_bssplit=64k/25/1/1:64k/75/3/2"});
  IoPriorities q(j, 7);
  CHECK(q.job_ioprio() == 0);
  std::map<uint16_t, int> seen;
  for (int i = 0; i < 10000; ++i) seen[q.pick(kDdirRead, 65536)]++;
  CHECK(seen.size() == 2);
  CHECK(seen[0x2001] > 2300);
  CHECK(seen[0x2001] < 2700);
  CHECK(seen[0x6002] == 10000 - seen[0x2001]);
  CHECK(q.pick(kDdirRead, 1 << 20) == 0);
}

TEST_CASE("log_prio: the latency logs' last column is each I/O's priority; without it 1 for the RT class",
          "[fio][prio][logs][needs-uring]") {
  rs::test::require_uring();
  test::TempDir dir("rs-prio");
  const std::string path = dir.file("data");
  fio_test::write_filled_file(path, 8ull << 20);
  const std::string prefix = dir.file("p");
  std::vector<std::string> args = {"--name=r",
                                   "--ioengine=libaio",
                                   "--rw=randread",
                                   "--bs=4k",
                                   "--direct=1",
                                   "--iodepth=4",
                                   "--size=8m",
                                   "--prioclass=3",
                                   "--cmdprio_class=1",
                                   "--cmdprio_percentage=20",
                                   "--write_lat_log=" + prefix};
  auto with_prio = args;
  with_prio.push_back("--log_prio=1");
  auto out = fio_test::run_on_file(path, with_prio);
  REQUIRE(out.results.jobs[0].error == 0);
  auto counts = prio_column(prefix + "_clat.1.log");
  CHECK(counts.size() == 2);
  CHECK(counts["0x2000"] + counts["0x6000"] == 2048);
  CHECK(counts["0x2000"] > 300);  // 20 % of 2048 is 410, sigma 18
  CHECK(counts["0x2000"] < 520);

  out = fio_test::run_on_file(path, args);
  REQUIRE(out.results.jobs[0].error == 0);
  counts = prio_column(prefix + "_lat.1.log");
  CHECK(counts.size() == 2);
  CHECK(counts["1"] + counts["0"] == 2048);
  CHECK(counts["1"] > 300);
  CHECK(counts["1"] < 520);
}

TEST_CASE("cmdprio is refused with a synchronous engine, naming the option", "[fio][prio]") {
  test::TempDir dir("rs-prio");
  const std::string path = dir.file("data");
  fio_test::write_filled_file(path, 1ull << 20);
  auto r = parse_cli_job({"--name=s", "--ioengine=psync", "--cmdprio_percentage=10", "--filename=" + path});
  REQUIRE(r.ok());
  std::string err;
  auto dev = rs::test::or_empty(io::MemberDevice::open(path, io::OpenMode::ReadWrite), &err);
  REQUIRE(dev);
  DeviceTarget target(std::move(dev));
  const std::string bad = check_jobs(r->jobs, target);
  CHECK(bad.find("cmdprio_percentage") != std::string::npos);
  CHECK(bad.find("psync") != std::string::npos);
}
