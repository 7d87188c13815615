// fio's engine and I/O mode semantics on a file (issue 16): direct=0 goes
// through the page cache, the synchronous engines do one I/O at a time with
// their own system calls, libaio is Linux AIO (and says so), mmap maps,
// verify follows fio's phase rules; loops, io_size and number_ios.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "../../common/needs_uring.hpp"
#include "../../common/result_helpers.hpp"
#include "../../common/temp_dir.hpp"
#include "fio/job_parser.hpp"
#include "fio/log_files.hpp"
#include "fio_run_on_file.hpp"
#include "levels/levels.hpp"
#include "raid/array.hpp"
#include "workload/job_checks.hpp"
#include "workload/offset_generator.hpp"
#include "workload/runner.hpp"
#include "workload/steady_state.hpp"
#include "workload/targets.hpp"

using namespace rs;
using namespace rs::workload;
using namespace rs::fio;

namespace {

std::vector<JobOptions> jobs_from(std::vector<std::string> args) {
  auto r = parse_cli_job(args);
  INFO(rs::test::error_text(r));
  REQUIRE(r.ok());
  return r->jobs;
}

RunOutcome run(std::vector<JobOptions>& jobs, Target& target) {
  std::string bad = check_jobs(jobs, target);
  INFO(bad);
  REQUIRE(bad.empty());
  return run_jobs(jobs, {}, target, nullptr, rs::fio::open_job_logs);
}

std::unique_ptr<DeviceTarget> open_target(const std::string& path) {
  std::string err;
  auto dev = rs::test::or_empty(io::MemberDevice::open(path, io::OpenMode::ReadWrite), &err);
  INFO(err);
  REQUIRE(dev);
  return std::make_unique<DeviceTarget>(std::move(dev));
}

// Evicts the file from the page cache, then counts its resident pages.
void drop_cache(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  ::fdatasync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
}
double resident_share(const std::string& path, uint64_t bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  REQUIRE(fd >= 0);
  void* p = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, 0);
  REQUIRE(p != MAP_FAILED);
  const size_t page = size_t(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> vec((bytes + page - 1) / page);
  REQUIRE(::mincore(p, bytes, vec.data()) == 0);
  size_t in = 0;
  for (unsigned char c : vec) in += c & 1;
  ::munmap(p, bytes);
  ::close(fd);
  return double(in) / double(vec.size());
}

uint64_t depth_level_ios(const JobResults& j, size_t level) {
  return j.depth_dist.level[level];
}

}  // namespace

TEST_CASE("direct=0 reads go through the page cache, direct=1 reads do not, and the output says which",
          "[engines][needs-uring]") {
  rs::test::require_uring();
  test::TempDir dir("rs-engines");
  const std::string path = dir.file("data");
  constexpr uint64_t kBytes = 16ull << 20;
  fio_test::write_filled_file(path, kBytes);
  auto target = open_target(path);

  for (const char* engine : {"psync", "io_uring"}) {
    drop_cache(path);
    REQUIRE(resident_share(path, kBytes) < 0.05);
    auto buffered = jobs_from({"--name=b", "--rw=read", "--bs=64k", "--size=16m", "--direct=0",
                               std::string("--ioengine=") + engine});
    auto out = run(buffered, *target);
    REQUIRE(out.results.jobs[0].error == 0);
    CHECK(out.results.jobs[0].read.io_bytes == kBytes);
    // Every page read is now cached: the reads went through the page cache.
    CHECK(resident_share(path, kBytes) > 0.95);
    REQUIRE(out.results.jobs[0].raidscope);
    CHECK(out.results.jobs[0].raidscope->io_mode == "buffered (page cache)");
    CHECK(out.results.jobs[0].raidscope->target.find("O_DIRECT") == std::string::npos);

    drop_cache(path);
    auto direct = jobs_from({"--name=d", "--rw=read", "--bs=64k", "--size=16m", "--direct=1",
                             std::string("--ioengine=") + engine});
    out = run(direct, *target);
    REQUIRE(out.results.jobs[0].error == 0);
    CHECK(out.results.jobs[0].read.io_bytes == kBytes);
    CHECK(resident_share(path, kBytes) < 0.05);
    CHECK(out.results.jobs[0].raidscope->io_mode == "direct (O_DIRECT)");
  }
}

TEST_CASE("buffered=1 is direct=0, buffered=0 is direct=1", "[engines]") {
  auto jobs = jobs_from({"--name=a", "--buffered=1", "--name=b", "--buffered=0", "--name=c"});
  CHECK_FALSE(jobs[0].direct);
  CHECK(jobs[0].direct_given);
  CHECK(jobs[1].direct);
  CHECK_FALSE(jobs[2].direct);  // fio's default
  CHECK_FALSE(jobs[2].direct_given);
}

