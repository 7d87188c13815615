// The job runner on real targets: budgets, numjobs, stonewall groups, the
// null target, fio JSON that fio's readers accept, and verify runs through
// an array that loses a member mid-run.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>

#include "../../common/needs_tool.hpp"
#include "../../common/result_helpers.hpp"
#include "fio/job_parser.hpp"
#include "fio/json_output.hpp"
#include "levels/levels.hpp"
#include "raid/array.hpp"
#include "workload/runner.hpp"
#include "workload/targets.hpp"

using namespace rs;
using namespace rs::workload;
using namespace rs::fio;

namespace {

struct TempDir {
  std::string path;
  TempDir() {
    char tmpl[] = "/tmp/raidscope-runner.XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() { std::system(("rm -rf '" + path + "'").c_str()); }
};

std::vector<JobOptions> jobs_from(std::vector<std::string> args, OptionList* global = nullptr) {
  auto r = parse_cli_job(args);
  INFO(rs::test::error_text(r));
  REQUIRE(r.ok());
  if (global) *global = r->global.given;
  return r->jobs;
}

RunOutcome run(std::vector<JobOptions>& jobs, Target& target, RunProgress* progress = nullptr) {
  std::string bad = check_jobs(jobs, target);
  INFO(bad);
  REQUIRE(bad.empty());
  return run_jobs(jobs, {}, target, progress);
}

std::unique_ptr<raid::Array> make_array(const TempDir& dir, int level, int disks, uint32_t layout = 0x102) {
  raid::CreateOptions o;
  o.level = level;
  o.raid_disks = disks;
  if (level == 10) o.layout = layout;  // raid1 has neither layout nor chunk
  if (level != 1) o.chunk_bytes = 64 * 1024;
  o.create_files_bytes = 48ull << 20;
  std::vector<std::string> paths;
  for (int i = 0; i < disks; ++i) paths.push_back(dir.path + "/m" + std::to_string(i) + ".img");
  auto arr = raid::Array::create(levels::builtin(), o, paths);
  INFO((arr ? std::string() : arr.error().message));
  REQUIRE(arr.ok());
  return std::move(*arr);
}

// A DeviceTarget on a new sparse file of `bytes` at `file`.
std::unique_ptr<DeviceTarget> file_target(const std::string& file, uint64_t bytes) {
  {
    std::ofstream f(file);
    f.seekp(std::streamoff(bytes) - 1);
    f.put('x');
  }
  std::string err;
  auto dev = rs::test::or_empty(io::MemberDevice::open(file, io::OpenMode::ReadWrite), &err);
  INFO(err);
  REQUIRE(dev);
  return std::make_unique<DeviceTarget>(std::move(dev));
}

}  // namespace

TEST_CASE("null target: a size-bounded job moves exactly size bytes", "[runner]") {
  auto jobs = jobs_from({"--name=n", "--rw=randread", "--bs=4k", "--iodepth=32", "--size=64m"});
  NullTarget target(64ull << 20);
  RunProgress progress;
  auto out = run(jobs, target, &progress);
  REQUIRE(out.results.jobs.size() == 1);
  const auto& j = out.results.jobs[0];
  CHECK(j.error == 0);
  CHECK(j.read.total_ios == (64ull << 20) / 4096);
  CHECK(j.read.io_bytes == 64ull << 20);
  CHECK(j.write.total_ios == 0);
  CHECK(progress.ios.load() == j.read.total_ios);
  CHECK(j.read.clat.count() == j.read.total_ios);
}

TEST_CASE("null target: an I/O completes at submit and the next waits for its reap, as fio's null engine",
          "[runner]") {
  // fio's null engine is busy (FIO_Q_BUSY) while a submitted batch waits
  // to be reaped: at iodepth=16 with one I/O per submit, fio 3.33 shows
  // "IO depths: 1=100.0%", and its clat is its own submit/complete cost.
  auto jobs =
      jobs_from({"--name=n", "--ioengine=null", "--rw=randread", "--bs=4k", "--iodepth=16", "--size=4m"});
  NullTarget target(4ull << 20);
  auto out = run(jobs, target);
  REQUIRE(out.results.jobs.size() == 1);
  const auto& j = out.results.jobs[0];
  CHECK(j.error == 0);
  CHECK(j.read.total_ios == 1024);
  const auto& d = j.depth_dist;
  uint64_t issued = 0;
  for (uint64_t n : d.level) issued += n;
  CHECK(issued == 1024);
  CHECK(d.level[0] == issued);               // every I/O issued with one in flight
  CHECK(d.complete[1] == d.total_complete);  // every reap returned 1-4 I/Os (it returned 1)
}

TEST_CASE("numjobs clones and stonewall groups", "[runner]") {
  auto jobs = jobs_from({"--name=a", "--rw=read", "--bs=64k", "--size=8m", "--numjobs=3", "--name=b",
                         "--stonewall", "--rw=write", "--bs=4k", "--size=4m"});
  NullTarget target(64ull << 20);
  auto out = run(jobs, target);
  REQUIRE(out.results.jobs.size() == 4);
  for (int i = 0; i < 3; ++i) {
    CHECK(out.results.jobs[size_t(i)].jobname == "a");
    CHECK(out.results.jobs[size_t(i)].groupid == 0);
    CHECK(out.results.jobs[size_t(i)].read.io_bytes == 8ull << 20);
  }
  CHECK(out.results.jobs[3].jobname == "b");
  CHECK(out.results.jobs[3].groupid == 1);
  CHECK(out.results.jobs[3].write.io_bytes == 4ull << 20);
}

TEST_CASE("time_based jobs stop at the runtime, rate limits hold", "[runner]") {
  auto jobs = jobs_from({"--name=t", "--rw=randread", "--bs=4k", "--iodepth=4", "--size=16m", "--runtime=1",
                         "--time_based", "--rate_iops=2000"});
  NullTarget target(16ull << 20);
  auto out = run(jobs, target);
  const auto& j = out.results.jobs[0];
  CHECK(j.job_runtime_ns >= 950000000ull);
  CHECK(j.job_runtime_ns < 1500000000ull);
  // 2000 IOPS for one second, give or take the first batch.
  CHECK(j.read.total_ios >= 1800);
  CHECK(j.read.total_ios <= 2100);
}

TEST_CASE("fio JSON from a run on a file passes the fio-schema checker", "[runner][json][needs-tool]") {
  rs::test::require_tool("/usr/bin/python3", "the fio-schema checker is a python script");
  TempDir dir;
  auto target_ptr = file_target(dir.path + "/f.img", 16 << 20);
  DeviceTarget& target = *target_ptr;
  OptionList global;
  auto jobs = jobs_from(
      {"--direct=1", "--name=mix", "--rw=randrw", "--rwmixread=70", "--bs=4k", "--iodepth=8", "--size=8m"},
      &global);
  auto out = run(jobs, target);
  const auto& j = out.results.jobs[0];
  CHECK(j.error == 0);
  CHECK(j.read.io_bytes + j.write.io_bytes == 8ull << 20);
  const double read_fraction = double(j.read.total_ios) / double(j.read.total_ios + j.write.total_ios);
  CHECK(read_fraction == Approx(0.7).margin(0.05));
  const std::string json_path = dir.path + "/out.json";
  std::ofstream(json_path) << format_fio_json(out.results);
  const std::string cmd = "python3 " + std::string(RAIDSCOPE_SOURCE_DIR) +
                          "/tests/tools/check_fio_json.py --raidscope " + json_path;
  CHECK(std::system(cmd.c_str()) == 0);
}

TEST_CASE("array target: member shares and counters agree with the job", "[runner]") {
  TempDir dir;
  auto arr = make_array(dir, 1, 2);
  REQUIRE(arr->tunables().set("read_policy", "md-rr").ok());
  ArrayTarget target(*arr);
  auto jobs = jobs_from({"--name=r", "--rw=randread", "--bs=4k", "--iodepth=16", "--size=16m", "--direct=1"});
  auto out = run(jobs, target);
  const auto& j = out.results.jobs[0];
  REQUIRE(j.raidscope);
  CHECK(j.raidscope->policy == "md-rr");
  REQUIRE(j.raidscope->members.size() == 2);
  uint64_t reads = 0, bytes = 0;
  double share = 0;
  for (auto& m : j.raidscope->members) reads += m.reads, bytes += m.read_bytes, share += m.read_share;
  CHECK(reads == j.read.total_ios);  // RAID1: one member read per array read
  CHECK(bytes == j.read.io_bytes);
  CHECK(share == Approx(1.0));
}

TEST_CASE("verify through an array that loses a member mid-run finds no error", "[runner][verify]") {
  struct Case {
    int level, disks;
    uint32_t layout;
    int fail;
  };
  for (const Case c : {Case{1, 2, 0, 1}, Case{10, 4, 0x102, 0}, Case{10, 4, 0x201, 2}}) {
    DYNAMIC_SECTION("raid" << c.level << " layout " << c.layout << " failing member " << c.fail) {
      TempDir dir;
      auto arr = make_array(dir, c.level, c.disks, c.layout);
      ArrayTarget target(*arr);
      auto jobs = jobs_from({"--name=v", "--rw=randwrite", "--bs=4k", "--iodepth=16", "--size=24m",
                             "--direct=1", "--verify=crc32c", "--verify_fatal=1"});
      RunProgress progress;
      // Fail the member once a third of the writes are done.
      std::thread failer([&] {
        while (progress.ios.load() < (24u << 20) / 4096 / 3)
          std::this_thread::sleep_for(std::chrono::microseconds(200));
        const Status st = arr->fail_member(c.fail, "failed by the test");
        CHECK(st.ok());
      });
      auto out = run(jobs, target, &progress);
      failer.join();
      CHECK((*arr->table())[c.fail].state == raid::MemberState::faulty);
      CHECK(out.verify_errors == 0);
      const auto& j = out.results.jobs[0];
      CHECK(j.error == 0);
      CHECK(j.write.io_bytes == 24ull << 20);
      CHECK(j.read.io_bytes == 24ull << 20);  // the verify pass read every block back
    }
  }
}

TEST_CASE("verify catches corrupted data and names the offset", "[runner][verify]") {
  TempDir dir;
  const std::string file = dir.path + "/f.img";
  {
    std::ofstream f(file);
    f.seekp((8 << 20) - 1);
    f.put('x');
  }
  std::string err;
  {
    auto dev = rs::test::or_empty(io::MemberDevice::open(file, io::OpenMode::ReadWrite), &err);
    DeviceTarget target(std::move(dev));
    auto jobs = jobs_from({"--name=w", "--rw=write", "--bs=4k", "--iodepth=4", "--size=8m", "--verify=md5"});
    auto out = run(jobs, target);
    CHECK(out.verify_errors == 0);
  }
  // Flip one byte in block 100, then read the file back with verify.
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100 * 4096 + 2000);
    f.put('\x5a');
  }
  auto dev = rs::test::or_empty(io::MemberDevice::open(file, io::OpenMode::ReadOnly), &err);
  DeviceTarget target(std::move(dev));
  auto jobs = jobs_from(
      {"--name=r", "--rw=read", "--bs=4k", "--iodepth=4", "--size=8m", "--verify=md5", "--verify_fatal=1"});
  auto out = run(jobs, target);
  CHECK(out.verify_errors >= 1);
  REQUIRE(!out.verify_messages.empty());
  CHECK(out.verify_messages[0].find(std::to_string(100 * 4096)) != std::string::npos);
  CHECK(out.results.jobs[0].error != 0);
}

