// file_service_type=zipf, pareto, normal/gauss (issue 16), as fio 3.33
// chooses files (io_u.c __get_next_fileno_rand, init.c
// init_rand_file_service): a draw over nrfiles << 10 ranges without fio's
// hash, the file is the range >> 10. Expected shares are hand computations
// of fio's formulas for 4 files (4096 ranges), center 0 (no rotation):
//  - pareto:0.2: rank = 4095 u^p, p = ln 0.2 / ln 0.8 = 7.2126; file 0 while
//    u < (1024/4095)^(1/p) = 0.8252, file 1 to 0.9084, file 2 to 0.9609:
//    shares 0.825, 0.083, 0.053, 0.039;
//  - zipf:1.2: Gray's quick zipf over 4096 ranks (fio's zipf_next), summed
//    over u: shares 0.939, 0.033, 0.017, 0.011; with center 0.5 the ranks
//    move by 2048, so file 2 is the hot one;
//  - normal (deviation 0): the mean of 12 uniform draws in [0, 4096], about
//    N(2048, 1182 / sqrt 12 = 341): files 1 and 2 (ranks 1024..3071, 3
//    sigma each way) get 49.87 % each, files 0 and 3 0.13 %.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "../../common/member_reads.hpp"
#include "../../common/temp_dir.hpp"
#include "fio/job_parser.hpp"
#include "fio_run_on_file.hpp"
#include "workload/bench.hpp"
#include "workload/file_choice.hpp"

using namespace rs::workload;
using namespace rs::fio;
using rs::test::TempDir;

namespace {

constexpr uint64_t kIos = 20000;

// Reads per file of a time based 4-file random read job stopped after kIos
// I/Os (time based: no file is ever done, so no draw is repeated).
std::vector<double> shares(const std::string& service) {
  TempDir dir("rs-fileservice");
  auto run = fio_test::run_bench({"--name=s", "--rw=randread", "--bs=4k", "--size=1m", "--nrfiles=4",
                                  "--directory=" + dir.path, "--file_service_type=" + service, "--time_based",
                                  "--runtime=60", "--number_ios=" + std::to_string(kIos)});
  const std::vector<uint64_t> reads = rs::test::member_reads(run.session->target().members());
  const uint64_t total = rs::test::sum(reads);
  CHECK(total == kIos);
  std::vector<double> out(reads.begin(), reads.end());
  for (double& x : out) x /= double(total);
  return out;
}

void check_shares(const std::vector<double>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("file " << i);
    CHECK(got[i] == Approx(want[i]).margin(0.012));
  }
}

}  // namespace

TEST_CASE("file_service_type=zipf, pareto, gauss parse with fio's defaults and checks", "[fio][file_set]") {
  using FS = JobOptions::FileService;
  JobOptions j = fio_test::parse_one_job({"--name=a", "--file_service_type=zipf"});
  CHECK(j.file_service == FS::zipf);
  CHECK(j.file_service_param == 1.1);
  CHECK(j.file_service_center == -1);
  j = fio_test::parse_one_job({"--name=a", "--file_service_type=pareto:0.3:0.25"});
  CHECK(j.file_service == FS::pareto);
  CHECK(j.file_service_param == 0.3);
  CHECK(j.file_service_center == 0.25);
  j = fio_test::parse_one_job({"--name=a", "--file_service_type=gauss:5"});
  CHECK(j.file_service == FS::normal);
  CHECK(j.file_service_param == 5);
  CHECK(j.file_service_nr == 1);
  for (const char* bad :
       {"zipf:1", "zipf:-2", "pareto:1", "normal:100", "zipf:1.2:1.5", "normal:x", "zoned"}) {
    const std::string err =
        parse_cli_job({"--name=b", std::string("--file_service_type=") + bad}).error().message;
    INFO(bad << ": " << err);
    CHECK(err.find("file_service_type") != std::string::npos);
  }
}

TEST_CASE("a skewed file choice follows fio's draw: the range >> 10", "[fio][file_set]") {
  // 4 files, center 0: the same shares as the runs below, 200000 draws.
  auto draw = [](const std::string& service) {
    RandomFileChoice c(fio_test::parse_one_job({"--name=c", "--file_service_type=" + service}), 4, 42);
    std::vector<double> n(4, 0.0);
    for (int i = 0; i < 200000; ++i) n.at(c.next()) += 1.0 / 200000;
    return n;
  };
  check_shares(draw("pareto:0.2:0"), {0.825, 0.083, 0.053, 0.039});
  check_shares(draw("zipf:1.2:0"), {0.939, 0.033, 0.017, 0.011});
  check_shares(draw("zipf:1.2:0.5"), {0.017, 0.011, 0.939, 0.033});
  check_shares(draw("normal"), {0.0013, 0.4987, 0.4987, 0.0013});
}

TEST_CASE("file_service_type=zipf/pareto/gauss: the job's I/O per file as fio's shares", "[fio][file_set]") {
  check_shares(shares("pareto:0.2:0"), {0.825, 0.083, 0.053, 0.039});
  check_shares(shares("zipf:1.2:0"), {0.939, 0.033, 0.017, 0.011});
  check_shares(shares("gauss"), {0.0013, 0.4987, 0.4987, 0.0013});
  // Without a center, zipf's hot ranks start at a random range (fio's
  // rand_off), within one file or across two neighbours: the two busiest
  // files still hold the 1024 hottest ranks' 94 %.
  auto z = shares("zipf:1.2");
  std::sort(z.begin(), z.end());
  CHECK(z[3] + z[2] > 0.925);
}