TEST_CASE("psync with iodepth=16 runs one I/O at a time, as fio caps it; io_uring keeps 16 in flight",
          "[engines][needs-uring]") {
  rs::test::require_uring();
  test::TempDir dir("rs-engines");
  const std::string path = dir.file("data");
  fio_test::write_filled_file(path, 8ull << 20);
  auto target = open_target(path);

  auto psync = jobs_from({"--name=p", "--ioengine=psync", "--iodepth=16", "--rw=randread", "--bs=4k",
                          "--size=8m", "--direct=1"});
  const auto notes = engine_notes(psync);
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("queue depth will be capped at 1") != std::string::npos);
  auto out = run(psync, *target);
  const JobResults& p = out.results.jobs[0];
  REQUIRE(p.error == 0);
  CHECK(p.read.total_ios == 2048);
  // fio's "IO depths": every I/O was issued with nothing else in flight.
  CHECK(depth_level_ios(p, 0) == 2048);
  CHECK(p.raidscope->engine == "psync (pread/pwrite, one I/O at a time)");
  // A sync engine's I/O is its system call: all of it is completion latency.
  CHECK(p.read.slat.max() == 0);

  auto uring = jobs_from({"--name=u", "--ioengine=io_uring", "--iodepth=16", "--rw=randread", "--bs=4k",
                          "--size=8m", "--direct=1"});
  CHECK(engine_notes(uring).empty());
  out = run(uring, *target);
  const JobResults& u = out.results.jobs[0];
  REQUIRE(u.error == 0);
  CHECK(depth_level_ios(u, 0) < u.read.total_ios / 2);  // most were issued into a deeper queue
  CHECK(u.raidscope->engine.rfind("io_uring", 0) == 0);
}

TEST_CASE("every sync engine and mmap writes where it should: a verify pass through the same engine passes",
          "[engines][verify]") {
  test::TempDir dir("rs-engines");
  const std::string path = dir.file("data");
  fio_test::write_filled_file(path, 4ull << 20);
  auto target = open_target(path);
  for (const char* engine : {"psync", "sync", "vsync", "pvsync", "pvsync2", "mmap"}) {
    for (const char* direct : {"0", "1"}) {
      INFO(engine << " direct=" << direct);
      auto jobs =
          jobs_from({"--name=v", std::string("--ioengine=") + engine, std::string("--direct=") + direct,
                     "--rw=randwrite", "--bs=8k", "--size=4m", "--verify=crc32c"});
      auto out = run(jobs, *target);
      const JobResults& j = out.results.jobs[0];
      CHECK(j.error == 0);
      CHECK(out.verify_errors == 0);
      CHECK(j.write.io_bytes == 4ull << 20);
      CHECK(j.read.io_bytes == 4ull << 20);  // the verify pass read everything back
      CHECK(j.raidscope->engine.rfind(engine, 0) == 0);
    }
  }
  // A stale block is caught: the file is overwritten behind the job's back
  // between a write job and a read job that verifies.
  auto writer = jobs_from(
      {"--name=w", "--ioengine=sync", "--rw=write", "--bs=4k", "--size=1m", "--verify=md5", "--do_verify=0"});
  run(writer, *target);
  {
    const int fd = ::open(path.c_str(), O_WRONLY);
    const char junk[16] = "not what fio wr";
    REQUIRE(::pwrite(fd, junk, sizeof junk, 8192 + 100) == ssize_t(sizeof junk));
    ::close(fd);
  }
  auto reader =
      jobs_from({"--name=r", "--ioengine=mmap", "--rw=read", "--bs=4k", "--size=1m", "--verify=md5"});
  auto out = run(reader, *target);
  CHECK(out.verify_errors == 1);
}

TEST_CASE("libaio runs on Linux AIO and says so", "[engines]") {
  test::TempDir dir("rs-engines");
  const std::string path = dir.file("data");
  fio_test::write_filled_file(path, 4ull << 20);
  auto target = open_target(path);
  auto jobs = jobs_from({"--ioengine=libaio", "--iodepth=8", "--rw=randread", "--bs=4k", "--size=4m",
                         "--direct=1", "--name=a", "--name=b", "--verify=0"});
  CHECK(engine_notes(jobs).empty());  // nothing runs in its place
  auto out = run(jobs, *target);
  for (const auto& j : out.results.jobs) {
    CHECK(j.error == 0);
    CHECK(j.raidscope->engine == "libaio (Linux AIO: io_submit/io_getevents)");
  }
  // The data a libaio reader sees is the file's: a writer with md5 verify
  // writes one pass and reads it back through AIO.
  auto writer = jobs_from({"--name=w", "--ioengine=libaio", "--iodepth=16", "--rw=randwrite", "--bs=4k",
                           "--size=4m", "--direct=1", "--verify=md5"});
  out = run(writer, *target);
  CHECK(out.results.jobs[0].error == 0);
  CHECK(out.verify_errors == 0);
  CHECK(out.results.jobs[0].read.total_ios == 1024);  // every block verified
  // Buffered, Linux AIO does the I/O inside io_submit (for fio too), and we say so.
  auto buffered = jobs_from({"--name=c", "--ioengine=libaio", "--iodepth=8", "--rw=randread", "--bs=4k",
                             "--size=4m", "--direct=0"});
  out = run(buffered, *target);
  CHECK(out.results.jobs[0].error == 0);
  CHECK(out.results.jobs[0].raidscope->engine.find("inside io_submit") != std::string::npos);
  CHECK(out.results.jobs[0].raidscope->io_mode == "buffered (page cache)");
}

