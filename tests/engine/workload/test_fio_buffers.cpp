// Write buffer contents (issue 16; fio's dedupe-global example):
// buffer_compress_percentage, dedupe_percentage with dedupe_mode=repeat or
// working_set, dedupe_working_set_percentage, dedupe_global, refill_buffers.
// Expected values are worked out from fio's HOWTO rules by hand (see each
// case), counted on the file the job wrote.
#include <fcntl.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "../../common/result_helpers.hpp"
#include "../../common/temp_dir.hpp"
#include "fio_run_on_file.hpp"

using namespace rs;
using namespace rs::workload;
using namespace rs::fio;

namespace {

constexpr uint64_t kFile = 4 << 20;

std::string new_file(const test::TempDir& dir) {
  const std::string path = dir.file("f");
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  REQUIRE(fd >= 0);
  REQUIRE(::ftruncate(fd, kFile) == 0);
  ::close(fd);
  return path;
}

std::vector<unsigned char> contents(const std::string& path) {
  std::vector<unsigned char> data(kFile);
  const int fd = ::open(path.c_str(), O_RDONLY);
  REQUIRE(::pread(fd, data.data(), data.size(), 0) == ssize_t(data.size()));
  ::close(fd);
  return data;
}

size_t distinct_blocks(const std::vector<unsigned char>& d, uint64_t from, uint64_t to) {
  std::set<std::string> seen;
  for (uint64_t at = from; at < to; at += 4096) seen.emplace(reinterpret_cast<const char*>(&d[at]), 4096);
  return seen.size();
}

void write_job(const std::string& path, std::vector<std::string> extra) {
  std::vector<std::string> args = {"--name=w", "--rw=write", "--bs=4k", "--size=4m"};
  args.insert(args.end(), extra.begin(), extra.end());
  RunOutcome out = fio_test::run_on_file(path, args);
  REQUIRE(out.ok);
  REQUIRE(out.results.jobs[0].error == 0);
}

}  // namespace

TEST_CASE("buffer_compress_percentage: each 512-byte chunk ends in zeros", "[buffers]") {
  test::TempDir dir("rs-buffers");
  const std::string path = new_file(dir);
  write_job(path, {"--buffer_compress_percentage=50"});
  const auto d = contents(path);
  // 50 % of 512: bytes 256..511 of every chunk are zeros, 0..255 random.
  for (uint64_t at = 0; at < kFile; at += 512) {
    INFO("chunk at " << at);
    bool random_part_zero = true;
    for (int i = 0; i < 256; ++i) random_part_zero &= d[at + i] == 0;
    REQUIRE_FALSE(random_part_zero);
    for (int i = 256; i < 512; ++i) REQUIRE(d[at + i] == 0);
  }
  // Writes are refilled: no two 4 KiB blocks alike.
  CHECK(distinct_blocks(d, 0, kFile) == kFile / 4096);
}

TEST_CASE("dedupe_percentage=100, dedupe_mode=repeat: every write repeats the first", "[buffers]") {
  test::TempDir dir("rs-buffers");
  const std::string path = new_file(dir);
  write_job(path, {"--dedupe_percentage=100"});
  CHECK(distinct_blocks(contents(path), 0, kFile) == 1);
}

TEST_CASE("refill_buffers: fresh contents for every write", "[buffers]") {
  test::TempDir dir("rs-buffers");
  const std::string path = new_file(dir);
  // Scrambling off: it alone stamps every block with its offset.
  write_job(path, {"--scramble_buffers=0", "--refill_buffers=1"});
  CHECK(distinct_blocks(contents(path), 0, kFile) == 1024);
  // The control: without refill the buffers are filled once and reused.
  write_job(path, {"--scramble_buffers=0"});
  CHECK(distinct_blocks(contents(path), 0, kFile) < 1024);
}

