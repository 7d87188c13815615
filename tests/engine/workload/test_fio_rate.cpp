// fio 3.33's rate options (issue 16): io_submit_mode=inline|offload,
// rate_process=linear|poisson, rate_min / rate_iops_min over rate_cycle.
// Expected values are hand computations from fio's formulas (backend.c
// usec_for_io, __check_min_rate; init.c __setup_rate): linear, the next I/O
// starts at bytes issued / (rate_iops x smallest bs) seconds; poisson, each
// I/O adds (int)(1e6 / iops) x -ln(u) microseconds.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "../../common/result_helpers.hpp"
#include "../../common/temp_dir.hpp"
#include "fio/job_parser.hpp"
#include "fio/log_files.hpp"
#include "fio_run_on_file.hpp"
#include "io/device_profile.hpp"
#include "workload/rate_control.hpp"
#include "workload/runner.hpp"
#include "workload/targets.hpp"

using namespace rs;
using namespace rs::workload;
using namespace rs::fio;

namespace {

using fio_test::parse_one_job;

// A simulated RAID1 of two throttled virtio disks (resources/profiles:
// 220 us per read, 128 in parallel): I/Os take longer than a 100 us rate
// gap while the disks keep up with 10000 IOPS, so inline and offload
// submission differ.
std::unique_ptr<SimArrayTarget> slow_target() {
  std::string err;
  auto profile =
      io::find_profile("virtio-100mbs", {std::string(RAIDSCOPE_SOURCE_DIR) + "/resources/profiles"});
  INFO(rs::test::error_text(profile));
  REQUIRE(profile);
  raid::Shape shape;
  shape.level = 1;
  shape.raid_disks = 2;
  shape.dev_sectors = (256ull << 20) / 512;
  std::vector<std::shared_ptr<io::DeviceModel>> models{rs::test::must(io::make_model(*profile)),
                                                       rs::test::must(io::make_model(*profile))};
  auto made = SimArrayTarget::make(shape, models);
  INFO((made ? std::string() : made.error().message));
  REQUIRE(made.ok());
  return std::move(*made);
}

struct RatedRun {
  JobResults job;
  std::vector<uint64_t> gaps;  // between consecutive issues, us
};

RatedRun run_rated(std::vector<std::string> args) {
  test::TempDir dir("rs-rate");
  const std::string log = dir.file("issues.iolog");
  args.push_back("--write_iolog=" + log);
  auto r = parse_cli_job(args);
  INFO(rs::test::error_text(r));
  REQUIRE(r.ok());
  auto target = slow_target();
  std::string bad = check_jobs(r->jobs, *target);
  INFO(bad);
  REQUIRE(bad.empty());
  RunOutcome out = run_jobs(r->jobs, {}, *target, nullptr, rs::fio::open_job_logs);
  REQUIRE(out.results.jobs.size() == 1);
  RatedRun rr{out.results.jobs[0], {}};
  INFO("ios " << rr.job.read.total_ios << " error " << rr.job.error_text);
  const auto logged = fio_test::iolog_issue_times(log);
  REQUIRE(logged.size() == 1);
  const auto& t = logged.begin()->second;
  REQUIRE(t.size() > 100);
  for (size_t i = 1; i < t.size(); ++i) rr.gaps.push_back(t[i] - t[i - 1]);
  return rr;
}

double share_of(const std::vector<uint64_t>& gaps, uint64_t lo, uint64_t hi) {
  return double(std::count_if(gaps.begin(), gaps.end(), [&](uint64_t g) { return g >= lo && g <= hi; })) /
         double(gaps.size());
}

}  // namespace

