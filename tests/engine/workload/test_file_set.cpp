// Multi-file jobs (file_set.hpp): fio's file names and per-file sizes, and
// a run through BenchSession where the I/O spreads over the files as fio's
// file_service_type says. Expected values come from fio's rules
// (init.c make_filename, filesetup.c setup_files), computed by hand.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "../../common/member_reads.hpp"
#include "../../common/result_helpers.hpp"
#include "../../common/temp_dir.hpp"
#include "fio/job_parser.hpp"
#include "workload/bench.hpp"
#include "workload/file_set.hpp"

using namespace rs::workload;
using namespace rs::fio;
using rs::test::TempDir;

namespace {
JobOptions parse_one(const std::vector<std::string>& args) {
  auto r = parse_cli_job(args);
  INFO(rs::test::error_text(r));
  REQUIRE(r.ok());
  REQUIRE(r->jobs.size() == 1);
  return r->jobs[0];
}
}  // namespace

TEST_CASE("fio's file name format: $jobname, $jobnum, $filenum in any case", "[file_set]") {
  CHECK(format_file_name("", "job", 2, 7) == "job.2.7");
  CHECK(format_file_name("data-$JOBNUM-$filenum-$jobname", "x", 1, 3) == "data-1-3-x");
  CHECK(format_file_name("$filenum$filenum", "x", 0, 4) == "44");
  CHECK(format_file_name("fixed", "x", 0, 4) == "fixed");
}

TEST_CASE("a job's files: names per clone, size split as fio's setup_files", "[file_set]") {
  // 64k over 3 files: 21845 bytes each (64k / 3), the remainder 1 byte is
  // less than a block, so no file gets an extra block.
  JobOptions j = parse_one({"--name=w", "--rw=write", "--size=64k", "--nrfiles=3", "--directory=/d"});
  CHECK(is_file_set_job(j));
  auto files = rs::test::must(job_files(j, 1));
  REQUIRE(files.size() == 3);
  CHECK(files[0].path == "/d/w.1.0");
  CHECK(files[2].path == "/d/w.1.2");
  for (auto& f : files) CHECK(f.size == 21845);

  // 5000 bytes over 3 files with bs=1: 1666 each, and (5000 - 3 * 1666) / 1
  // = 2 extra blocks, one each for the first two files.
  j = parse_one({"--name=w", "--rw=read", "--size=5000", "--nrfiles=3", "--bs=1", "--directory=/d"});
  files = rs::test::must(job_files(j, 0));
  REQUIRE(files.size() == 3);
  CHECK(files[0].size == 1667);
  CHECK(files[1].size == 1667);
  CHECK(files[2].size == 1666);

  // filesize= per file; a:b lists shared files, directory in front of the
  // relative ones only, '\:' an escaped colon.
  j = parse_one({"--name=s", "--rw=read", "--filesize=8k", "--filename=a:/abs/b:c\\:d", "--directory=/d"});
  files = rs::test::must(job_files(j, 5));
  REQUIRE(files.size() == 3);
  CHECK(files[0].path == "/d/a");
  CHECK(files[1].path == "/abs/b");
  CHECK(files[2].path == "/d/c:d");
  for (auto& f : files) CHECK(f.size == 8192);

  // A single filename= keeps the one-target path.
  CHECK_FALSE(is_file_set_job(parse_one({"--name=x", "--filename=/tmp/x", "--size=4k"})));
}

TEST_CASE("a file's share smaller than a block is refused, naming the file", "[file_set]") {
  JobOptions j =
      parse_one({"--name=t", "--rw=read", "--size=12k", "--nrfiles=4", "--bs=4k", "--directory=/d"});
  const auto files = job_files(j, 0);
  REQUIRE_FALSE(files.ok());
  CHECK(files.error().code == rs::Errc::invalid_argument);
  CHECK_THAT(files.error().message, Catch::Contains("/d/t.0.0") && Catch::Contains("less than one block"));
}

TEST_CASE("random reads over 4 files: every block of every file once, spread evenly", "[file_set]") {
  TempDir dir("rs-fileset");
  // 4 files of 256 KiB, random reads with the random map: each of the
  // 64 blocks of each file is read once (256 I/Os, 64 per file).
  auto r = parse_cli_job({"--name=r", "--rw=randread", "--bs=4k", "--size=1m", "--nrfiles=4",
                          "--directory=" + dir.path, "--ioengine=psync"});
  REQUIRE(r.ok());
  BenchSpec spec;
  spec.jobs = r->jobs;
  BenchNotes notes;
  auto s = BenchSession::open(std::move(spec), &notes);
  INFO((s ? "" : s.error().message));
  REQUIRE(s);
  for (int f = 0; f < 4; ++f) {
    struct stat st {};
    REQUIRE(::stat(dir.file("r.0." + std::to_string(f)).c_str(), &st) == 0);
    CHECK(st.st_size == 256 * 1024);
  }
  RunProgress progress;
  RunOutcome out = (*s)->run(progress, nullptr, &notes);
  REQUIRE(out.ok);
  REQUIRE(out.results.jobs.size() == 1);
  CHECK(out.results.jobs[0].error == 0);
  const auto members = (*s)->target().members();
  REQUIRE(members.size() == 4);
  for (const auto& m : members) {
    INFO(m.path);
    CHECK(m.counters.reads == 64);
    CHECK(m.counters.read_bytes == 256 * 1024);
    CHECK(m.counters.writes == 0);
  }
}

TEST_CASE("file_service_type=random spreads I/O over the files, sequential keeps to one", "[file_set]") {
  TempDir dir("rs-fileset");
  auto run = [&](const std::string& service, uint64_t runtime_ios) {
    auto r = parse_cli_job({"--name=" + service, "--rw=randread", "--bs=4k", "--size=512k", "--nrfiles=2",
                            "--directory=" + dir.path, "--file_service_type=" + service,
                            "--number_ios=" + std::to_string(runtime_ios)});
    REQUIRE(r.ok());
    BenchSpec spec;
    spec.jobs = r->jobs;
    BenchNotes notes;
    auto s = BenchSession::open(std::move(spec), &notes);
    REQUIRE(s);
    RunProgress progress;
    REQUIRE((*s)->run(progress, nullptr, &notes).ok);
    return rs::test::member_reads((*s)->target().members());
  };
  // sequential: the first 40 I/Os all go to the first file (it holds 64 blocks).
  CHECK(run("sequential", 40) == std::vector<uint64_t>{40, 0});
  // random:1 over 2 files, 40 I/Os: both get some (all 40 on one file has
  // probability 2^-39).
  const auto rnd = run("random", 40);
  CHECK(rnd[0] + rnd[1] == 40);
  CHECK(rnd[0] > 0);
  CHECK(rnd[1] > 0);
}
