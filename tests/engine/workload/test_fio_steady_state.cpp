// fio's steady state (ss, ss_dur, ss_ramp): the criterion math against hand
// computations and against figures fio 3.33 printed, the window fio reports,
// a group_reporting group judged on its pooled samples, the options as fio
// reads them (--debug=parse lines included) and the JSON and normal output.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "../../common/result_helpers.hpp"
#include "fio/job_parser.hpp"
#include "fio/json_output.hpp"
#include "fio/log_files.hpp"
#include "fio/normal_output.hpp"
#include "workload/runner.hpp"
#include "workload/steady_state.hpp"
#include "workload/targets.hpp"

using namespace rs;
using namespace rs::workload;
using Json = nlohmann::ordered_json;

namespace {

fio::ParsedCliJobs ss_parsed(std::vector<std::string> args) {
  auto r = fio::parse_cli_job(args);
  INFO(rs::test::error_text(r));
  REQUIRE(r.ok());
  return *r;
}

JobOptions ss_job(const std::string& ss, const std::string& dur = "4") {
  return ss_parsed({"--name=x", "--ss=" + ss, "--ss_dur=" + dur}).jobs[0];
}

constexpr uint64_t kSsSec = 1'000'000'000;

}  // namespace

TEST_CASE("fio steady state: slope and deviation are computed as by hand", "[fio][steady]") {
  // 10, 20, 30, 40 rise by exactly 10 per sample.
  const std::vector<uint64_t> line{10, 20, 30, 40};
  CHECK(steady_slope(line) == Approx(10.0));
  // x mean 1.5, y mean 102: Sxy = 3 + 0 - 0.5 + 4.5 = 7, Sxx = 5, slope 1.4.
  const std::vector<uint64_t> noisy{100, 102, 101, 105};
  CHECK(steady_slope(noisy) == Approx(1.4));
  // mean 101: the farthest sample, 109, is 8 away.
  const std::vector<uint64_t> dev{100, 109, 95, 100};
  CHECK(steady_max_deviation(dev) == Approx(8.0));
  const std::vector<uint64_t> flat{7, 7, 7};
  CHECK(steady_slope(flat) == 0.0);
  CHECK(steady_max_deviation(flat) == 0.0);
}

TEST_CASE("fio steady state: the criterion against the limit, in percent of the mean", "[fio][steady]") {
  SECTION("deviation: 8 of a mean of 101 is 7.92 %") {
    SteadyState under(ss_job("iops:8%"));
    for (uint64_t y : {100, 109, 95}) CHECK_FALSE(under.add_sample(y, 0));
    CHECK(under.add_sample(100, 0));
    CHECK(under.report(true).criterion == Approx(100.0 * 8 / 101));
    SteadyState over(ss_job("iops:7.9%"));
    for (uint64_t y : {100, 109, 95, 100}) CHECK_FALSE(over.add_sample(y, 0));
    CHECK(over.report(false).max_deviation == Approx(8.0));
  }
  SECTION("slope: fio divides by the mean in whole units") {
    // 1, 2, 2, 2: slope 1.5 / 5 = 0.3; fio's mean is 7 / 4 = 1 (integers),
    // so the criterion is 30 %, not the 17.1 % of the real mean 1.75.
    SteadyState s(ss_job("bw_slope:31%"));
    for (uint64_t y : {1, 2, 2}) CHECK_FALSE(s.add_sample(0, y));
    CHECK(s.add_sample(0, 2));
    CHECK(s.report(true).criterion == Approx(30.0));
    CHECK(s.report(true).slope_value == Approx(0.3));
    SteadyState steeper(ss_job("bw_slope:29%"));
    for (uint64_t y : {1, 2, 2, 2}) CHECK_FALSE(steeper.add_sample(0, y));
  }
  SECTION("absolute limits") {
    SteadyState s(ss_job("iops_slope:10.5"));  // slope of 10, 20, 30, 40 is 10
    for (uint64_t y : {10, 20, 30}) CHECK_FALSE(s.add_sample(y, 0));
    CHECK(s.add_sample(40, 0));
    SteadyState strict(ss_job("iops_slope:10"));  // fio compares strictly
    for (uint64_t y : {10, 20, 30, 40}) CHECK_FALSE(strict.add_sample(y, 0));
  }
}

TEST_CASE("fio steady state: the reported window is the last one, oldest first, zero padded",
          "[fio][steady]") {
  SteadyState s(ss_job("iops:0", "3"));  // a limit of 0 is never met
  s.add_sample(5, 50);
  s.add_sample(6, 60);
  SteadyStateReport r = s.report(false);
  CHECK(r.iops_data == std::vector<uint64_t>{5, 6, 0});
  CHECK(r.bw_data == std::vector<uint64_t>{50, 60, 0});
  CHECK(r.duration_s == 3);
  for (uint64_t y : {7, 8}) s.add_sample(y, y * 10);
  r = s.report(false);
  CHECK(r.iops_data == std::vector<uint64_t>{6, 7, 8});
  CHECK(r.bw_data == std::vector<uint64_t>{60, 70, 80});
}