TEST_CASE(
    "an array refuses direct=0 written out and mmap, naming them; fio's default runs direct and says so",
    "[engines]") {
  test::TempDir dir("rs-engines");
  raid::CreateOptions o;
  o.level = 1;
  o.raid_disks = 2;
  o.create_files_bytes = 16ull << 20;
  auto arr = raid::Array::create(levels::builtin(), o, {dir.file("a.img"), dir.file("b.img")});
  REQUIRE(arr.ok());
  ArrayTarget target(**arr);
  auto buffered = jobs_from({"--name=b", "--direct=0", "--rw=read", "--size=1m"});
  std::string why = check_jobs(buffered, target);
  CHECK(why.find("direct=0") != std::string::npos);
  CHECK(why.find("page cache") != std::string::npos);
  auto mapped = jobs_from({"--name=m", "--direct=1", "--ioengine=mmap", "--rw=read", "--size=1m"});
  CHECK(check_jobs(mapped, target).find("ioengine=mmap") != std::string::npos);

  auto plain = jobs_from({"--name=p", "--rw=read", "--bs=64k", "--size=1m", "--iodepth=4"});
  auto out = run(plain, target);
  REQUIRE(out.results.jobs[0].error == 0);
  CHECK(out.results.jobs[0].raidscope->io_mode.rfind("direct", 0) == 0);
  // psync on an array: depth 1, and the output says it is not a system call.
  auto ps =
      jobs_from({"--name=s", "--ioengine=psync", "--iodepth=8", "--rw=randread", "--bs=4k", "--size=1m"});
  out = run(ps, target);
  CHECK(depth_level_ios(out.results.jobs[0], 0) == out.results.jobs[0].read.total_ios);
  CHECK(out.results.jobs[0].raidscope->engine.find("not a system call") != std::string::npos);
  CHECK((*arr)->close().ok());
}

TEST_CASE("verify follows fio's phases: one write pass, then verify, within the runtime",
          "[engines][verify]") {
  test::TempDir dir("rs-engines");
  const std::string path = dir.file("data");
  fio_test::write_filled_file(path, 4ull << 20);
  auto target = open_target(path);

  SECTION("loops=2: two write passes, each verified") {
    auto jobs =
        jobs_from({"--name=v", "--rw=write", "--bs=64k", "--size=2m", "--verify=crc32c", "--loops=2"});
    auto out = run(jobs, *target);
    CHECK(out.results.jobs[0].write.io_bytes == 4ull << 20);
    CHECK(out.results.jobs[0].read.io_bytes == 4ull << 20);
    CHECK(out.verify_errors == 0);
  }
  SECTION("a write pass cut by the runtime ends the job unverified, as fio does") {
    // 512 writes at 1000 IOPS need about 0.5 s; the runtime is 0.2 s.
    auto jobs = jobs_from({"--name=v", "--rw=randwrite", "--bs=4k", "--size=2m", "--verify=crc32c",
                           "--rate_iops=1000", "--runtime=200ms"});
    auto out = run(jobs, *target);
    const JobResults& j = out.results.jobs[0];
    CHECK(j.write.total_ios > 100);
    CHECK(j.write.total_ios < 400);
    CHECK(j.read.total_ios == 0);
    CHECK(j.job_runtime_ns < 400'000'000ull);
  }
  SECTION("time_based with verify: passes of size bytes, each verified, until the runtime") {
    auto jobs = jobs_from({"--name=v", "--rw=write", "--bs=64k", "--size=1m", "--verify=md5",
                           "--runtime=500ms", "--time_based", "--rate_iops=200"});
    auto out = run(jobs, *target);
    const JobResults& j = out.results.jobs[0];
    // 16 writes per pass at 200 IOPS: about 80 ms per pass, a few passes in 0.5 s.
    CHECK(j.write.total_ios >= 32);
    CHECK(j.read.total_ios >= 16);  // at least the first pass was verified
    CHECK(j.read.total_ios <= j.write.total_ios);
    CHECK(j.job_runtime_ns < 700'000'000ull);
    CHECK(out.verify_errors == 0);
  }
}

TEST_CASE("io_size, number_ios and filesize bound what a job moves", "[engines]") {
  NullTarget target(64ull << 20);
  auto jobs =
      jobs_from({"--name=a", "--rw=randread", "--bs=4k", "--size=1m", "--io_size=3m", "--name=b", "--rw=read",
                 "--bs=4k", "--size=8m", "--number_ios=100", "--name=c", "--rw=read", "--bs=4k", "--loops=3",
                 "--size=1m", "--name=d", "--rw=read", "--bs=4k", "--filesize=2m"});
  auto out = run(jobs, target);
  CHECK(out.results.jobs[0].read.io_bytes == 3ull << 20);
  CHECK(out.results.jobs[1].read.total_ios == 100);
  CHECK(out.results.jobs[2].read.io_bytes == 3ull << 20);
  CHECK(out.results.jobs[3].read.io_bytes == 2ull << 20);
}

