// fio's terse output (--minimal, --output-format=terse, --terse-version) and
// unified_rw_reporting, for a job with known figures. Expected values are
// fio 3.33's formulas (stat.c show_ddir_status_terse) worked by hand, and
// the field counts fio 3.33 printed for a null job of each version.
#include <catch2/catch.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "fio/job_parser.hpp"
#include "fio/json_output.hpp"
#include "fio/terse_output.hpp"
#include "workload/job_options.hpp"
#include "workload/results.hpp"

using namespace rs::workload;
using namespace rs::fio;

namespace {

// 4000 reads of 4 KiB over 2001 ms and 1000 writes of 64 KiB over 1500 ms;
// every I/O at depth 8, clat 20 us + i ns, slat 2 us.
RunResults known_run(unsigned unified = 0) {
  JobResults job;
  job.jobname = "known";
  job.groupid = 0;
  job.unified_rw_reporting = unified;
  auto fill = [&](DirectionResults& d, uint64_t ios, uint64_t bs, uint64_t runtime_ns) {
    d.io_bytes = ios * bs;
    d.total_ios = ios;
    d.runtime_ns = runtime_ns;
    for (uint64_t i = 0; i < ios; ++i) {
      d.slat.record(2000);
      d.clat.record(20'000 + i);
      d.lat.record(22'000 + i);
      job.latency_dist.record(20'000 + i);
      job.depth_dist.record_depth(8, 1);
    }
  };
  fill(job.read, 4000, 4096, 2'000'300'000);  // fio's runtime: 2001 ms, rounded up
  fill(job.write, 1000, 65536, 1'500'000'000);
  job.usr_cpu = 12.5;
  job.sys_cpu = 30.25;
  job.ctx = 100;
  job.minf = 14;
  RunResults run;
  run.raidscope_version = "0.1.0";
  run.jobs.push_back(job);
  return run;
}

std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  std::string f;
  std::istringstream in(line.substr(0, line.find('\n')));
  while (std::getline(in, f, ';')) out.push_back(f);
  return out;
}

}  // namespace

TEST_CASE("terse: field counts of versions 2 to 5 are fio's", "[fio_terse]") {
  // fio 3.33, one null job: 161, 121, 162 and 180 fields (no disk fields).
  const RunResults run = known_run();
  CHECK(fields(format_fio_terse(run, 2)).size() == 161);
  CHECK(fields(format_fio_terse(run, 3)).size() == 121);
  CHECK(fields(format_fio_terse(run, 4)).size() == 162);
  CHECK(fields(format_fio_terse(run, 5)).size() == 180);
  CHECK(format_fio_terse(run, 3).back() == '\n');
}

TEST_CASE("terse v3: the known job's fields where fio puts them", "[fio_terse]") {
  const auto f = fields(format_fio_terse(known_run(), 3));
  REQUIRE(f.size() == 121);
  CHECK(f[0] == "3");
  CHECK(f[1].find("fio-3.33") != std::string::npos);
  CHECK(f[2] == "known");
  CHECK(f[3] == "0");  // groupid
  CHECK(f[4] == "0");  // error
  // Read: KiB, KiB/s = 16384000 * 1000 / 2001 (8187906) / 1024, IOPS = 4000000 / 2001, ms.
  CHECK(f[5] == "16000");
  CHECK(f[6] == "7996");
  CHECK(f[7] == "1999");
  CHECK(f[8] == "2001");
  // slat min, max (us), mean, dev; then clat min 20 us, max 23 us (20000 + 3999 ns).
  CHECK(f[9] == "2");
  CHECK(f[10] == "2");
  CHECK(f[11] == "2.000000");
  CHECK(f[12] == "0.000000");
  CHECK(f[13] == "20");
  CHECK(f[14] == "23");
  CHECK(f[15] == "21.999500");  // (20000 + 1999.5) / 1000
  // clat percentiles (fio's default list of 17), then 3 empty slots.
  CHECK(f[17].rfind("1.000000%=", 0) == 0);
  CHECK(f[33].rfind("99.990000%=", 0) == 0);
  CHECK(f[34] == "0%=0");
  CHECK(f[36] == "0%=0");
  CHECK(f[37] == "22");  // lat min in us
  // Write from field 46: 64000 KiB, 65536000 * 1000 / 1500 / 1024 KiB/s, 666 IOPS, 1500 ms.
  CHECK(f[46] == "64000");
  CHECK(f[47] == "42666");
  CHECK(f[48] == "666");
  CHECK(f[49] == "1500");
  // CPU, then the depth distribution: all 5000 I/Os at depth 8 (fio's 4th band).
  CHECK(f[87] == "12.500000%");
  CHECK(f[88] == "30.250000%");
  CHECK(f[89] == "100");
  CHECK(f[91] == "14");
  CHECK(f[92] == "0.0%");
  CHECK(f[95] == "100.0%");
  // Latency bands: 20..24 us is fio's "50" us band (the 5th), ms bands empty.
  CHECK(f[99] == "0.00%");
  CHECK(f[103] == "100.00%");
  CHECK(f[109] == "0.00%");
}

TEST_CASE("terse: lat_percentiles shows total latency's percentiles", "[fio_terse]") {
  RunResults run = known_run();
  run.jobs[0].lat_percentiles = true;
  const auto f = fields(format_fio_terse(run, 3));
  // The 50th percentile of lat (22000..25999 ns) is 24 us within fio's
  // bucket error (1/128), so 23 or 24 whole us; of clat (20000..23999) 21 or 22.
  CHECK((f[23] == "50.000000%=23" || f[23] == "50.000000%=24"));
  const auto clat = fields(format_fio_terse(known_run(), 3));
  CHECK((clat[23] == "50.000000%=21" || clat[23] == "50.000000%=22"));
  run.jobs[0].lat_percentiles = false;
  run.jobs[0].clat_percentiles = false;
  const auto none = fields(format_fio_terse(run, 3));
  CHECK(none[17] == "0%=0");
}

TEST_CASE("terse v5: trim and the sample counts", "[fio_terse]") {
  RunResults run = known_run();
  for (uint64_t kib : {7000ULL, 8000ULL, 9000ULL}) run.jobs[0].read.bw_samples.add(kib);
  const auto f = fields(format_fio_terse(run, 5));
  REQUIRE(f.size() == 180);
  // Read's bandwidth: min, max, percent of the group, mean, dev, samples.
  CHECK(f[41] == "7000");
  CHECK(f[42] == "9000");
  CHECK(f[44] == "8000.000000");
  CHECK(f[45] == "1000.000000");
  CHECK(f[46] == "3");
  // Write from field 52 (5 + 47), trim from 99, all zero.
  CHECK(f[52] == "64000");
  CHECK(f[99] == "0");
  CHECK(f[102] == "0");
}

TEST_CASE("unified_rw_reporting=mixed: one direction summing all", "[fio_terse][fio_json]") {
  const auto f = fields(format_fio_terse(known_run(1), 3));
  REQUIRE(f.size() == 80);  // 5 + 41 + 34
  CHECK(f[5] == "80000");   // 16000 + 64000 KiB
  CHECK(f[7] == "2498");    // 5000 I/Os over the longer 2001 ms
  CHECK(f[8] == "2001");
  CHECK(f[13] == "20");
  const auto both = fields(format_fio_terse(known_run(2), 3));
  CHECK(both.size() == 121 + 41);
  CHECK(both[87] == "80000");  // after read and write, the mix

  const auto json = fio_json_document(known_run(1), false);
  const auto& job = json["jobs"][0];
  CHECK_FALSE(job.contains("read"));
  CHECK_FALSE(job.contains("write"));
  CHECK_FALSE(job.contains("sync"));
  CHECK(job["mixed"]["total_ios"] == 5000);
  CHECK(job["mixed"]["clat_ns"]["N"] == 5000);
  const auto json_both = fio_json_document(known_run(2), false);
  CHECK(json_both["jobs"][0]["read"]["total_ios"] == 4000);
  CHECK(json_both["jobs"][0]["mixed"]["total_ios"] == 5000);
}

TEST_CASE("JSON sync latency has percentiles, and json+ bins", "[fio_json]") {
  RunResults run = known_run();
  run.jobs[0].sync_ios = 3;
  for (uint64_t ns : {100ULL, 100ULL, 100ULL}) run.jobs[0].sync_lat.record(ns);
  const auto plain = fio_json_document(run, false)["jobs"][0]["sync"]["lat_ns"];
  CHECK(plain["N"] == 3);
  CHECK(plain["percentile"]["50.000000"] == 100);
  CHECK_FALSE(plain.contains("bins"));
  const auto plus = fio_json_document(run, true)["jobs"][0]["sync"]["lat_ns"];
  CHECK(plus["bins"]["100"] == 3);
}

TEST_CASE("output formats: fio's list, --minimal, --terse-version", "[fio_terse][cli]") {
  auto r = parse_cli_job({"--name=a", "--output-format=terse,json+"});
  REQUIRE(r.ok());
  CHECK(r->flags.output.terse);
  CHECK(r->flags.output.json);
  CHECK(r->flags.output.json_plus);
  CHECK_FALSE(r->flags.output.normal);
  CHECK(r->flags.output.terse_version == 3);
  r = parse_cli_job({"--name=a", "--output-format=normal,json"});
  REQUIRE(r.ok());
  CHECK((r->flags.output.normal && r->flags.output.json && !r->flags.output.terse));
  r = parse_cli_job({"--name=a", "--minimal", "--terse-version=5"});
  REQUIRE(r.ok());
  CHECK((r->flags.output.terse && !r->flags.output.normal && !r->flags.output.json));
  CHECK(r->flags.output.terse_version == 5);
  auto bad = parse_cli_job({"--name=a", "--terse-version=6"});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("terse-version") != std::string::npos);
  bad = parse_cli_job({"--name=a", "--output-format=xml"});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("'xml'") != std::string::npos);
  r = parse_cli_job({"--name=a", "--unified_rw_reporting=both"});
  REQUIRE(r.ok());
  CHECK(r->jobs[0].unified_rw_reporting == 2);
  REQUIRE_FALSE(parse_cli_job({"--name=a", "--unified_rw_reporting=3"}).ok());
}

TEST_CASE("submission latency only for queued engines, as fio keeps it", "[fio_terse]") {
  JobOptions j;
  j.ioengine = IoEngine::null;
  j.iodepth = 1;
  CHECK_FALSE(measures_slat(j));  // fio runs null at depth 1 as a sync engine
  j.iodepth = 4;
  CHECK(measures_slat(j));
  j.ioengine = IoEngine::psync;
  CHECK_FALSE(measures_slat(j));
  j.ioengine = IoEngine::libaio;
  CHECK(measures_slat(j));
}