TEST_CASE("rate options parse as fio names them; bad values name the option", "[fio][rate]") {
  JobOptions j = parse_one_job({"--name=a", "--io_submit_mode=offload", "--rate_process=poisson",
                                "--rate_iops=50", "--rate_iops_min=10,20", "--ratecycle=500"});
  CHECK(j.submit_offload);
  CHECK(j.rate_poisson);
  CHECK(j.rate_iops_min == std::array<uint64_t, 2>{10, 20});
  CHECK(j.rate_cycle == std::chrono::milliseconds(500));
  j = parse_one_job(
      {"--name=b", "--ratemin=1k", "--rate=2k", "--io_submit_mode=inline", "--rate_process=linear"});
  CHECK(j.rate_min == std::array<uint64_t, 2>{1024, 1024});
  CHECK(j.rate_min_trim == 1024);
  CHECK_FALSE(j.submit_offload);
  CHECK_FALSE(j.rate_poisson);
  for (const auto& [arg, word] :
       std::vector<std::pair<std::string, std::string>>{{"--io_submit_mode=thread", "io_submit_mode"},
                                                        {"--rate_process=gauss", "rate_process"},
                                                        {"--ratecycle=0", "rate_cycle"},
                                                        {"--rate_iops_min=x", "rate_iops_min"}}) {
    const std::string err = parse_cli_job({"--name=c", arg}).error().message;
    INFO(arg << ": " << err);
    CHECK(err.find(word) != std::string::npos);
  }
}

TEST_CASE("rate checks: fio's refusals, and offload only where fio runs it", "[fio][rate]") {
  auto err_of = [](std::vector<std::string> args) {
    return check_rate_options(parse_one_job(std::move(args)));
  };
  CHECK(err_of({"--name=ok", "--ioengine=libaio", "--iodepth=32", "--io_submit_mode=offload",
                "--rate_iops=1000"}) == "");
  CHECK(err_of({"--name=a", "--rate=1m", "--rate_iops=10"}).find("mutually exclusive") != std::string::npos);
  CHECK(err_of({"--name=b", "--rate=1m", "--ratemin=2m"}).find("exceeds") != std::string::npos);
  CHECK(err_of({"--name=c", "--rate_iops=10", "--rate_iops_min=11"}).find("exceeds") != std::string::npos);
  // 1000 B/s with 4k blocks: fio's poisson iops = 1000 / 4096 = 0.
  CHECK(err_of({"--name=d", "--rate=1000", "--rate_process=poisson"}).find("rate_process=poisson") !=
        std::string::npos);
  // fio 3.33: "io_uring: can't be used with offloaded submit".
  CHECK(err_of({"--name=e", "--ioengine=io_uring", "--io_submit_mode=offload"})
            .find("io_submit_mode=offload") != std::string::npos);
  // fio's offload runs iodepth threads of a sync engine; we run it one I/O at a time.
  CHECK(err_of({"--name=f", "--ioengine=psync", "--iodepth=4", "--io_submit_mode=offload"})
            .find("io_submit_mode=offload") != std::string::npos);
  CHECK(err_of({"--name=g", "--ioengine=psync", "--iodepth=1", "--io_submit_mode=offload"}) == "");
}