TEST_CASE("options of the issue's list parse to fio's meaning", "[engines][job_parser]") {
  auto jobs =
      jobs_from({"--name=a", "--bs=4k,8k,16k", "--rate=1m,2m,3m", "--name=b", "--bssplit=4k/50:16k:64k/20",
                 "--name=c", "--bsrange=4k-32k,8k-8k", "--name=d", "--rw=read:-8k", "--name=e",
                 "--random_distribution=zoned:50/5:30/15:20/", "--name=f", "--exitall", "--exit_what=all",
                 "--new_group", "--name=g", "--wait_for=f", "--threads=1"});
  // The third value is the trims' block size; rate has no trim figure.
  CHECK(jobs[0].bs == std::array<uint32_t, 2>{4096, 8192});
  CHECK(jobs[0].bs_trim == 16384u);
  CHECK(jobs[0].rate == std::array<uint64_t, 2>{1 << 20, 2 << 20});
  // fio's bssplit: a size without a percentage gets what the others leave
  // (100 - 50 - 20 = 30), and the list is sorted by percentage.
  REQUIRE(jobs[1].bssplit[0].size() == 3);
  CHECK(jobs[1].bssplit[0][0].bs == 65536);
  CHECK(jobs[1].bssplit[0][0].percent == 20);
  CHECK(jobs[1].bssplit[0][1].bs == 16384);
  CHECK(jobs[1].bssplit[0][1].percent == 30);
  CHECK(jobs[1].bs[0] == 4096);
  CHECK(max_bs(jobs[1], 0) == 65536);
  CHECK(jobs[2].bs == std::array<uint32_t, 2>{4096, 8192});
  CHECK(max_bs(jobs[2], 0) == 32768);
  CHECK(max_bs(jobs[2], 1) == 8192);
  CHECK(jobs[3].seq_add == -8192);
  REQUIRE(jobs[4].zones.size() == 3);
  CHECK(jobs[4].zones[2].region_percent == 80.0);  // the empty last region takes the rest
  CHECK(jobs[5].exitall);
  CHECK(jobs[5].exit_what == JobOptions::ExitWhat::all);
  CHECK(jobs[5].new_group);
  CHECK(jobs[6].wait_for == "f");
  CHECK(jobs[6].thread);
}

TEST_CASE("variable block sizes, holes, backwards and zones land where fio puts them", "[engines]") {
  auto resolve = [](std::vector<JobOptions> jobs) {
    REQUIRE(validate_against_target(jobs[0], 1 << 20, 512).empty());
    return jobs[0];
  };
  SECTION("bssplit: lengths follow the weights, offsets stay in the region and aligned") {
    // norandommap: without fio's random map no I/O is cut short, so the
    // lengths are the drawn ones (the map's cuts: test_offset_generator).
    JobOptions j = resolve(
        jobs_from({"--name=s", "--rw=randread", "--bssplit=4k/75:64k/25", "--size=1m", "--norandommap"}));
    OffsetGenerator gen(j, 7);
    int big = 0;
    for (int i = 0; i < 4000; ++i) {
      IoRequest r = gen.next();
      CHECK((r.length == 4096 || r.length == 65536));
      CHECK(r.offset % 4096 == 0);
      CHECK(r.offset + r.length <= (1u << 20));
      big += r.length == 65536;
    }
    CHECK(big > 850);  // 25 % of 4000 = 1000
    CHECK(big < 1150);
  }
  SECTION("blockalign: 512-byte blocks at 4k-aligned offsets") {
    JobOptions j = resolve(
        jobs_from({"--name=a", "--rw=randread", "--bssplit=512/50:4k/50", "--blockalign=4k", "--size=1m"}));
    OffsetGenerator gen(j, 7);
    for (int i = 0; i < 1000; ++i) CHECK(gen.next().offset % 4096 == 0);
  }
  SECTION("rw=read:8k reads 4k then skips 8k") {
    JobOptions j = resolve(jobs_from({"--name=h", "--rw=read:8k", "--bs=4k", "--size=1m"}));
    OffsetGenerator gen(j, 7);
    CHECK(gen.next().offset == 0);
    CHECK(gen.next().offset == 12288);
    CHECK(gen.next().offset == 24576);
  }
  SECTION("rw=read:-8k: fio's backwards read (0, then from the end down in 4k steps)") {
    JobOptions j = resolve(jobs_from({"--name=b", "--rw=read:-8k", "--bs=4k", "--size=1m"}));
    OffsetGenerator gen(j, 7);
    CHECK(gen.next().offset == 0);
    CHECK(gen.next().offset == (1u << 20) - 8192);
    CHECK(gen.next().offset == (1u << 20) - 12288);
    CHECK(gen.next().offset == (1u << 20) - 16384);
  }
  SECTION("zoned:50/5:30/15:20/80") {
    JobOptions j = resolve(jobs_from({"--name=z", "--rw=randread", "--bs=4k", "--size=1m",
                                      "--random_distribution=zoned:50/5:30/15:20/80"}));
    OffsetGenerator gen(j, 7);
    int first = 0, second = 0, rest = 0;
    const uint64_t five = (1u << 20) / 20, twenty = (1u << 20) / 5;
    for (int i = 0; i < 10000; ++i) {
      const uint64_t off = gen.next().offset;
      (off < five ? first : off < twenty ? second : rest)++;
    }
    CHECK(std::abs(first - 5000) < 300);
    CHECK(std::abs(second - 3000) < 300);
    CHECK(std::abs(rest - 2000) < 300);
  }
}