TEST_CASE("submission and reaping follow fio's iodepth_batch options", "[runner][batch]") {
  const uint64_t ios = (16ull << 20) / 4096;
  NullTarget target(16ull << 20);
  SECTION("fio's defaults: one I/O per submit call, one completion per reap") {
    auto jobs =
        jobs_from({"--name=d", "--rw=randread", "--bs=4k", "--iodepth=32", "--size=16m", "--ioengine=null"});
    auto out = run(jobs, target);
    const auto& j = out.results.jobs[0];
    REQUIRE(j.read.total_ios == ios);
    const DepthDistribution& dd = j.depth_dist;
    CHECK(dd.total_submit == ios);
    CHECK(dd.submit[1] == ios);  // band 1-4
    CHECK(dd.total_complete == ios);
    CHECK(dd.complete[1] == ios);
  }
  SECTION("batches of the queue depth") {
    auto jobs =
        jobs_from({"--name=b", "--rw=randread", "--bs=4k", "--iodepth=32", "--size=16m", "--ioengine=null",
                   "--iodepth_batch_submit=32", "--iodepth_batch_complete_max=32"});
    auto out = run(jobs, target);
    const auto& j = out.results.jobs[0];
    REQUIRE(j.read.total_ios == ios);
    const DepthDistribution& dd = j.depth_dist;
    // The null target completes everything at once: whole queues go round.
    CHECK(dd.total_submit <= ios / 32 + 1);
    CHECK(dd.submit[4] >= ios / 32 - 1);  // band 17-32
    CHECK(dd.total_complete <= ios / 32 + 1);
    CHECK(dd.complete[4] >= ios / 32 - 1);
  }
  SECTION("a reap limit between the two") {
    auto jobs = jobs_from({"--name=m", "--rw=randread", "--bs=4k", "--iodepth=32", "--size=16m",
                           "--ioengine=null", "--iodepth_batch_submit=0", "--iodepth_batch_complete_min=2",
                           "--iodepth_batch_complete_max=6"});
    auto out = run(jobs, target);
    const auto& j = out.results.jobs[0];
    REQUIRE(j.read.total_ios == ios);
    const DepthDistribution& dd = j.depth_dist;
    CHECK(dd.complete[1] + dd.complete[2] == dd.total_complete);  // never more than 6 per reap
    CHECK(dd.total_complete >= ios / 6);
    CHECK(dd.complete[2] > dd.complete[1]);  // mostly 5-6 at a time
  }
}

