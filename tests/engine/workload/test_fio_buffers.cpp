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

#include "../../common/temp_dir.hpp"
#include "fio_run_on_file.hpp"

using namespace rs;
using namespace rs::workload;

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

TEST_CASE("dedupe_mode=working_set: half the writes from a set of 10 % of the blocks", "[buffers]") {
  test::TempDir dir("rs-buffers");
  const std::string path = new_file(dir);
  write_job(path,
            {"--dedupe_percentage=50", "--dedupe_mode=working_set", "--dedupe_working_set_percentage=10"});
  // 1024 writes: unique ones ~ Binomial(1024, 0.5), 512 +- 80 (5 sd); the
  // rest come from 102 contents (10 % of 1024), of which ~500 draws hit
  // nearly all (at least 90). So 522..694 distinct blocks.
  const size_t n = distinct_blocks(contents(path), 0, kFile);
  CHECK(n >= 522);
  CHECK(n <= 694);
}

TEST_CASE("dedupe_global=1 shares the working set between jobs", "[buffers]") {
  for (bool global : {true, false}) {
    test::TempDir dir("rs-buffers");
    const std::string path = new_file(dir);
    const std::string g = global ? "--dedupe_global=1" : "--dedupe_global=0";
    std::vector<std::string> common = {"--rw=write",
                                       "--bs=4k",
                                       "--size=2m",
                                       "--dedupe_percentage=100",
                                       "--dedupe_mode=working_set",
                                       "--dedupe_working_set_percentage=10",
                                       g};
    std::vector<std::string> args = {"--name=a", "--offset=0"};
    args.insert(args.end(), common.begin(), common.end());
    args.insert(args.end(), {"--name=b", "--offset=2m"});
    args.insert(args.end(), common.begin(), common.end());
    RunOutcome out = fio_test::run_on_file(path, args);
    REQUIRE(out.ok);
    // Each job: 512 writes, all from a set of 51 (10 % of 512 blocks).
    const size_t n = distinct_blocks(contents(path), 0, kFile);
    INFO("dedupe_global=" << global << ": " << n << " distinct blocks");
    if (global)
      CHECK(n <= 51);  // one set for both jobs
    else
      CHECK(n > 51);  // each job its own set: up to 102
  }
}