TEST_CASE("new_group, wait_for and exitall shape the run as in fio", "[engines]") {
  NullTarget target(64ull << 20);
  SECTION("new_group: a new reporting group, jobs still start together") {
    auto jobs = jobs_from({"--ioengine=null", "--name=a", "--rw=read", "--size=4m", "--name=b", "--new_group",
                           "--rw=read", "--size=4m"});
    auto out = run(jobs, target);
    CHECK(out.results.jobs[0].groupid == 0);
    CHECK(out.results.jobs[1].groupid == 1);
  }
  SECTION("wait_for: starts after the named job, same reporting group") {
    auto jobs = jobs_from({"--ioengine=null", "--name=a", "--rw=read", "--size=4m", "--rate_iops=2000",
                           "--name=b", "--wait_for=a", "--rw=read", "--size=4m"});
    const auto t0 = std::chrono::steady_clock::now();
    auto out = run(jobs, target);
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    CHECK(out.results.jobs[1].groupid == 0);
    CHECK(secs > 0.45);  // a's 1024 I/Os at 2000 IOPS came first
    auto bad = jobs_from({"--name=x", "--wait_for=nobody", "--size=1m"});
    CHECK(check_jobs(bad, target).find("wait_for=nobody") != std::string::npos);
  }
  SECTION("exitall: the first job to finish ends the others of its group") {
    auto jobs = jobs_from({"--ioengine=null", "--name=quick", "--exitall", "--rw=read", "--size=1m",
                           "--rate_iops=1000", "--name=slow", "--rw=read", "--size=64m", "--rate_iops=1000",
                           "--name=later", "--stonewall", "--rw=read", "--size=1m"});
    auto out = run(jobs, target);
    CHECK(out.results.jobs[0].read.total_ios == 256);
    CHECK(out.results.jobs[1].read.total_ios < 400);   // stopped with quick, near 256
    CHECK(out.results.jobs[2].read.total_ios == 256);  // exit_what=group: the next group runs
  }
}

TEST_CASE("write_lat_log and write_bw_log write fio's log files", "[engines][logs]") {
  test::TempDir dir("rs-logs");
  NullTarget target(64ull << 20);
  const std::string prefix = dir.file("run");
  auto jobs = jobs_from({"--ioengine=null", "--name=j", "--rw=randread", "--bs=4k", "--size=64m",
                         "--runtime=1100ms", "--time_based", "--rate_iops=1000", "--write_lat_log=" + prefix,
                         "--write_bw_log=" + prefix, "--write_iops_log=" + prefix, "--log_offset=1"});
  auto out = run(jobs, target);
  const uint64_t ios = out.results.jobs[0].read.total_ios;
  auto lines = [](const std::string& path) {
    std::vector<std::string> v;
    FILE* f = std::fopen(path.c_str(), "r");
    REQUIRE(f);
    char buf[256];
    while (std::fgets(buf, sizeof buf, f)) v.emplace_back(buf);
    std::fclose(f);
    return v;
  };
  // fio keeps no submission latency for null at depth 1 (a FIO_SYNCIO
  // engine there): its slat log is empty, as fio's.
  CHECK(lines(prefix + "_slat.1.log").empty());
  // lat logs: one line per I/O: "ms, ns, ddir, bs, offset, prio".
  for (const char* kind : {"_lat.1.log", "_clat.1.log"}) {
    INFO(kind);
    auto v = lines(prefix + kind);
    CHECK(v.size() == ios);
    unsigned long long ms = 0, val = 0, off = 0;
    int ddir = -1, prio = -1;
    unsigned bs = 0;
    REQUIRE(std::sscanf(v.back().c_str(), "%llu, %llu, %d, %u, %llu, %d", &ms, &val, &ddir, &bs, &off,
                        &prio) == 6);
    CHECK(ddir == 0);
    CHECK(bs == 4096);
    CHECK(off % 4096 == 0);
    CHECK(ms <= 1200);
  }
  // bw and iops without log_avg_msec: a line per I/O too (fio's
  // per_unit_log): the I/O's own rate (bytes * 1e6 / clat ns, 0 when the
  // null target's clat is 0) and 1.
  auto bw = lines(prefix + "_bw.1.log");
  auto clat = lines(prefix + "_clat.1.log");
  REQUIRE(bw.size() == ios);
  REQUIRE(clat.size() == ios);
  for (size_t i = 0; i < bw.size(); i += 97) {
    unsigned long long ms = 0, rate = 0, cms = 0, cns = 0;
    REQUIRE(std::sscanf(bw[i].c_str(), "%llu, %llu", &ms, &rate) == 2);
    REQUIRE(std::sscanf(clat[i].c_str(), "%llu, %llu", &cms, &cns) == 2);
    CHECK(rate == (cns ? 4096ull * 1000000ull / cns : 0));
  }
  auto iops = lines(prefix + "_iops.1.log");
  REQUIRE(iops.size() == ios);
  unsigned long long ms = 0, one = 0;
  REQUIRE(std::sscanf(iops[0].c_str(), "%llu, %llu", &ms, &one) == 2);
  CHECK(one == 1);
}