TEST_CASE("linear rate: the next I/O at bytes issued / (rate_iops x smallest bs)", "[fio][rate]") {
  // rate_iops=1000 with 4k and 12k blocks: fio's rate is 1000 x 4096 B/s.
  JobOptions j = parse_one_job({"--name=l", "--rw=randread", "--bssplit=4k/50:12k/50", "--rate_iops=1000"});
  RateControl rc(j, 1);
  CHECK(rc.limits());
  rc.restart(5'000'000);
  CHECK(rc.next_issue_ns() == 5'000'000);  // nothing issued: at once
  rc.issued(kDdirRead, 4096);
  CHECK(rc.next_issue_ns() == 5'000'000 + 1'000'000);  // 4096 / 4096000 s = 1000 us
  rc.issued(kDdirRead, 12288);
  CHECK(rc.next_issue_ns() == 5'000'000 + 4'000'000);  // 16384 B: 4000 us
  // rate=1m for writes only: reads are not held back.
  JobOptions w = parse_one_job({"--name=w", "--rw=randrw", "--bs=4k", "--rate=,1m"});
  RateControl rw(w, 1);
  rw.restart(0);
  rw.issued(kDdirRead, 4096);
  CHECK(rw.next_issue_ns() == 0);
  rw.issued(kDdirWrite, 4096);
  CHECK(rw.next_issue_ns() == 3906'000);  // 4096 x 1e6 / 1048576 = 3906.25 us, truncated
}

TEST_CASE("poisson rate: exponential gaps with a mean of 1e6 / iops microseconds", "[fio][rate]") {
  // fio: (int64_t)(1000000 / iops) * -logf(u).
  CHECK(RateControl::poisson_gap_us(50, 1.0) == 0);
  CHECK(RateControl::poisson_gap_us(50, 0.5) == 13862);  // 20000 x ln 2 = 13862.9
  // 333333 x ln 4 = 462098.1, but in fio's float: 333333 x 1.38629436f = 462097.66.
  CHECK(RateControl::poisson_gap_us(3, 0.25) == 462097);
  CHECK(RateControl::poisson_gap_us(1000, 0.1) == 2302);  // 1000 x ln 10 = 2302.6
  JobOptions j =
      parse_one_job({"--name=p", "--rw=randread", "--bs=4k", "--rate_iops=1000", "--rate_process=poisson"});
  RateControl rc(j, 7);
  rc.restart(0);
  const int n = 20000;
  std::vector<uint64_t> gaps;
  uint64_t last = 0;
  for (int i = 0; i < n; ++i) {
    rc.issued(kDdirRead, 4096);
    gaps.push_back((rc.next_issue_ns() - last) / 1000);
    last = rc.next_issue_ns();
  }
  double mean = 0, var = 0;
  for (uint64_t g : gaps) mean += double(g);
  mean /= n;
  for (uint64_t g : gaps) var += (double(g) - mean) * (double(g) - mean);
  const double sd = std::sqrt(var / n);
  // An exponential of mean 1000 us (less half a us of truncation): the
  // standard deviation equals the mean, P(gap < mean) = 1 - 1/e = 0.632.
  CHECK(mean == Approx(999.5).epsilon(0.03));
  CHECK(sd == Approx(1000).epsilon(0.05));
  CHECK(share_of(gaps, 0, 999) == Approx(0.632).margin(0.02));
}

TEST_CASE("rate_min: fio's 2 s settle, then the rate over each rate_cycle", "[fio][rate]") {
  JobOptions j = parse_one_job({"--name=m", "--rw=read", "--bs=4k", "--rate=1250", "--ratemin=1024"});
  RateControl rc(j, 1);
  CHECK(rc.checks_minimum());
  rc.restart(0);
  const uint64_t s = 1'000'000'000;
  CHECK(rc.check_minimum(s, kDdirRead, 4096, 1) == "");              // settling
  CHECK(rc.check_minimum(2 * s, kDdirRead, 4096, 1) == "");          // first check: the baseline
  CHECK(rc.check_minimum(2 * s + s / 2, kDdirRead, 4096, 1) == "");  // 500 ms < rate_cycle
  // 1500 ms later, 1024 more bytes: 1024 x 1000 / 1500 = 682 B/s.
  CHECK(rc.check_minimum(3 * s + s / 2, kDdirRead, 5120, 2) == "rate_min=1024B/s not met, got 682B/s (read)");
  // rate_iops_min over a 500 ms cycle: 3 I/Os in 600 ms = 5 IOPS.
  JobOptions k = parse_one_job({"--name=k", "--rw=read", "--rate_iops_min=6", "--ratecycle=500"});
  RateControl ri(k, 1);
  ri.restart(0);
  CHECK(ri.check_minimum(2 * s, kDdirRead, 4096, 1) == "");
  CHECK(ri.check_minimum(2 * s + 600'000'000, kDdirRead, 4 * 4096, 4) ==
        "rate_iops_min=6 not met, got 5 IOPS (read)");
}

TEST_CASE("offload issues at the rate's times whatever completes; inline waits for its I/O first",
          "[fio][rate]") {
  // 10000 IOPS: one I/O every 100 us, each taking 220 us and more. Offload
  // (fio's fixed-rate-submission.fio): every gap 100 us. Inline: fio's
  // rate_ddir waits for the I/O in flight (220 us) and then catches up, so
  // the I/Os leave in bunches (gaps of 0) at the same mean rate.
  const std::vector<std::string> base{
      "--name=r",          "--rw=randread", "--bs=4k",      "--ioengine=libaio", "--iodepth=32",
      "--rate_iops=10000", "--runtime=1",   "--time_based", "--norandommap=1",   "--direct=1"};
  auto offload = base;
  offload.push_back("--io_submit_mode=offload");
  RatedRun o = run_rated(offload);
  CHECK(o.job.error == 0);
  CHECK(double(o.job.read.total_ios) == Approx(10000).epsilon(0.02));
  CHECK(share_of(o.gaps, 99, 101) > 0.98);
  CHECK(o.job.read.clat.mean() > 200e3);  // each I/O took more than the gap

  RatedRun i = run_rated(base);
  CHECK(i.job.error == 0);
  CHECK(double(i.job.read.total_ios) == Approx(10000).epsilon(0.05));
  CHECK(share_of(i.gaps, 99, 101) < 0.2);
  CHECK(share_of(i.gaps, 0, 1) > 0.3);
}

TEST_CASE("poisson offload: exponential gaps between issues at the rate's mean", "[fio][rate]") {
  // fio's poisson-rate-submission.fio at 10000 IOPS on the slow target.
  RatedRun p = run_rated({"--name=p", "--rw=randread", "--bs=4k", "--ioengine=libaio", "--iodepth=32",
                          "--rate_iops=10000", "--rate_process=poisson", "--io_submit_mode=offload",
                          "--runtime=1", "--time_based", "--direct=1"});
  CHECK(p.job.error == 0);
  double mean = 0;
  for (uint64_t g : p.gaps) mean += double(g);
  mean /= double(p.gaps.size());
  // Mean 100 us (issue times in whole us: about half a us less); P(gap < 100) = 1 - 1/e.
  CHECK(mean == Approx(99.5).epsilon(0.04));
  CHECK(share_of(p.gaps, 0, 99) == Approx(0.632).margin(0.03));
}

TEST_CASE("rate_iops_min not met fails the job with EIO, as fio's check_min_rate", "[fio][rate]") {
  // One I/O at a time at 220 us or more: at most ~4500 IOPS, under 20000.
  auto target = slow_target();
  auto jobs =
      rs::test::must(parse_cli_job({"--name=slow", "--rw=randread", "--bs=4k", "--iodepth=1",
                                    "--rate_iops_min=20000", "--runtime=10", "--time_based", "--direct=1"}))
          .jobs;
  REQUIRE(check_jobs(jobs, *target).empty());
  RunOutcome out = run_jobs(jobs, {}, *target, nullptr, rs::fio::open_job_logs);
  const JobResults& j = out.results.jobs[0];
  CHECK(j.error == EIO);
  CHECK(j.error_text.find("rate_iops_min=20000 not met") != std::string::npos);
  // Settled at 2 s, failed at the first 1 s cycle after it.
  CHECK(j.job_runtime_ns >= 3'000'000'000ull);
  CHECK(j.job_runtime_ns < 3'100'000'000ull);
  // A minimum the job meets: no error, the whole runtime.
  jobs = rs::test::must(parse_cli_job({"--name=fine", "--rw=randread", "--bs=4k", "--rate_iops=1000",
                                       "--rate_iops_min=900", "--runtime=4", "--time_based", "--direct=1"}))
             .jobs;
  REQUIRE(check_jobs(jobs, *target).empty());
  out = run_jobs(jobs, {}, *target, nullptr, rs::fio::open_job_logs);
  CHECK(out.results.jobs[0].error == 0);
  CHECK(out.results.jobs[0].read.total_ios == Approx(4000).epsilon(0.01));
}
