// Multi-file jobs (nrfiles, directory) with verify= and with trims (issue
// 16): each file is written and read back, or has its blocks discarded,
// as a one-file job does its region. Expected counts are hand computations:
// a job's region is split over its files (fio's setup_files: size /
// nrfiles each), one I/O per bs block.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <string>
#include <vector>

#include "../../common/temp_dir.hpp"
#include "fio_run_on_file.hpp"
#include "workload/bench.hpp"
#include "fio/job_parser.hpp"

using namespace rs::workload;
using namespace rs::fio;
using rs::test::TempDir;

namespace {

RunOutcome run_bench(std::vector<std::string> args) {
  RunOutcome out = fio_test::run_bench(std::move(args)).out;
  REQUIRE(out.results.jobs.size() == 1);
  return out;
}

// Where the file's data starts (SEEK_DATA): its size when it holds none.
off_t first_data(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  struct stat st {};
  ::fstat(fd, &st);
  const off_t at = ::lseek(fd, 0, SEEK_DATA);
  ::close(fd);
  return at < 0 ? st.st_size : at;
}

}  // namespace

TEST_CASE("verify over several files: every file written, then read back and checked", "[fio][verify][file_set]") {
  TempDir dir("rs-files-verify");
  // 192k over 3 files: 64k each, 16 blocks of 4k: 48 writes, 48 reads.
  RunOutcome out = run_bench({"--name=v", "--directory=" + dir.path, "--nrfiles=3", "--size=192k", "--bs=4k",
                              "--rw=randwrite", "--verify=md5"});
  const JobResults& j = out.results.jobs[0];
  CHECK(j.error == 0);
  CHECK(out.verify_errors == 0);
  CHECK(j.write.total_ios == 48);
  CHECK(j.read.total_ios == 48);
  CHECK(j.read.io_bytes == 192 * 1024);

  // A read job with verify over the same files checks what the writer
  // left: one byte changed in file 1 at 8k + 100 fails block 8k of it.
  const std::string victim = dir.file("v.0.1");
  const int fd = ::open(victim.c_str(), O_WRONLY);
  REQUIRE(fd >= 0);
  const char x = '!';
  REQUIRE(::pwrite(fd, &x, 1, 8192 + 100) == 1);
  ::close(fd);
  out = run_bench({"--name=v", "--directory=" + dir.path, "--nrfiles=3", "--size=192k", "--bs=4k", "--rw=read",
                   "--verify=md5"});
  CHECK(out.verify_errors == 1);
  REQUIRE(out.verify_messages.size() == 1);
  INFO(out.verify_messages[0]);
  CHECK(out.verify_messages[0].find("at offset 8192") != std::string::npos);
  CHECK(out.verify_messages[0].find("v.0.1") != std::string::npos);
}

TEST_CASE("trims over several files punch holes in each file's region", "[fio][trim][file_set]") {
  TempDir dir("rs-files-trim");
  // Two files of 64k data each; the job's region is their first 32k
  // (filesize=32k): 8 trims of 4k per file, so each file's data then
  // starts at 32k.
  for (const char* f : {"t.0.0", "t.0.1"}) fio_test::write_filled_file(dir.file(f), 64 * 1024);
  RunOutcome out = run_bench(
      {"--name=t", "--directory=" + dir.path, "--nrfiles=2", "--filesize=32k", "--bs=4k", "--rw=trim"});
  const JobResults& j = out.results.jobs[0];
  CHECK(j.error == 0);
  CHECK(j.trim.total_ios == 16);
  CHECK(j.trim.io_bytes == 64 * 1024);
  CHECK(first_data(dir.file("t.0.0")) == 32 * 1024);
  CHECK(first_data(dir.file("t.0.1")) == 32 * 1024);
  REQUIRE(j.raidscope);
  CHECK(j.raidscope->engine.find("fallocate(PUNCH_HOLE)") != std::string::npos);

  // trimwrite: each block trimmed, then written: 8 + 8 per file, the data back.
  out = run_bench({"--name=t", "--directory=" + dir.path, "--nrfiles=2", "--filesize=32k", "--bs=4k",
                   "--rw=randtrimwrite"});
  CHECK(out.results.jobs[0].trim.total_ios == 16);
  CHECK(out.results.jobs[0].write.total_ios == 16);
  CHECK(first_data(dir.file("t.0.0")) == 0);
  CHECK(first_data(dir.file("t.0.1")) == 0);
}

TEST_CASE("one target past 1 TiB: verify and the I/O log keep offsets above 2^40 as they are",
          "[fio][verify]") {
  // File sets carry a file's index above bit 40 of a job offset; a single
  // target's offsets are plain and may pass it. A sparse 2 TiB file, one
  // MiB written and verified at 1.5 TiB.
  TempDir dir("rs-big");
  const std::string path = dir.file("big");
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT, 0644);
  REQUIRE(fd >= 0);
  REQUIRE(::ftruncate(fd, off_t(2) << 40) == 0);
  ::close(fd);
  const std::string log = dir.file("iolog");
  const uint64_t at = uint64_t(1536) << 30;
  RunOutcome out = fio_test::run_on_file(path, {"--name=v", "--rw=write", "--bs=4k", "--size=1m",
                                                "--offset=" + std::to_string(at), "--verify=crc32c",
                                                "--ioengine=psync", "--write_iolog=" + log});
  REQUIRE(out.results.jobs.size() == 1);
  CHECK(out.results.jobs[0].error == 0);
  CHECK(out.verify_errors == 0);
  CHECK(out.results.jobs[0].read.total_ios == 256);  // every block read back
  std::ifstream in(log);
  std::string line;
  bool first_write_seen = false;
  while (std::getline(in, line))
    if (line.find(" write ") != std::string::npos) {
      CHECK(line.find(" write " + std::to_string(at) + " 4096") != std::string::npos);
      first_write_seen = true;
      break;
    }
  CHECK(first_write_seen);
}