TEST_CASE("log_avg_msec: averaged lines per window, the latency logs' partial window at the end",
          "[engines][logs]") {
  // fio 3.33, 4k randread, log_avg_msec=100, a 472 ms job: lat, clat and
  // slat logs at 100, 200, 300, 400 and 472 (finalize_logs writes the
  // partial window at the job's end); bw and iops only whole windows.
  test::TempDir dir("rs-avglogs");
  NullTarget target(64ull << 20);
  const std::string prefix = dir.file("avg");
  auto jobs = jobs_from({"--ioengine=null", "--name=j", "--rw=randread", "--bs=4k", "--size=64m",
                         "--runtime=450ms", "--time_based", "--rate_iops=2000", "--write_lat_log=" + prefix,
                         "--write_iops_log=" + prefix, "--log_avg_msec=100"});
  auto out = run(jobs, target);
  const uint64_t runtime_ms = out.results.jobs[0].read.runtime_ms();
  REQUIRE(runtime_ms >= 450);
  auto times = [](const std::string& path) {
    std::vector<unsigned long long> v;
    FILE* f = std::fopen(path.c_str(), "r");
    REQUIRE(f);
    char buf[256];
    unsigned long long ms = 0, value = 0;
    while (std::fgets(buf, sizeof buf, f))
      if (std::sscanf(buf, "%llu, %llu", &ms, &value) == 2) v.push_back(ms);
    std::fclose(f);
    return v;
  };
  for (const char* kind : {"_lat.1.log", "_clat.1.log", "_slat.1.log"}) {
    INFO(kind);
    auto v = times(prefix + kind);
    REQUIRE(v.size() == 5);
    CHECK(v[0] == 100);
    CHECK(v[3] == 400);
    CHECK(v[4] >= 450);  // the partial window, at the end
    CHECK(v[4] < 500);
  }
  auto iops = times(prefix + "_iops.1.log");
  CHECK(iops == std::vector<unsigned long long>{100, 200, 300, 400});
}

TEST_CASE("flow keeps jobs of one flow_id in the ratio of their weights", "[engines]") {
  NullTarget target(64ull << 20);
  // fio's flow.fio: a write job of weight 1 beside a read job of weight 8.
  // The one that ends last runs alone for the moment between the two jobs'
  // ends (a job leaves its flow group when it ends, as in fio): think time
  // keeps that tail to a few I/Os, where a null job would do thousands.
  auto jobs =
      jobs_from({"--ioengine=null", "--runtime=1s", "--time_based", "--bs=4k", "--size=64m", "--thinktime=20",
                 "--name=w", "--rw=write", "--flow=1", "--name=r", "--rw=randread", "--flow=8"});
  auto out = run(jobs, target);
  const double w = double(out.results.jobs[0].write.total_ios),
               r = double(out.results.jobs[1].read.total_ios);
  REQUIRE(w > 100);
  CHECK(r / w > 7.5);
  CHECK(r / w < 8.5);
}

TEST_CASE("flow: a job that ends leaves its flow group, and the others go on at once", "[engines]") {
  // fio's flow_put: job a (16 I/Os) ends early; b, of the same weight, must
  // then run its 1024 I/Os to the end, not wait for a until the runtime.
  NullTarget target(64ull << 20);
  auto jobs = jobs_from({"--ioengine=null", "--runtime=20s", "--bs=4k", "--rw=read", "--name=a", "--size=64k",
                         "--flow=1", "--name=b", "--size=4m", "--flow=1"});
  const auto t0 = std::chrono::steady_clock::now();
  auto out = run(jobs, target);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(out.results.jobs[0].read.total_ios == 16);
  CHECK(out.results.jobs[1].read.total_ios == 1024);
  CHECK(seconds < 10);  // b did not sit out the 20 s runtime
}

TEST_CASE("zonemode=strided: zonesize bytes per zone, then on by zonerange + zoneskip", "[engines]") {
  auto jobs =
      jobs_from({"--name=z", "--rw=read", "--bs=64k", "--size=1m", "--zonesize=128k", "--zoneskip=256k"});
  REQUIRE(validate_against_target(jobs[0], 1 << 20, 512).empty());
  OffsetGenerator gen(jobs[0], 1);
  const uint64_t want[] = {0, 65536, 393216, 458752, 786432, 851968, 0, 65536};
  for (uint64_t w : want) CHECK(gen.next().offset == w);
}

