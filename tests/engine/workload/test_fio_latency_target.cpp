// latency_target / latency_window / latency_percentile (issue 16): fio's
// depth search (io_u.c lat_target_*). The expected depths are worked out by
// hand from fio 3.33's rules: double while windows hold, bisect down between
// the last depth that held and the one that failed, bisect up towards the
// one that failed, and end after a last window at a depth that held twice.
#include <catch2/catch.hpp>
#include <string>

#include "../../common/needs_uring.hpp"
#include "../../common/temp_dir.hpp"
#include "fio/normal_output.hpp"  // format_fio_normal
#include "fio_run_on_file.hpp"
#include "workload/latency_search.hpp"

using namespace rs;
using namespace rs::workload;
using namespace rs::fio;

namespace {

JobOptions search_job(unsigned iodepth, uint64_t target_ns, double percentile) {
  JobOptions j;
  j.iodepth = iodepth;
  j.latency_target_ns = target_ns;
  j.latency_window = std::chrono::microseconds(1);  // 1000 ns windows
  j.latency_percentile = percentile;
  return j;
}

// Completions of `lat_ns` every 100 ns until one window was judged (the
// depth changed or the search waits for the queue to drain).
void run_window(LatencySearch& s, uint64_t& now, uint64_t lat_ns) {
  const unsigned before = s.depth();
  for (int i = 0; i < 100 && s.depth() == before && !s.quiescing() && !s.done(); ++i) {
    now += 100;
    REQUIRE(s.completed(lat_ns, now, true));
  }
}

}  // namespace

TEST_CASE("latency_target: depth doubles while windows hold, then one last window and the job ends",
          "[fio][latency_target]") {
  LatencySearch s(search_job(16, 1000, 50.0));
  uint64_t now = 0;
  s.start(now);
  CHECK(s.depth() == 1);
  for (unsigned want : {2u, 4u, 8u, 16u}) {
    run_window(s, now, 500);
    CHECK(s.depth() == want);
    CHECK_FALSE(s.quiescing());
  }
  // 16 held and cannot grow: the I/O drains, the statistics restart...
  run_window(s, now, 500);
  CHECK(s.depth() == 16);
  REQUIRE(s.quiescing());
  CHECK(s.drained(now));
  CHECK_FALSE(s.done());
  // ...and when the last window holds too, the job is done.
  run_window(s, now, 500);
  CHECK(s.done());
}

TEST_CASE("latency_target: a window that misses the target lowers the depth, then it bisects back up",
          "[fio][latency_target]") {
  LatencySearch s(search_job(16, 1000, 50.0));
  uint64_t now = 0;
  s.start(now);
  for (int i = 0; i < 3; ++i) run_window(s, now, 500);  // 1 -> 2 -> 4 -> 8
  REQUIRE(s.depth() == 8);
  // At 8 most I/Os take 5 us: below latency_percentile -> halfway down to 4.
  run_window(s, now, 5000);
  CHECK(s.depth() == 6);
  REQUIRE(s.quiescing());
  CHECK_FALSE(s.drained(now));  // a new window, the statistics go on
  // 6 holds: halfway up to the 8 that failed.
  run_window(s, now, 500);
  CHECK(s.depth() == 7);
  // 7 holds and (7 + 8) / 2 is 7 again: the last window, then done.
  run_window(s, now, 500);
  CHECK(s.depth() == 7);
  REQUIRE(s.quiescing());
  CHECK(s.drained(now));
  run_window(s, now, 500);
  CHECK(s.done());
}

TEST_CASE("latency_target with latency_percentile=100: one late I/O ramps down at once; at depth 1 it fails",
          "[fio][latency_target]") {
  LatencySearch s(search_job(16, 1000, 100.0));
  uint64_t now = 0;
  s.start(now);
  run_window(s, now, 500);
  run_window(s, now, 500);
  REQUIRE(s.depth() == 4);
  CHECK(s.completed(1500, now + 10, false));  // no window judged, still the depth drops
  CHECK(s.depth() == 3);

  LatencySearch one(search_job(16, 1000, 100.0));
  one.start(0);
  CHECK_FALSE(one.completed(1500, 10, true));
}

TEST_CASE(
    "latency_target on a file: a target every I/O meets ends the job at iodepth; one none meets keeps depth "
    "1",
    "[fio][latency_target][needs-uring]") {
  rs::test::require_uring();
  test::TempDir dir("rs-lat-target");
  const std::string path = dir.file("data");
  fio_test::write_filled_file(path, 16ull << 20);
  auto args_with = [](std::string runtime, std::vector<std::string> extra) {
    std::vector<std::string> a = {"--name=l",     "--ioengine=io_uring",  "--rw=randread",
                                  "--bs=4k",      "--direct=1",           "--iodepth=8",
                                  "--time_based", "--runtime=" + runtime, "--latency_window=20ms"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  auto args = args_with("3", {"--latency_target=2s"});  // every I/O meets it
  auto out = fio_test::run_on_file(path, args);
  const JobResults& met = out.results.jobs[0];
  REQUIRE(met.error == 0);
  CHECK(met.iodepth == 8);  // latency_depth: 1, 2, 4, 8, 8 again, then the last window
  CHECK(met.latency_target_ns == 2000000000ull);
  CHECK(met.latency_window_us == 20000);
  CHECK(met.job_runtime_ns < 1000000000ull);  // ended by the search, not by the 3 s runtime
  // The statistics are those of the last window, run at depth 8.
  CHECK(met.depth_dist.level[3] > met.read.total_ios / 2);
  CHECK(format_fio_normal(out.results)
            .find("latency   : target=2000000000, window=20000, percentile=100.00%, depth=8") !=
        std::string::npos);

  // 1 us from issue to completion: no direct read from a file is that fast.
  args = args_with("300ms", {"--latency_target=1", "--latency_percentile=50"});
  out = fio_test::run_on_file(path, args);
  const JobResults& missed = out.results.jobs[0];
  REQUIRE(missed.error == 0);
  CHECK(missed.iodepth == 1);
  CHECK(missed.depth_dist.level[0] == missed.read.total_ios);  // every I/O issued alone
  CHECK(missed.job_runtime_ns >= 290000000ull);
}
