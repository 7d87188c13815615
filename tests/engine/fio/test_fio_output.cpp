// fio-format output: JSON schema, units and group reporting; the normal text
// layout and number formatting, checked against lines real fio 3.33 printed
// and, when fio is installed, against a live fio run.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../../common/needs_tool.hpp"
#include "fio/json_output.hpp"
#include "fio/normal_output.hpp"
#include "workload/results.hpp"

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;
using namespace rs::workload;
using namespace rs::fio;

namespace {

constexpr uint64_t kReadIos = 4000, kWriteIos = 1000;

// A job with known figures: 4 KiB reads over 2001 ms, 64 KiB writes over
// 1500 ms, lognormal latencies, and a raidscope section for a 2-disk mirror.
JobResults make_job(const std::string& name, int groupid, uint64_t seed) {
  JobResults job;
  job.jobname = name;
  job.groupid = groupid;
  job.pid = 4242;
  job.options = {{"name", name}, {"rw", "randrw"}, {"bs", "4k"}, {"iodepth", "8"}};
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> clat(std::log(150'000.0), 0.6);
  std::uniform_int_distribution<uint64_t> slat(500, 3000);
  auto fill = [&](DirectionResults& d, uint64_t ios, uint64_t bs, uint64_t runtime_ns) {
    d.io_bytes = ios * bs;
    d.total_ios = ios;
    d.runtime_ns = runtime_ns;
    for (uint64_t i = 0; i < ios; ++i) {
      const uint64_t s = slat(rng), c = static_cast<uint64_t>(clat(rng));
      d.slat.record(s);
      d.clat.record(c);
      d.lat.record(s + c);
      job.latency_dist.record(c);
      job.depth_dist.record_depth(8, 1);
    }
    for (uint64_t kib : {7000ULL, 8000ULL, 9000ULL}) d.bw_samples.add(kib);
    for (uint64_t iops : {1750ULL, 2000ULL, 2250ULL}) d.iops_samples.add(iops);
  };
  fill(job.read, kReadIos, 4096, 2'000'300'000);     // 2000.3 ms -> fio's 2001
  fill(job.write, kWriteIos, 65536, 1'500'000'000);  // exactly 1500 ms
  for (uint64_t i = 0; i < (kReadIos + kWriteIos) / 4; ++i) {
    job.depth_dist.record_submit(4);
    job.depth_dist.record_complete(4);
  }
  job.job_runtime_ns = 2'000'900'000;
  job.elapsed_sec = 3;
  job.usr_cpu = 12.5;
  job.sys_cpu = 30.25;
  job.ctx = 100;
  job.minf = 14;
  job.iodepth = 8;
  RaidscopeJobExtension ext;
  ext.target = "raid1 /dev/md/rs0 (2 members)";
  ext.policy = "round-robin";
  ext.members = {{"/dev/loop0", 2500, 2500 * 4096, 0.625, 1000, 1000 * 65536, 3.5},
                 {"/dev/loop1", 1500, 1500 * 4096, 0.375, 1000, 1000 * 65536, 2.25}};
  job.raidscope = ext;
  return job;
}

RunResults make_run() {
  RunResults run;
  run.raidscope_version = "0.1.0";
  run.timestamp_ms = 1'795'994'682'599;
  run.global_options = {{"direct", "1"}, {"ioengine", "io_uring"}};
  run.jobs.push_back(make_job("mirror", 0, 1));
  return run;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

bool has_line(const std::vector<std::string>& lines, const std::string& line) {
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

fs::path temp_dir() {
  static int counter = 0;
  fs::path dir = fs::temp_directory_path() /
                 ("rs_fio_out_" + std::to_string(getpid()) + "_" + std::to_string(++counter));
  fs::create_directories(dir);
  return dir;
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream(p) << text;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

int run_checker(const fs::path& json, const std::string& args = "") {
  const std::string cmd = std::string("python3 ") + RAIDSCOPE_SOURCE_DIR + "/tests/tools/check_fio_json.py " +
                          args + " '" + json.string() + "' 2>'" + json.string() + ".err'";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

void collect_paths(const Json& j, const std::string& prefix, std::set<std::string>& out) {
  if (!j.is_object()) return;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string path = prefix + "/" + it.key();
    out.insert(path);
    if (it.key() != "job options") collect_paths(it.value(), path, out);  // options differ per job
  }
}

}  // namespace

TEST_CASE("JSON top level carries fio's header fields", "[fio_json]") {
  const RunResults run = make_run();
  const Json doc = Json::parse(format_fio_json(run));
  std::vector<std::string> keys;
  for (auto it = doc.begin(); it != doc.end(); ++it) keys.push_back(it.key());
  CHECK(keys == std::vector<std::string>{"fio version", "timestamp", "timestamp_ms", "time", "global options",
                                         "jobs", "disk_util"});
  CHECK(doc["fio version"] == "raidscope-0.1.0 (fio-3.33 compatible)");
  CHECK(doc["timestamp"] == 1'795'994'682);
  CHECK(doc["timestamp_ms"] == 1'795'994'682'599);
  CHECK(doc["time"] == fio_ctime(1'795'994'682));
  CHECK(doc["time"].get<std::string>().size() == 24);  // "Sun Nov 29 23:24:42 2026"
  CHECK(doc["global options"]["ioengine"] == "io_uring");
  CHECK(doc["disk_util"].is_array());
  CHECK(doc["jobs"].size() == 1);

  RunResults unversioned;
  CHECK(fio_version_string(unversioned) == "raidscope (fio-3.33 compatible)");
}

TEST_CASE("JSON job fields have fio's names and units", "[fio_json]") {
  const RunResults run = make_run();
  const JobResults& src = run.jobs[0];
  const Json doc = Json::parse(format_fio_json(run));
  const Json& job = doc["jobs"][0];

  CHECK(job["jobname"] == "mirror");
  CHECK(job["groupid"] == 0);
  CHECK(job["error"] == 0);
  CHECK(job["eta"] == 0);
  CHECK(job["elapsed"] == 3);
  std::vector<std::string> opt_keys;
  for (auto it = job["job options"].begin(); it != job["job options"].end(); ++it)
    opt_keys.push_back(it.key());
  CHECK(opt_keys == std::vector<std::string>{"name", "rw", "bs", "iodepth"});  // order as written
  CHECK(job["job options"]["iodepth"] == "8");

  SECTION("read: bytes, KiB/s, ms") {
    const Json& r = job["read"];
    const uint64_t io = kReadIos * 4096;
    CHECK(r["io_bytes"] == io);
    CHECK(r["io_kbytes"] == io / 1024);
    CHECK(r["runtime"] == 2001);  // ms, rounded up like fio
    CHECK(r["bw_bytes"] == io * 1000 / 2001);
    CHECK(r["bw"] == io * 1000 / 2001 / 1024);  // KiB/s
    CHECK(r["iops"].get<double>() == Approx(kReadIos * 1000.0 / 2001).epsilon(1e-9));
    CHECK(r["total_ios"] == kReadIos);
    CHECK(r["short_ios"] == 0);
    CHECK(r["drop_ios"] == 0);
    for (const char* k : {"slat_ns", "clat_ns", "lat_ns"}) {
      const LatencyHistogram& h = std::string(k) == "slat_ns"   ? src.read.slat
                                  : std::string(k) == "clat_ns" ? src.read.clat
                                                                : src.read.lat;
      INFO(k);
      CHECK(r[k]["min"] == h.min());
      CHECK(r[k]["max"] == h.max());
      CHECK(r[k]["mean"].get<double>() == Approx(h.mean()).margin(1e-6));
      CHECK(r[k]["stddev"].get<double>() == Approx(h.stddev()).margin(1e-6));
      CHECK(r[k]["N"] == kReadIos);
      CHECK(r[k]["min"].is_number_integer());
      CHECK(r[k]["mean"].is_number_float());
    }
    CHECK_FALSE(r["slat_ns"].contains("percentile"));  // fio: slat/lat percentiles off by default
    CHECK_FALSE(r["lat_ns"].contains("percentile"));
    const Json& pct = r["clat_ns"]["percentile"];
    std::vector<std::string> keys;
    for (auto it = pct.begin(); it != pct.end(); ++it) keys.push_back(it.key());
    CHECK(keys == std::vector<std::string>{"1.000000", "5.000000", "10.000000", "20.000000", "30.000000",
                                           "40.000000", "50.000000", "60.000000", "70.000000", "80.000000",
                                           "90.000000", "95.000000", "99.000000", "99.500000", "99.900000",
                                           "99.950000", "99.990000"});
    CHECK(pct["50.000000"] == src.read.clat.percentile(50));
    CHECK(pct["99.990000"] == src.read.clat.percentile(99.99));
    CHECK(r["bw_min"] == 7000);
    CHECK(r["bw_max"] == 9000);
    CHECK(r["bw_mean"].get<double>() == Approx(8000));
    CHECK(r["bw_dev"].get<double>() == Approx(1000));
    CHECK(r["bw_samples"] == 3);
    // bw_agg: the job's mean sampled KiB/s as a share of its group's bandwidth.
    const double agg_kib = (kReadIos * 4096.0 * 1000 / 2001) / 1024.0;
    CHECK(r["bw_agg"].get<double>() == Approx(std::min(100.0, 8000 * 100.0 / agg_kib)).epsilon(1e-6));
    CHECK(r["iops_min"] == 1750);
    CHECK(r["iops_max"] == 2250);
    CHECK(r["iops_mean"].get<double>() == Approx(2000));
    CHECK(r["iops_stddev"].get<double>() == Approx(250));
    CHECK(r["iops_samples"] == 3);
  }
  SECTION("write has its own runtime") {
    const Json& w = job["write"];
    CHECK(w["io_bytes"] == kWriteIos * 65536);
    CHECK(w["runtime"] == 1500);
    CHECK(w["bw"] == kWriteIos * 65536 * 1000 / 1500 / 1024);
    CHECK(w["iops"].get<double>() == Approx(kWriteIos * 1000.0 / 1500));
    CHECK(w["clat_ns"]["N"] == kWriteIos);
  }
  SECTION("trim and sync are there and zero") {
    CHECK(job["trim"]["io_bytes"] == 0);
    CHECK(job["trim"]["runtime"] == 0);
    CHECK(job["trim"]["iops"] == 0.0);
    CHECK(job["trim"]["clat_ns"]["N"] == 0);
    CHECK_FALSE(job["trim"]["clat_ns"].contains("percentile"));
    CHECK(job["sync"]["total_ios"] == 0);
    CHECK(job["sync"]["lat_ns"]["N"] == 0);
  }
  SECTION("job-level figures") {
    CHECK(job["job_runtime"] == 2000);  // ms
    CHECK(job["usr_cpu"] == 12.5);
    CHECK(job["sys_cpu"] == 30.25);
    CHECK(job["ctx"] == 100);
    CHECK(job["majf"] == 0);
    CHECK(job["minf"] == 14);
    CHECK(job["iodepth_level"]["8"] == 100.0);
    CHECK(job["iodepth_level"][">=64"] == 0.0);
    CHECK(job["iodepth_submit"]["4"] == 100.0);
    CHECK(job["iodepth_complete"]["4"] == 100.0);
    double sum = 0;
    for (const char* unit : {"latency_ns", "latency_us", "latency_ms"})
      for (auto it = job[unit].begin(); it != job[unit].end(); ++it) sum += it.value().get<double>();
    CHECK(sum == Approx(100.0).margin(0.05));
    CHECK(job["latency_ms"].contains(">=2000"));
    CHECK(job["latency_ms"].size() == 12);
    CHECK(job["latency_ns"].size() == 10);
    CHECK(job["latency_depth"] == 8);
  }
  SECTION("raidscope extension") {
    const Json& ext = job["raidscope"];
    CHECK(ext["target"] == "raid1 /dev/md/rs0 (2 members)");
    CHECK(ext["policy"] == "round-robin");
    REQUIRE(ext["members"].size() == 2);
    CHECK(ext["members"][0]["path"] == "/dev/loop0");
    CHECK(ext["members"][0]["reads"] == 2500);
    CHECK(ext["members"][0]["read_bytes"] == 2500 * 4096);
    CHECK(ext["members"][0]["read_share"] == 0.625);
    CHECK(ext["members"][1]["writes"] == 1000);
    CHECK(ext["members"][1]["write_bytes"] == 1000 * 65536);
    CHECK(ext["members"][1]["mean_pending"] == 2.25);
  }
}

TEST_CASE("JSON honours percentile_list and lat/slat percentiles", "[fio_json]") {
  RunResults run = make_run();
  JobResults& job = run.jobs[0];
  job.percentile_list = {99.5, 50, 99.999};  // fio sorts the list
  job.lat_percentiles = true;
  job.slat_percentiles = true;
  const Json doc = Json::parse(format_fio_json(run));
  for (const char* k : {"slat_ns", "clat_ns", "lat_ns"}) {
    const Json& pct = doc["jobs"][0]["read"][k]["percentile"];
    std::vector<std::string> keys;
    for (auto it = pct.begin(); it != pct.end(); ++it) keys.push_back(it.key());
    INFO(k);
    CHECK(keys == std::vector<std::string>{"50.000000", "99.500000", "99.999000"});
  }
  CHECK(doc["jobs"][0]["read"]["lat_ns"]["percentile"]["99.999000"] == job.read.lat.percentile(99.999));
  CHECK(effective_percentile_precision(job) == 3);
  job.percentile_list = {50, 99};
  CHECK(effective_percentile_precision(job) == 0);
  job.percentile_list.clear();
  CHECK(effective_percentile_precision(job) == 2);
}

TEST_CASE("group_reporting merges a group's jobs like fio", "[fio_json]") {
  RunResults run = make_run();
  run.jobs.clear();
  for (int i = 0; i < 3; ++i) {
    JobResults j = make_job("grp", 0, 10 + i);
    j.group_reporting = true;
    if (i == 2) j.read.runtime_ns = 2'500'000'000;
    run.jobs.push_back(j);
  }
  JobResults other = make_job("solo", 1, 20);
  run.jobs.push_back(other);

  const std::vector<JobResults> rep = reported_jobs(run);
  REQUIRE(rep.size() == 2);
  CHECK(rep[0].members == 3);
  CHECK(rep[1].members == 1);

  const Json doc = Json::parse(format_fio_json(run));
  REQUIRE(doc["jobs"].size() == 2);
  const Json& g = doc["jobs"][0];
  CHECK(g["jobname"] == "grp");
  CHECK(g["read"]["io_bytes"] == 3 * kReadIos * 4096);
  CHECK(g["read"]["total_ios"] == 3 * kReadIos);
  CHECK(g["read"]["runtime"] == 2500);  // the slowest member's
  CHECK(g["read"]["clat_ns"]["N"] == 3 * kReadIos);
  LatencyHistogram all;
  for (int i = 0; i < 3; ++i) all.merge(run.jobs[i].read.clat);
  CHECK(g["read"]["clat_ns"]["percentile"]["99.000000"] == all.percentile(99));
  CHECK(g["read"]["clat_ns"]["mean"].get<double>() == Approx(all.mean()).margin(1e-6));
  // Rates add up across members (fio sums bw/iops sample statistics).
  CHECK(g["read"]["bw_min"] == 3 * 7000);
  CHECK(g["read"]["bw_mean"].get<double>() == Approx(3 * 8000.0));
  CHECK(g["read"]["bw_samples"] == 9);
  CHECK(g["job_runtime"] == 3 * 2000);  // fio sums run times (whole ms each)
  CHECK(g["usr_cpu"] == 12.5);          // ... and divides the summed CPU time by them
  CHECK(g["ctx"] == 300);
  CHECK(g["raidscope"]["members"][0]["reads"] == 3 * 2500);
  CHECK(g["raidscope"]["members"][0]["read_share"] == 0.625);
  CHECK(doc["jobs"][1]["jobname"] == "solo");
  CHECK(doc["jobs"][1]["groupid"] == 1);

  const std::string text = format_fio_normal(run);
  CHECK(text.find("grp: (groupid=0, jobs=3): err= 0: pid=4242: ") != std::string::npos);
  CHECK(text.find("solo: (groupid=1, jobs=1): err= 0: pid=4242: ") != std::string::npos);
  CHECK(text.find("\nRun status group 0 (all jobs):\n") != std::string::npos);
  CHECK(text.find("\nRun status group 1 (all jobs):\n") != std::string::npos);

  // Without group_reporting every job is its own entry.
  for (auto& j : run.jobs) j.group_reporting = false;
  CHECK(Json::parse(format_fio_json(run))["jobs"].size() == 4);
}

TEST_CASE("fio number formatting", "[fio_text]") {
  // 1.5 GiB/s: IEC keeps 4 digits, SI rounds the remainder.
  CHECK(fio_num2str(1610612736, 4, 1, true, N2SUnit::byte_per_sec) == "1536MiB/s");
  CHECK(fio_num2str(1610612736, 4, 1, false, N2SUnit::byte_per_sec) == "1611MB/s");
  // Forms fio 3.33 printed (see the golden lines below).
  CHECK(fio_num2str(48726441, 4, 1, true, N2SUnit::byte_per_sec) == "46.5MiB/s");
  CHECK(fio_num2str(48726441, 4, 1, false, N2SUnit::byte_per_sec) == "48.7MB/s");
  CHECK(fio_num2str(48775168, 4, 1, false, N2SUnit::byte) == "48.8MB");
  CHECK(fio_num2str(16106127360, 4, 1, true, N2SUnit::byte) == "15.0GiB");
  CHECK(fio_num2str(16096215040, 4, 1, true, N2SUnit::byte) == "15.0GiB");  // 14.99: the decimal carries
  CHECK(fio_num2str(1964000, 4, 1, false, N2SUnit::none) == "1964k");
  CHECK(fio_num2str(2974, 4, 1, false, N2SUnit::none) == "2974");
  CHECK(fio_num2str(4568200, 6, 1, false, N2SUnit::none) == "4568.2k");
  CHECK(fio_num2str(0, 4, 1, true, N2SUnit::byte) == "0B");
  CHECK(fio_num2str(1, 4, 1, false, N2SUnit::bit_per_sec) == "8bit/s");
  CHECK(fio_num2str(5, 4, 1024, true, N2SUnit::byte) == "5KiB");  // base: already in KiB
}

TEST_CASE("latency lines match fio's", "[fio_text]") {
  // Inputs and outputs from fio 3.33 runs (JSON figures, normal-output line).
  CHECK(fio_lat_line("clat", 39986, 3465088, 129825.059456, 108353.800273) ==
        "    clat (usec): min=39, max=3465, avg=129.83, stdev=108.35\n");
  CHECK(fio_lat_line(" lat", 40066, 3465188, 129929.313067, 108355.401682) ==
        "     lat (usec): min=40, max=3465, avg=129.93, stdev=108.36\n");
  CHECK(fio_lat_line("slat", 10, 4568200, 22.08, 2621.55) ==
        "    slat (nsec): min=10, max=4568.2k, avg=22.08, stdev=2621.55\n");
  CHECK(fio_lat_line("clat", 3'000'000, 250'000'000, 9'000'000, 2'000'000) ==
        "    clat (msec): min=3, max=250, avg= 9.00, stdev= 2.00\n");
  LatencyHistogram empty;
  CHECK(fio_lat_line("clat", empty).empty());
}

TEST_CASE("percentile block has fio's shape", "[fio_text]") {
  const std::vector<double> plist(kFioDefaultPercentiles.begin(), kFioDefaultPercentiles.end());
  // fio 3.33, psync randread 16k: JSON percentile values and the printed block.
  const std::vector<uint64_t> vals = {68096,  81408,  84480,   88576,   91648,  94720,
                                      99840,  113152, 126464,  154624,  207872, 244736,
                                      395264, 440320, 1794048, 1875968, 3457024};
  CHECK(fio_percentile_block("clat", vals, plist, 2) ==
        "    clat percentiles (usec):\n"
        "     |  1.00th=[   69],  5.00th=[   82], 10.00th=[   85], 20.00th=[   89],\n"
        "     | 30.00th=[   92], 40.00th=[   95], 50.00th=[  100], 60.00th=[  114],\n"
        "     | 70.00th=[  127], 80.00th=[  155], 90.00th=[  208], 95.00th=[  245],\n"
        "     | 99.00th=[  396], 99.50th=[  441], 99.90th=[ 1795], 99.95th=[ 1876],\n"
        "     | 99.99th=[ 3458]\n");
  // fio 3.33, --percentile_list=50:99.5:99.999, nanosecond values.
  const std::vector<double> custom = {50, 99.5, 99.999};
  CHECK(fio_percentile_block("clat", std::vector<uint64_t>{131, 290, 134144}, custom, 3) ==
        "    clat percentiles (nsec):\n"
        "     | 50.000th=[   131], 99.500th=[   290], 99.999th=[134144]\n");
  // fio 3.33, --percentile_list=50:99 (no decimals).
  CHECK(fio_percentile_block("clat", std::vector<uint64_t>{10, 20}, std::vector<double>{50, 99}, 0) ==
        "    clat percentiles (nsec):\n     |  50th=[   10],  99th=[   20]\n");
  // From a histogram: same values as percentiles() gives.
  LatencyHistogram h;
  for (uint64_t v = 1; v <= 100; ++v) h.record(v * 1'000'000);  // 1..100 ms
  const std::string block = fio_percentile_block("lat", h, plist, 2);
  const std::vector<std::string> lines = lines_of(block);
  REQUIRE(lines.size() == 6);                        // header + 17 entries at 4 a line
  CHECK(lines[0] == "    lat percentiles (usec):");  // min 1 ms is below fio's msec threshold
  for (size_t i = 1; i < lines.size(); ++i) CHECK(lines[i].rfind("     |", 0) == 0);
  CHECK(lines[5] == "     | 99.99th=[100140]");
}

TEST_CASE("job and group lines match fio's", "[fio_text]") {
  // fio 3.33: psync randread 16k, 2977 I/Os, 48775168 bytes in 1001 ms.
  RunResults run;
  run.timestamp_ms = 1'795'994'692'948;
  JobResults job;
  job.jobname = "f";
  job.pid = 7289;
  job.read.io_bytes = 48775168;
  job.read.total_ios = 2977;
  job.read.runtime_ns = 1001'000'000;
  run.jobs.push_back(job);
  const std::vector<std::string> lines = lines_of(format_fio_normal(run));
  CHECK(lines[0].empty());  // fio starts with a blank line
  CHECK(lines[1] == "f: (groupid=0, jobs=1): err= 0: pid=7289: " + fio_ctime(1'795'994'692));
  CHECK(has_line(lines, "  read: IOPS=2974, BW=46.5MiB/s (48.7MB/s)(46.5MiB/1001msec)"));
  CHECK(has_line(lines, "Run status group 0 (all jobs):"));
  CHECK(has_line(lines,
                 "   READ: bw=46.5MiB/s (48.7MB/s), 46.5MiB/s-46.5MiB/s (48.7MB/s-48.7MB/s), io=46.5MiB "
                 "(48.8MB), run=1001-1001msec"));
  CHECK(has_line(lines, "     issued rwts: total=2977,0,0,0 short=0,0,0,0 dropped=0,0,0,0"));
  CHECK_FALSE(has_line(lines, "  raidscope    : target=, policy="));

  CHECK(fio_bw_line(48096, 48096, 100.0, 48096.0, 0.0, 1) ==
        "   bw (  KiB/s): min=48096, max=48096, per=100.00%, avg=48096.00, stdev= 0.00, samples=1\n");
  CHECK(fio_bw_line(7521280, 8395776, 100.0, 7929570.0, 440350.0, 3) ==
        "   bw (  MiB/s): min= 7345, max= 8199, per=100.00%, avg=7743.72, stdev=430.03, samples=3\n");
  CHECK(fio_iops_line(3006, 3006, 3006.0, 0.0, 1) ==
        "   iops        : min= 3006, max= 3006, avg=3006.00, stdev= 0.00, samples=1\n");
}

TEST_CASE("text report layout, 1.5 GiB/s, errors and the raidscope block", "[fio_text]") {
  RunResults run = make_run();
  const std::vector<std::string> plain = lines_of(format_fio_normal(run));
  CHECK(has_line(plain, "  IO depths    : 1=0.0%, 2=0.0%, 4=0.0%, 8=100.0%, 16=0.0%, 32=0.0%, >=64=0.0%"));
  CHECK(has_line(plain, "     submit    : 0=0.0%, 4=100.0%, 8=0.0%, 16=0.0%, 32=0.0%, 64=0.0%, >=64=0.0%"));
  JobResults& job = run.jobs[0];
  job.read.io_bytes = 3ULL << 30;  // 3 GiB in 2000 ms = 1.5 GiB/s
  job.read.total_ios = 786432;
  job.read.runtime_ns = 2'000'000'000;
  const std::string text = format_fio_normal(run);
  const std::vector<std::string> lines = lines_of(text);
  CHECK(has_line(lines, "  read: IOPS=393k, BW=1536MiB/s (1611MB/s)(3072MiB/2000msec)"));
  CHECK(has_line(lines,
                 "   READ: bw=1536MiB/s (1611MB/s), 1536MiB/s-1536MiB/s (1611MB/s-1611MB/s), io=3072MiB "
                 "(3221MB), run=2000-2000msec"));
  CHECK(text.find("  write: IOPS=666, BW=41.7MiB/s (43.7MB/s)(62.5MiB/1500msec); 0 zone resets\n") !=
        std::string::npos);
  CHECK(text.find("    clat percentiles (usec):\n     |  1.00th=[") != std::string::npos);
  CHECK(has_line(lines, "  cpu          : usr=12.50%, sys=30.25%, ctx=100, majf=0, minf=14"));
  CHECK(has_line(lines, "     latency   : target=0, window=0, percentile=100.00%, depth=8"));
  CHECK(has_line(lines, "  raidscope    : target=raid1 /dev/md/rs0 (2 members), policy=round-robin"));
  CHECK(has_line(lines,
                 "     /dev/loop0: reads=2500 (62.50%), read=9.77MiB, writes=1000, written=62.5MiB, "
                 "avg pending=3.50"));
  // "lat (usec)" bands: every I/O sits in one band of the distribution.
  bool band_line = false;
  for (const auto& l : lines) band_line |= l.rfind("  lat (usec)   : ", 0) == 0;
  CHECK(band_line);

  job.error = 5;
  const std::string failed = format_fio_normal(run);
  CHECK(failed.find("mirror: (groupid=0, jobs=1): err= 5 (Input/output error): pid=4242: ") !=
        std::string::npos);
  CHECK(Json::parse(format_fio_json(run))["jobs"][0]["error"] == 5);
}

TEST_CASE("check_fio_json.py accepts our JSON and rejects broken units", "[fio_json][python][needs-tool]") {
  rs::test::require_tool("/usr/bin/python3", "check_fio_json.py not run");
  const fs::path dir = temp_dir();
  RunResults run = make_run();
  run.jobs.push_back(make_job("second", 1, 3));
  const fs::path good = dir / "good.json";
  write_file(good, format_fio_json(run));
  const int rc = run_checker(good, "--jobs 2 --raidscope");
  INFO(read_file(good.string() + ".err"));
  CHECK(rc == 0);

  Json doc = Json::parse(format_fio_json(run));
  doc["jobs"][0]["read"]["bw"] = doc["jobs"][0]["read"]["bw_bytes"];  // bytes where KiB/s belong
  const fs::path bad = dir / "bad.json";
  write_file(bad, doc.dump(2));
  CHECK(run_checker(bad) == 1);
  CHECK(read_file(bad.string() + ".err").find("bw_bytes // 1024") != std::string::npos);

  doc = Json::parse(format_fio_json(run));
  doc["jobs"][0]["read"]["clat_ns"].erase("percentile");
  doc["jobs"][0]["read"]["clat_ns"]["percentile"]["99.9"] = 5;  // not printf("%f")
  write_file(bad, doc.dump(2));
  CHECK(run_checker(bad) == 1);
  CHECK(run_checker(good, "--jobs 3") == 1);
  fs::remove_all(dir);
}

namespace {

// One real fio run (null engine + a small psync file job), normal and JSON
// output of the same run, produced once per test process.
struct FioRun {
  bool ok = false;
  Json json;
  std::string text;
};

const FioRun& live_fio() {
  static FioRun run = [] {
    FioRun r;
    const fs::path dir = temp_dir();
    const fs::path out = dir / "fio.out";
    const std::string cmd =
        "cd '" + dir.string() + "' && fio --output-format=normal,json --output='" + out.string() +
        "' --name=nul --ioengine=null --size=1g --rw=randrw --bs=4k --iodepth=8 --runtime=1 --time_based"
        " --name=file --ioengine=psync --filename='" +
        (dir / "data").string() +
        "' --size=8m --rw=randread --bs=16k --runtime=1 --time_based >/dev/null 2>&1";
    if (std::system(cmd.c_str()) != 0) return r;
    const std::string all = read_file(out);
    // The file holds fio's start banner, the JSON document, then the normal report.
    size_t begin = all.rfind("{\n", 0) == 0 ? 0 : all.find("\n{\n");
    if (begin == std::string::npos) return r;
    if (begin != 0) ++begin;
    const size_t end = all.find("\n}\n", begin);
    if (end == std::string::npos) return r;
    r.json = Json::parse(all.substr(begin, end + 2 - begin));
    r.text = all.substr(end + 3);
    r.ok = true;
    fs::remove_all(dir);
    return r;
  }();
  return run;
}

}  // namespace

TEST_CASE("our JSON has every key fio 3.33 writes for a job", "[fio_json][fio][needs-tool]") {
  rs::test::require_tool("/usr/bin/fio", "no key comparison with fio's JSON");
  const FioRun& fio = live_fio();
  REQUIRE(fio.ok);
  REQUIRE(fio.json["fio version"] == "fio-3.33");
  std::set<std::string> theirs, ours;
  collect_paths(fio.json["jobs"][0], "", theirs);
  collect_paths(Json::parse(format_fio_json(make_run()))["jobs"][0], "", ours);
  REQUIRE(theirs.count("/read/clat_ns/percentile/99.990000") == 1);
  REQUIRE(theirs.count("/write/slat_ns/N") == 1);
  for (const std::string& path : theirs) {
    INFO(path);
    CHECK(ours.count(path) == 1);
  }
  std::set<std::string> top;
  for (auto it = fio.json.begin(); it != fio.json.end(); ++it) top.insert(it.key());
  const Json doc = Json::parse(format_fio_json(make_run()));
  for (const std::string& k : top) {
    INFO(k);
    CHECK(doc.contains(k));
  }
}

TEST_CASE("text lines equal fio's for the same figures", "[fio_text][fio][needs-tool]") {
  rs::test::require_tool("/usr/bin/fio", "no comparison with fio's text output");
  const FioRun& fio = live_fio();
  REQUIRE(fio.ok);
  const std::vector<std::string> fio_lines = lines_of(fio.text);
  const std::vector<double> plist(kFioDefaultPercentiles.begin(), kFioDefaultPercentiles.end());

  // Rebuild the byte counts, I/O counts and runtimes fio reported and let our
  // writer print the job and group lines from them.
  RunResults run;
  for (const Json& fj : fio.json["jobs"]) {
    JobResults job;
    job.jobname = fj["jobname"];
    for (int d = 0; d < 2; ++d) {
      const Json& dir = fj[d == 0 ? "read" : "write"];
      job.dir(d).io_bytes = dir["io_bytes"];
      job.dir(d).total_ios = dir["total_ios"];
      job.dir(d).runtime_ns = dir["runtime"].get<uint64_t>() * 1'000'000;
    }
    run.jobs.push_back(job);
  }
  const std::vector<std::string> ours = lines_of(format_fio_normal(run));
  int compared = 0;
  for (const std::string& line : ours) {
    const bool rate_line = line.rfind("  read: IOPS=", 0) == 0 || line.rfind("  write: IOPS=", 0) == 0 ||
                           line.rfind("   READ: bw=", 0) == 0 || line.rfind("  WRITE: bw=", 0) == 0;
    if (!rate_line) continue;
    INFO(line);
    CHECK(has_line(fio_lines, line));
    ++compared;
  }
  CHECK(compared == 5);  // nul read+write, file read, group READ and WRITE

  // Latency, percentile, bw and iops lines from fio's own JSON figures.
  for (const Json& fj : fio.json["jobs"]) {
    for (const char* dname : {"read", "write"}) {
      const Json& dir = fj[dname];
      if (dir["total_ios"] == 0) continue;
      for (auto [key, name] : {std::pair{"slat_ns", "slat"}, {"clat_ns", "clat"}, {"lat_ns", " lat"}}) {
        const Json& s = dir[key];
        if (s["N"] == 0) continue;
        const std::string line = fio_lat_line(name, s["min"], s["max"], s["mean"], s["stddev"]);
        INFO(line);
        CHECK(has_line(fio_lines, line.substr(0, line.size() - 1)));
      }
      std::vector<uint64_t> vals;
      for (auto it = dir["clat_ns"]["percentile"].begin(); it != dir["clat_ns"]["percentile"].end(); ++it)
        vals.push_back(it.value());
      const std::string block = fio_percentile_block("clat", vals, plist, 2);
      INFO(block);
      CHECK(fio.text.find(block) != std::string::npos);
      if (dir["bw_samples"] > 0) {
        const std::string bw = fio_bw_line(dir["bw_min"], dir["bw_max"], dir["bw_agg"], dir["bw_mean"],
                                           dir["bw_dev"], dir["bw_samples"]);
        INFO(bw);
        CHECK(fio.text.find(bw) != std::string::npos);
        const std::string iops = fio_iops_line(dir["iops_min"], dir["iops_max"], dir["iops_mean"],
                                               dir["iops_stddev"], dir["iops_samples"]);
        INFO(iops);
        CHECK(fio.text.find(iops) != std::string::npos);
      }
    }
  }
}