TEST_CASE("${VAR} and $ncpus in job files, as fio substitutes them", "[engines][job_parser]") {
  ::setenv("RS_TEST_BLOCK_SIZE", "16k", 1);
  auto r = parse_job_file("[j]\nbs=${RS_TEST_BLOCK_SIZE}\nnumjobs=$ncpus\n", "env.fio");
  INFO(rs::test::error_text(r));
  REQUIRE(r.ok());
  CHECK(r->jobs[0].bs[0] == 16384);
  CHECK(r->jobs[0].numjobs == unsigned(::sysconf(_SC_NPROCESSORS_ONLN)));
  ::unsetenv("RS_TEST_BLOCK_SIZE");
  r = parse_job_file("[j]\nbs=${RS_TEST_BLOCK_SIZE}\n", "env.fio");
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("RS_TEST_BLOCK_SIZE} is not set") != std::string::npos);
}

TEST_CASE(
    "a time based buffered job drops the region's cache each time it starts over (fio's "
    "loop_cache_invalidate)",
    "[engines]") {
  test::TempDir dir("rs-engines");
  const std::string path = dir.file("data");
  constexpr uint64_t kBytes = 8ull << 20;
  fio_test::write_filled_file(path, kBytes);
  auto target = open_target(path);
  // 2048 blocks of 4 KiB, read once and then 64 more: the wrap drops the
  // whole region, so only the last 64 blocks (and readahead) stay cached;
  // with invalidate=0 everything read stays cached.
  auto wrap = [&](const char* invalidate) {
    auto jobs = jobs_from({"--name=w", "--rw=read", "--bs=4k", "--size=8m", "--direct=0", "--time_based",
                           "--runtime=30", "--number_ios=2112", std::string("--invalidate=") + invalidate});
    run(jobs, *target);
    return resident_share(path, kBytes);
  };
  CHECK(wrap("1") < 0.5);
  CHECK(wrap("0") > 0.95);
}

TEST_CASE("a buffered job starts with the region dropped from the page cache (fio's invalidate=1)",
          "[engines][needs-uring]") {
  rs::test::require_uring();
  test::TempDir dir("rs-engines");
  const std::string path = dir.file("data");
  constexpr uint64_t kBytes = 8ull << 20;
  fio_test::write_filled_file(path, kBytes);
  auto target = open_target(path);
  // Read everything into the page cache, then a buffered job that reads
  // only the first 64 KiB: with invalidate=1 the rest is no longer cached,
  // with invalidate=0 it still is.
  auto warm = jobs_from({"--name=w", "--rw=read", "--bs=1m", "--size=8m", "--direct=0", "--invalidate=0"});
  run(warm, *target);
  REQUIRE(resident_share(path, kBytes) > 0.95);
  auto keep = jobs_from(
      {"--name=k", "--rw=read", "--bs=64k", "--size=8m", "--io_size=64k", "--direct=0", "--invalidate=0"});
  run(keep, *target);
  CHECK(resident_share(path, kBytes) > 0.95);
  auto drop = jobs_from({"--name=d", "--rw=read", "--bs=64k", "--size=8m", "--io_size=64k", "--direct=0"});
  run(drop, *target);
  CHECK(resident_share(path, kBytes) < 0.5);
}

TEST_CASE("a sync engine's think time runs from the I/O's completion", "[engines]") {
  test::TempDir dir("rs-engines");
  const std::string path = dir.file("data");
  fio_test::write_filled_file(path, 4ull << 20);
  auto target = open_target(path);
  // 100 reads, 2 ms of think time after each: at least 198 ms, whatever the reads cost.
  auto jobs = jobs_from({"--name=t", "--ioengine=psync", "--rw=randread", "--bs=4k", "--size=4m",
                         "--number_ios=100", "--thinktime=2000", "--direct=1"});
  auto out = run(jobs, *target);
  const JobResults& j = out.results.jobs[0];
  CHECK(j.read.total_ios == 100);
  CHECK(j.job_runtime_ns >= 198'000'000ull + 99 * j.read.clat.min());
}

using fio_test::iolog_issue_times;

