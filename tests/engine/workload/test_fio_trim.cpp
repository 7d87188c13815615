// rw=trim, randtrim, trimwrite on a file (issue 16): a trim punches a hole,
// so the file's allocated blocks drop and the range reads back as zeros;
// the counts are fio's (checked by hand against fio 3.33's null engine:
// size=256k bs=64k gives 4 trims, and trimwrite 4 trims + 4 writes).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "../../common/result_helpers.hpp"
#include "../../common/temp_dir.hpp"
#include "fio/job_parser.hpp"
#include "fio/json_output.hpp"
#include "fio/log_files.hpp"
#include "fio_run_on_file.hpp"
#include "workload/runner.hpp"
#include "workload/targets.hpp"

using namespace rs;
using namespace rs::workload;
using namespace rs::fio;

namespace {

constexpr uint8_t kFill = 0x5a;

std::vector<uint8_t> read_file(const std::string& path, uint64_t bytes) {
  std::vector<uint8_t> data(bytes);
  const int fd = ::open(path.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  REQUIRE(::pread(fd, data.data(), bytes, 0) == ssize_t(bytes));
  ::close(fd);
  return data;
}

uint64_t allocated_bytes(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return uint64_t(st.st_blocks) * 512;
}

bool all_equal(const std::vector<uint8_t>& d, uint64_t from, uint64_t to, uint8_t v) {
  for (uint64_t i = from; i < to; ++i)
    if (d[i] != v) return false;
  return true;
}

}  // namespace

TEST_CASE("trim options: rw modes and the third bs value", "[trim][job_parser]") {
  auto r =
      parse_job_file("[a]\nrw=trim\nbs=8k\n[b]\nrw=randtrim\nbs=4k,8k,16k\n[c]\nrw=trimwrite\n", "x.fio");
  INFO(rs::test::error_text(r));
  REQUIRE(r.ok());
  CHECK(r->jobs[0].rw == RwMode::trim);
  CHECK(r->jobs[0].bs_trim == 8192u);  // bs=8k sets every direction, trims too
  CHECK(r->jobs[1].rw == RwMode::randtrim);
  CHECK(r->jobs[1].bs_trim == 16384u);
  CHECK(r->jobs[1].bs[kDdirRead] == 4096u);
  CHECK(r->jobs[1].bs[kDdirWrite] == 8192u);
  CHECK(r->jobs[2].rw == RwMode::trimwrite);
  CHECK(does_trim(RwMode::randtrimwrite));
  CHECK_FALSE(does_read(RwMode::trim));
  CHECK_FALSE(does_write(RwMode::trim));
  CHECK(does_write(RwMode::trimwrite));
  auto bad = parse_job_file("[a]\nrw=trim:8k\n", "x.fio");
  CHECK_FALSE(bad.ok());
  CHECK_THAT(bad.error().message, Catch::Contains("':N' postfix is not supported with trims"));
}

TEST_CASE("rw=trim punches a hole: blocks freed, zeros read back, fio's counts", "[trim]") {
  test::TempDir dir("rs-trim");
  const std::string path = dir.file("f");
  constexpr uint64_t kFile = 1 << 20, kOff = 256 << 10, kSize = 512 << 10;
  fio_test::write_filled_file(path, kFile, kFill);
  REQUIRE(allocated_bytes(path) >= kFile);
  RunOutcome out =
      fio_test::run_on_file(path, {"--name=t", "--rw=trim", "--bs=64k", "--offset=256k", "--size=512k"});
  REQUIRE(out.ok);
  REQUIRE(out.results.jobs.size() == 1);
  const JobResults& j = out.results.jobs[0];
  CHECK(j.error == 0);
  CHECK(j.trim.total_ios == kSize / (64 << 10));  // 8
  CHECK(j.trim.io_bytes == kSize);
  CHECK(j.read.total_ios == 0);
  CHECK(j.write.total_ios == 0);
  // The output says how the trims were done, not only the engine asked for.
  REQUIRE(j.raidscope);
  CHECK_THAT(j.raidscope->engine, Catch::EndsWith("; trims done at issue: fallocate(PUNCH_HOLE)"));
  // What is left allocated: the file less the 512 KiB punched (a little
  // more for a filesystem's own metadata blocks).
  const uint64_t left = allocated_bytes(path);
  CHECK(left >= kFile - kSize);
  CHECK(left <= kFile - kSize + (16 << 10));
  const auto data = read_file(path, kFile);
  CHECK(all_equal(data, 0, kOff, kFill));
  CHECK(all_equal(data, kOff, kOff + kSize, 0));
  CHECK(all_equal(data, kOff + kSize, kFile, kFill));
  // fio's JSON: the trim section carries the figures.
  const auto doc = fio_json_document(out.results);
  CHECK(doc["jobs"][0]["trim"]["total_ios"] == 8);
  CHECK(doc["jobs"][0]["trim"]["io_bytes"] == kSize);
  CHECK(doc["jobs"][0]["read"]["total_ios"] == 0);
}

TEST_CASE("rw=randtrim trims every block of the region once per pass", "[trim]") {
  test::TempDir dir("rs-trim");
  const std::string path = dir.file("f");
  constexpr uint64_t kFile = 1 << 20;
  fio_test::write_filled_file(path, kFile, kFill);
  RunOutcome out = fio_test::run_on_file(path, {"--name=t", "--rw=randtrim", "--bs=4k"});
  REQUIRE(out.ok);
  const JobResults& j = out.results.jobs[0];
  CHECK(j.trim.total_ios == kFile / 4096);  // 256: the random map visits each block once
  CHECK(allocated_bytes(path) <= (16 << 10));
  CHECK(all_equal(read_file(path, kFile), 0, kFile, 0));
}

TEST_CASE("rw=trimwrite trims each block, then writes it", "[trim]") {
  test::TempDir dir("rs-trim");
  const std::string path = dir.file("f");
  constexpr uint64_t kFile = 1 << 20, kSize = 256 << 10, kBs = 64 << 10;
  fio_test::write_filled_file(path, kFile, kFill);
  RunOutcome out = fio_test::run_on_file(path, {"--name=t", "--rw=trimwrite", "--bs=64k", "--size=256k"});
  REQUIRE(out.ok);
  const JobResults& j = out.results.jobs[0];
  // fio: size counts the trims; each trimmed block is written as well.
  CHECK(j.trim.total_ios == kSize / kBs);
  CHECK(j.write.total_ios == kSize / kBs);
  CHECK(j.write.io_bytes == kSize);
  const auto data = read_file(path, kFile);
  // Written back: allocated again, and holding the job's data in every
  // 4 KiB of the region (neither the hole's zeros nor the old bytes).
  CHECK(allocated_bytes(path) >= kFile);
  for (uint64_t b = 0; b < kSize; b += 4096) {
    INFO("block at " << b);
    CHECK_FALSE(all_equal(data, b, b + 4096, 0));
    CHECK_FALSE(all_equal(data, b, b + 4096, kFill));
  }
  CHECK(all_equal(data, kSize, kFile, kFill));
}

TEST_CASE("trimwrite writes each block at the trim's size, as fio", "[trim]") {
  // fio (t0023's bs_no_rm, bs=4k,4k,8k): "block sizes 8k for both write
  // and trim". Here 1 MiB of 16 KiB trims: 64 trims, 64 writes of 16 KiB.
  auto r = parse_cli_job({"--name=t", "--rw=trimwrite", "--bs=4k,8k,16k", "--size=1m", "--ioengine=null"});
  REQUIRE(r.ok());
  NullTarget target(1 << 20);
  REQUIRE(check_jobs(r->jobs, target).empty());
  RunOutcome out = run_jobs(r->jobs, {}, target, nullptr, rs::fio::open_job_logs);
  REQUIRE(out.ok);
  CHECK(out.results.jobs[0].trim.total_ios == 64);
  CHECK(out.results.jobs[0].write.total_ios == 64);
  CHECK(out.results.jobs[0].write.io_bytes == 1u << 20);
}

TEST_CASE("bsrange and bssplit give trims their sizes too", "[trim][job_parser]") {
  auto r = parse_job_file(
      "[a]\nbsrange=512-4k\n[b]\nbssplit=512/25:1k/:2k/:4k/\n[c]\nbsrange=1k-2k,1k-2k,8k-16k\n"
      "[d]\nbssplit=1k/50:2k/50\nbs=4k\n",
      "x.fio");
  INFO(rs::test::error_text(r));
  REQUIRE(r.ok());
  CHECK(r->jobs[0].bs_trim == 512u);
  CHECK(r->jobs[0].bs_trim_max == 4096u);
  CHECK(r->jobs[1].bs_trim == 512u);
  CHECK(r->jobs[1].bs_trim_max == 4096u);
  REQUIRE(r->jobs[1].bssplit_trim.size() == 4);
  CHECK(r->jobs[1].bssplit_trim.back().percent == 25);  // the rest share 75: 25 each
  CHECK(r->jobs[2].bs_trim == 8192u);
  CHECK(r->jobs[2].bs_trim_max == 16384u);
  CHECK(r->jobs[3].bs_trim == 4096u);  // a later bs= fixes the size again
  CHECK(r->jobs[3].bs_trim_max == 0u);
  CHECK(r->jobs[3].bssplit_trim.empty());
}

TEST_CASE("trims at a queue depth complete one after another, each counted once", "[trim]") {
  // Trims are done at issue: at iodepth=8 on the null target the job still
  // does size/bs of them, and ends.
  auto r =
      parse_cli_job({"--name=t", "--rw=randtrim", "--bs=4k", "--size=1m", "--iodepth=8", "--ioengine=null"});
  REQUIRE(r.ok());
  NullTarget target(1 << 20);
  REQUIRE(check_jobs(r->jobs, target).empty());
  RunOutcome out = run_jobs(r->jobs, {}, target, nullptr, rs::fio::open_job_logs);
  REQUIRE(out.ok);
  CHECK(out.results.jobs[0].trim.total_ios == 256);
  CHECK(out.results.jobs[0].trim.io_bytes == 1u << 20);
}

TEST_CASE("bs and rate third values follow fio's HOWTO", "[trim][job_parser]") {
  // HOWTO: "bs=8k,32k means 8k for reads, 32k for writes and trims";
  // "bs=8k,32k, ... default for trims"; "bs=,8k means default for reads,
  // 8k for writes and trims"; "bs=,8k, ... default for trims".
  auto r = parse_job_file("[a]\nbs=8k,32k\n[b]\nbs=8k,32k,\n[c]\nbs=,8k\n[d]\nbs=,8k,\n", "x.fio");
  INFO(rs::test::error_text(r));
  REQUIRE(r.ok());
  CHECK(r->jobs[0].bs_trim == 32768u);
  CHECK(r->jobs[1].bs_trim == 4096u);
  CHECK(r->jobs[2].bs[kDdirRead] == 4096u);
  CHECK(r->jobs[2].bs_trim == 8192u);
  CHECK(r->jobs[3].bs_trim == 4096u);
  auto rate = parse_job_file("[a]\nrate_iops=100,200,300\n[b]\nrate_iops=100,200\n", "x.fio");
  REQUIRE(rate.ok());
  CHECK(rate->jobs[0].rate_iops_trim == 300u);
  CHECK(rate->jobs[1].rate_iops_trim == 200u);
}

TEST_CASE("rate_iops's third value limits trims", "[trim]") {
  // 200 trims at most 1000 per second take at least 0.199 s (the first
  // goes at once); without the limit the null target does them in well
  // under a millisecond each.
  auto r = parse_cli_job(
      {"--name=t", "--rw=randtrim", "--bs=4k", "--size=800k", "--ioengine=null", "--rate_iops=,,1000"});
  REQUIRE(r.ok());
  NullTarget target(1 << 20);
  REQUIRE(check_jobs(r->jobs, target).empty());
  RunOutcome out = run_jobs(r->jobs, {}, target, nullptr, rs::fio::open_job_logs);
  REQUIRE(out.ok);
  CHECK(out.results.jobs[0].trim.total_ios == 200);
  CHECK(out.results.jobs[0].trim.runtime_ns >= 199'000'000u);
}