TEST_CASE("a job that sleeps through think time records context switches", "[runner]") {
  auto jobs =
      jobs_from({"--name=t", "--rw=read", "--bs=4k", "--iodepth=1", "--size=160k", "--thinktime=2ms"});
  NullTarget target(1ull << 20);
  auto out = run(jobs, target);
  const auto& j = out.results.jobs[0];
  REQUIRE(j.read.total_ios == 40);
  CHECK(j.ctx >= 20);  // one sleep per I/O, each a voluntary switch
  CHECK(j.job_runtime_ns >= 39 * 2000000ull);
}

TEST_CASE("write buffers are scrambled per block unless scramble_buffers=0", "[runner]") {
  TempDir dir;
  auto write_file = [&](const std::string& name, const char* scramble) {
    const std::string file = dir.path + "/" + name;
    auto target = file_target(file, 1 << 20);
    auto jobs = jobs_from({"--name=w", "--rw=write", "--bs=4k", "--iodepth=1", "--size=64k",
                           std::string("--scramble_buffers=") + scramble});
    auto out = run(jobs, *target);
    REQUIRE(out.results.jobs[0].write.total_ios == 16);
    std::ifstream in(file, std::ios::binary);
    std::vector<uint8_t> bytes(64 * 1024);
    in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size()));
    REQUIRE(in.gcount() == std::streamsize(bytes.size()));
    return bytes;
  };
  const auto scrambled = write_file("s.img", "1");
  // Every 512-byte block carries its own offset: no two blocks are equal.
  for (uint64_t off = 0; off < scrambled.size(); off += 512) {
    uint64_t stamped = 0;
    std::memcpy(&stamped, scrambled.data() + off + 56, 8);
    CHECK(stamped == off);
  }
  // Without it, one slot's buffer goes out unchanged each time (iodepth=1).
  const auto plain = write_file("p.img", "0");
  CHECK(std::equal(plain.begin(), plain.begin() + 4096, plain.begin() + 4096));
  CHECK_FALSE(std::equal(scrambled.begin(), scrambled.begin() + 4096, scrambled.begin() + 4096));
}