TEST_CASE("think time spaces each job's issues: gaps of at least thinktime, IOPS at most 1/thinktime",
          "[engines]") {
  test::TempDir dir("rs-engines");
  const std::string path = dir.file("data");
  fio_test::write_filled_file(path, 4ull << 20);
  auto target = open_target(path);
  // Two clones of an io_uring job at depth 4, 1 ms of think time: fio thinks
  // after every I/O it issues (thinktime_blocks=1), so each clone issues one
  // I/O per ms whatever its depth: its I/O log shows gaps of at least 1000
  // us, its IOPS at most 1000, and the depth never above 1 (a 4k read takes
  // far less than 1 ms here).
  const std::string log = dir.file("think.iolog");
  auto jobs =
      jobs_from({"--name=t", "--ioengine=io_uring", "--iodepth=4", "--rw=randread", "--bs=4k", "--size=4m",
                 "--number_ios=60", "--thinktime=1000", "--direct=1", "--numjobs=2", "--write_iolog=" + log});
  auto out = run(jobs, *target);
  REQUIRE(out.results.jobs.size() == 2);
  for (const JobResults& j : out.results.jobs) {
    CHECK(j.read.total_ios == 60);
    // 60 I/Os, 59 gaps of 1 ms at least.
    CHECK(j.job_runtime_ns >= 59'000'000ull);
    CHECK(double(j.read.total_ios) / (double(j.job_runtime_ns) / 1e9) <= 1000.0 * 60 / 59);
  }
  // Both clones log to one file (fio appends), each line with the job's
  // own file path; the clones' lines interleave, so split them by time
  // order per clone: every clone's issues are 1000 us apart at least, so
  // the sorted union has at most 2 issues in any 1000 us window.
  auto times = iolog_issue_times(log);
  REQUIRE(times.size() == 1);
  std::vector<uint64_t> all = times.begin()->second;
  REQUIRE(all.size() == 120);
  std::sort(all.begin(), all.end());
  for (size_t i = 2; i < all.size(); ++i) {
    INFO("issues " << i - 2 << ".." << i << " at " << all[i - 2] << ", " << all[i - 1] << ", " << all[i]);
    CHECK(all[i] - all[i - 2] >= 1000);
  }
}

TEST_CASE("a sync engine's think time spaces completions by thinktime, not more", "[engines]") {
  test::TempDir dir("rs-engines");
  const std::string path = dir.file("data");
  fio_test::write_filled_file(path, 4ull << 20);
  auto target = open_target(path);
  // psync, 2 ms of think time: each issue comes 2 ms after the previous I/O
  // completed, so the gaps between issues are 2 ms plus one read, a page
  // cache hit here (invalidate=0 on a file just written). The median gap
  // stays under 3 ms: think time is waited, not overslept (a yielding spin
  // made it 4 ms on this loaded machine; fio 3.33 shows 2.01 ms here).
  const std::string log = dir.file("sync.iolog");
  auto jobs = jobs_from({"--name=s", "--ioengine=psync", "--rw=randread", "--bs=4k", "--size=4m",
                         "--number_ios=50", "--thinktime=2000", "--invalidate=0", "--write_iolog=" + log});
  run(jobs, *target);
  auto times = iolog_issue_times(log);
  REQUIRE(times.size() == 1);
  const auto& t = times.begin()->second;
  REQUIRE(t.size() == 50);
  std::vector<uint64_t> gaps;
  for (size_t i = 1; i < t.size(); ++i) gaps.push_back(t[i] - t[i - 1]);
  for (uint64_t g : gaps) CHECK(g >= 2000);
  std::sort(gaps.begin(), gaps.end());
  CHECK(gaps[gaps.size() / 2] < 3000);
}

TEST_CASE("gtod_reduce keeps no latency figures and no percentiles, as fio", "[engines]") {
  NullTarget target(64ull << 20);
  auto reduced =
      jobs_from({"--ioengine=null", "--name=g", "--rw=randread", "--bs=4k", "--size=64m", "--gtod_reduce=1"});
  auto out = run(reduced, target);
  const JobResults& j = out.results.jobs[0];
  CHECK(j.read.total_ios == 16384);  // 64 MiB / 4 KiB: every I/O counted
  CHECK(j.read.clat.count() == 0);
  CHECK(j.read.slat.count() == 0);
  CHECK(j.read.lat.count() == 0);
  CHECK_FALSE(j.clat_percentiles);
  auto plain = jobs_from({"--ioengine=null", "--name=p", "--rw=randread", "--bs=4k", "--size=64m"});
  out = run(plain, target);
  CHECK(out.results.jobs[0].read.clat.count() == 16384);
  CHECK(out.results.jobs[0].clat_percentiles);
}

TEST_CASE("steady state: a job whose IOPS hold still ends once the window says so", "[engines]") {
  NullTarget target(64ull << 20);
  // 1000 IOPS, samples every 200 ms, a window of 5 samples (1 s) after 200 ms of ramp.
  auto steady = jobs_from({"--ioengine=null", "--name=s", "--rw=randread", "--bs=4k", "--size=64m",
                           "--runtime=4", "--time_based", "--rate_iops=1000", "--ss=iops:20%", "--ss_dur=1",
                           "--ss_ramp=200ms", "--ss_interval=200ms"});
  auto out = run(steady, target);
  CHECK(out.results.jobs[0].job_runtime_ns > 1'100'000'000ull);
  CHECK(out.results.jobs[0].job_runtime_ns < 2'500'000'000ull);
  // A limit of 0 is never met (fio compares strictly): the job runs its whole runtime.
  auto never =
      jobs_from({"--ioengine=null", "--name=n", "--rw=randread", "--bs=4k", "--size=64m", "--runtime=1500ms",
                 "--time_based", "--rate_iops=1000", "--ss=iops:0", "--ss_dur=1", "--ss_interval=200ms"});
  out = run(never, target);
  CHECK(out.results.jobs[0].job_runtime_ns >= 1'450'000'000ull);
  SteadyState s(never[0]);
  REQUIRE(s.enabled());
}