TEST_CASE("fio steady state: a group's samples are its members' sums, from one interval after the ramp",
          "[fio][steady]") {
  // Two members, ss=iops:10%, ss_dur=3 (3 one-second samples), ss_ramp=2s.
  SteadyGroup g(ss_parsed({"--name=x", "--ss=iops:10%", "--ss_dur=3", "--ss_ramp=2"}).jobs[0], 2);
  g.start(0);
  g.publish(0, 100, 100 * 4096);
  g.tick(1 * kSsSec);  // in the ramp: nothing sampled
  g.publish(1, 300, 300 * 4096);
  g.tick(2 * kSsSec);  // the ramp is over: the snapshot the first sample starts from
  CHECK(g.report().iops_data == std::vector<uint64_t>{0, 0, 0});
  uint64_t a = 100, b = 300;
  for (int s = 3; s <= 5; ++s) {
    a += 1000, b += 2000;  // 3000 I/Os a second between them
    g.publish(0, a, a * 4096);
    g.publish(1, b, b * 4096);
    CHECK_FALSE(g.attained());
    g.tick(uint64_t(s) * kSsSec);
  }
  CHECK(g.attained());
  const SteadyStateReport r = g.report();
  CHECK(r.iops_data == std::vector<uint64_t>{3000, 3000, 3000});
  CHECK(r.bw_data == std::vector<uint64_t>{3000 * 4096, 3000 * 4096, 3000 * 4096});
  CHECK(r.attained);
  CHECK(r.criterion == 0.0);
}

TEST_CASE("fio steady state: a late tick spreads its rate over the intervals it covers", "[fio][steady]") {
  SteadyGroup g(ss_job("iops:0", "4"), 1);
  g.start(0);
  g.tick(0);
  g.publish(0, 3000, 0);
  g.tick(3 * kSsSec);  // three intervals ended without a tick: 1000 a second each
  CHECK(g.report().iops_data == std::vector<uint64_t>{1000, 1000, 1000, 0});
}