TEST_CASE("dedupe_mode=working_set: the set is the job's first fresh contents, as fio's", "[buffers]") {
  test::TempDir dir("rs-buffers");
  const std::string path = new_file(dir);
  write_job(path,
            {"--dedupe_percentage=50", "--dedupe_mode=working_set", "--dedupe_working_set_percentage=50"});
  // 1024 writes, F of them fresh: F ~ Binomial(1024, 0.5), 432..592 (5 sd).
  // fio's working set is the contents of the job's first 512 fresh writes
  // (dedupe.c copies the states its fresh buffers start from), so a
  // dedupe write adds a new content only for an entry i >= F: distinct =
  // F + (entries >= F drawn) <= max(F, 512). So 432..592; fio 3.33 gave
  // 520, 549, 541 (randseed 1..3). A set of its own (512 contents apart
  // from the fresh ones, ~324 of them drawn by ~512 dedupe writes) would
  // give ~836.
  const size_t n = distinct_blocks(contents(path), 0, kFile);
  CHECK(n >= 432);
  CHECK(n <= 592);
}

TEST_CASE("dedupe_global=1 spreads the working set over the run's jobs", "[buffers]") {
  for (bool global : {true, false}) {
    test::TempDir dir("rs-buffers");
    const std::string path = new_file(dir);
    const std::string g = global ? "--dedupe_global=1" : "--dedupe_global=0";
    std::vector<std::string> common = {"--rw=write",
                                       "--bs=4k",
                                       "--size=2m",
                                       "--dedupe_percentage=80",
                                       "--dedupe_mode=working_set",
                                       "--dedupe_working_set_percentage=10",
                                       g};
    std::vector<std::string> args = {"--name=a", "--offset=0"};
    args.insert(args.end(), common.begin(), common.end());
    args.insert(args.end(), {"--name=b", "--offset=2m"});
    args.insert(args.end(), common.begin(), common.end());
    RunOutcome out = fio_test::run_on_file(path, args);
    REQUIRE(out.ok);
    // Each job: 512 writes, ~410 of them from a set of 51 (10 % of 512
    // blocks). Global: fio's set for job a is a's fresh contents 0..24, b's
    // 0..24 and a's 0 again (blocks of 51 / 2 = 25 per job in turn), and
    // b's the other way round, so ~410 draws from 51 entries show all 25 of
    // the other job's in each half: 50 contents in both halves (fio 3.33:
    // 50, seeds 1 and 2). Not global: each job only its own, none shared.
    const auto d = contents(path);
    std::set<std::string> a, b;
    for (uint64_t at = 0; at < kFile / 2; at += 4096) a.emplace(reinterpret_cast<const char*>(&d[at]), 4096);
    for (uint64_t at = kFile / 2; at < kFile; at += 4096)
      b.emplace(reinterpret_cast<const char*>(&d[at]), 4096);
    size_t shared = 0;
    for (const auto& block : a) shared += b.count(block);
    INFO("dedupe_global=" << global << ": " << shared << " contents in both halves");
    if (global)
      CHECK(shared == 50);
    else
      CHECK(shared == 0);
  }
}

TEST_CASE("dedupe_mode=working_set: fio's refusals", "[buffers]") {
  test::TempDir dir("rs-buffers");
  const std::string path = new_file(dir);
  auto refusal = [&](std::vector<std::string> args) {
    args.push_back("--filename=" + path);
    auto r = parse_cli_job(args);
    REQUIRE(r.ok());
    std::string err;
    auto dev = rs::test::or_empty(io::MemberDevice::open(path, io::OpenMode::ReadWrite), &err);
    REQUIRE(dev);
    DeviceTarget target(std::move(dev));
    return check_jobs(r->jobs, target);
  };
  // Set and dedupe share add up to over 100 %: the set's pages are unique.
  CHECK_THAT(refusal({"--name=w", "--rw=write", "--size=1m", "--dedupe_percentage=100",
                      "--dedupe_mode=working_set", "--dedupe_working_set_percentage=10"}),
             Catch::Contains("dedupe_percentage=100 cannot be reached"));
  // The set is a share of size, so size must be given.
  CHECK_THAT(refusal({"--name=w", "--rw=write", "--dedupe_percentage=50", "--dedupe_mode=working_set"}),
             Catch::Contains("needs size="));
  CHECK(
      refusal({"--name=w", "--rw=write", "--size=1m", "--dedupe_percentage=50", "--dedupe_mode=working_set"})
          .empty());
}