TEST_CASE("fio steady state: a group_reporting group is judged on its pooled IOPS", "[fio][steady]") {
  NullTarget target(64ull << 20);
  // Three jobs at 1000 IOPS each: every pooled sample is near 3000, and the
  // group ends together once five 200 ms samples (1 s) lie within 20 %.
  auto jobs =
      ss_parsed({"--ioengine=null", "--name=g", "--rw=randread", "--bs=4k", "--size=64m", "--numjobs=3",
                 "--group_reporting", "--runtime=6", "--time_based", "--rate_iops=1000", "--ss=iops:20%",
                 "--ss_dur=1", "--ss_ramp=200ms", "--ss_interval=200ms"})
          .jobs;
  REQUIRE(check_jobs(jobs, target).empty());
  auto out = run_jobs(jobs, {}, target, nullptr, fio::open_job_logs);
  REQUIRE(out.results.jobs.size() == 3);
  const std::vector<JobResults> reported = reported_jobs(out.results);
  REQUIRE(reported.size() == 1);
  REQUIRE(reported[0].steadystate);
  const SteadyStateReport& ss = *reported[0].steadystate;
  CHECK(ss.attained);
  REQUIRE(ss.iops_data.size() == 5);
  for (uint64_t v : ss.iops_data) {
    CHECK(v > 2400);
    CHECK(v < 3600);
  }
  // fio's criterion for ss=iops:X%: the largest |sample - mean| as a
  // percentage of the mean, worked out here from the reported samples.
  double mean = 0, worst = 0;
  for (uint64_t v : ss.iops_data) mean += double(v) / 5;
  for (uint64_t v : ss.iops_data) worst = std::max(worst, std::fabs(double(v) - mean));
  CHECK(ss.criterion == Approx(100.0 * worst / mean));
  for (const JobResults& j : out.results.jobs) {
    CHECK(j.job_runtime_ns >= 1'200'000'000ull);  // ramp and window
    CHECK(j.job_runtime_ns < 5'000'000'000ull);   // ended together, before the runtime
  }
}

TEST_CASE("fio steady state: a group is still judged after its last job has ended", "[fio][steady]") {
  NullTarget target(64ull << 20);
  // The group's last job does 100 I/Os and ends long before the ramp; the
  // other runs at 1000 IOPS. fio's helper thread keeps sampling the group,
  // so the long job still ends once five 200 ms samples lie within 20 %.
  auto jobs =
      ss_parsed({"--ioengine=null", "--rw=randread", "--bs=4k", "--group_reporting", "--rate_iops=1000",
                 "--ss=iops:20%", "--ss_dur=1", "--ss_ramp=200ms", "--ss_interval=200ms", "--name=long",
                 "--size=64m", "--runtime=8", "--time_based", "--name=short", "--size=400k"})
          .jobs;
  REQUIRE(jobs.size() == 2);
  REQUIRE(check_jobs(jobs, target).empty());
  auto out = run_jobs(jobs, {}, target, nullptr, fio::open_job_logs);
  REQUIRE(out.results.jobs.size() == 2);
  const JobResults* longer = nullptr;
  for (const JobResults& j : out.results.jobs)
    if (j.jobname == "long") longer = &j;
  REQUIRE(longer);
  CHECK(longer->job_runtime_ns >= 1'200'000'000ull);  // ramp and window
  CHECK(longer->job_runtime_ns < 6'000'000'000ull);   // ended by the steady state, not the runtime
}

TEST_CASE("fio steady state: options as fio reads them", "[fio][steady]") {
  const JobOptions plain = ss_parsed({"--name=x", "--ss_dur=10s"}).jobs[0];
  CHECK(plain.ss == JobOptions::SteadyKind::iops_slope);  // fio's default iops_slope:0.01%
  CHECK(plain.ss_limit == 0.01);
  CHECK(plain.ss_percent);
  CHECK(ss_job("bw:12k").ss_limit == 12288);  // a bandwidth in bytes/s, fio's suffixes
  CHECK(ss_job("iops:.1%").ss_limit == Approx(0.1));
  CHECK_FALSE(fio::parse_cli_job({"--name=x", "--ss=iops"}).ok());  // no threshold
  CHECK_FALSE(fio::parse_cli_job({"--name=x", "--ss=lat:10"}).ok());
  // fio's --debug=parse lines, as steadystate_tests.py looks for them.
  auto trace = [](const std::string& ss) {
    return ss_parsed(
               {"--parse-only", "--debug=parse", "--ss_dur=10s", "--ss=" + ss, "--ss_ramp=5", "--name=x"})
        .parse_trace;
  };
  CHECK(trace("iops:10") == std::vector<std::string>{"handle_option=steadystate_duration, ptr=10s",
                                                     "handle_option=steadystate, ptr=iops:10",
                                                     "set steady state IOPS threshold to 10.000000",
                                                     "handle_option=steadystate_ramp_time, ptr=5",
                                                     "handle_option=name, ptr=x"});
  CHECK(trace("iops:.1%")[2] == "set steady state threshold to 0.100000%");
  CHECK(trace("bw:12")[2] == "set steady state BW threshold to 12");
  // fio rejects a group whose jobs judge steady state differently.
  NullTarget target(1 << 20);
  auto mixed = ss_parsed({"--ioengine=null", "--size=1m", "--name=a", "--name=b", "--ss_dur=5"}).jobs;
  CHECK(check_jobs(mixed, target).find("consistent within reporting groups") != std::string::npos);
  auto apart =
      ss_parsed({"--ioengine=null", "--size=1m", "--name=a", "--name=b", "--stonewall", "--ss_dur=5"}).jobs;
  CHECK(check_jobs(apart, target).empty());
}

TEST_CASE("fio steady state: JSON and normal output as fio 3.33 printed them", "[fio][steady]") {
  // fio 3.33, --ss=iops:50% --ss_dur=2 on a null job at 20k IOPS, printed
  // the samples below with criterion "1.354566%", max_deviation 270.5,
  // bw_mean 81796504, iops_mean 19969 and the normal line checked below.
  SteadyState s(ss_job("iops:50%", "2"));
  CHECK_FALSE(s.add_sample(19699, 80689969));
  CHECK(s.add_sample(20240, 82903040));
  RunResults run;
  JobResults job;
  job.jobname = "j";
  job.read.io_bytes = 4096, job.read.total_ios = 1, job.read.runtime_ns = kSsSec;
  job.steadystate = s.report(true);
  run.jobs.push_back(job);
  const Json doc = Json::parse(fio::format_fio_json(run, false));
  const Json& ss = doc["jobs"][0]["steadystate"];
  CHECK(ss["ss"] == "iops:50.000000%");
  CHECK(ss["duration"] == 2);
  CHECK(ss["attained"] == 1);
  CHECK(ss["criterion"] == "1.354566%");
  CHECK(ss["max_deviation"].get<double>() == Approx(270.5));
  CHECK(ss["slope"].get<double>() == 0.0);
  CHECK(ss["data"]["bw_mean"] == 81796504);
  CHECK(ss["data"]["iops_mean"] == 19969);
  CHECK(ss["data"]["iops"] == Json::array({19699, 20240}));
  CHECK(ss["data"]["bw"] == Json::array({80689969, 82903040}));
  const std::string text = fio::format_fio_normal(run);
  CHECK(text.find(
            "  steadystate  : attained=yes, bw=78.0MiB/s (79.9MB/s), iops=20.0k, iops mean dev=1.355%\n") !=
        std::string::npos);
}
