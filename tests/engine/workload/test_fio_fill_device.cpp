// fio's fill_device (fill_fs): the option as fio 3.33 parses it, a job
// ending cleanly when its target is full (ENOSPC, EDQUOT, a short write),
// and how BenchSession sizes a fill_device job on a regular file. The
// real filesystem filled up (root, a loop mount) and the comparison with
// fio are in tests/cli/test_fio_fill_device.sh.
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <filesystem>
#include <string>
#include <vector>

#include "../../common/result_helpers.hpp"
#include "../../common/temp_dir.hpp"
#include "fio/job_parser.hpp"
#include "fio/log_files.hpp"
#include "fio/option_table.hpp"
#include "workload/bench.hpp"
#include "workload/runner.hpp"
#include "workload/targets.hpp"

using namespace rs::workload;
using namespace rs::fio;
using rs::test::TempDir;

namespace {

rs::Result<ParsedCliJobs> fill_parse(std::vector<std::string> args) {
  return parse_cli_job(args);
}

// A target that is full past `capacity` bytes: a write that starts there
// fails with `full_errno`, one that runs into it is short. Everything else
// completes at once, as on the null target (whose backend it uses).
struct FillFullIo : rs::io::MemberIo {
  TargetIo* parent = nullptr;
  int result = 0;
};

class FillFullPort final : public TargetPort {
 public:
  FillFullPort(rs::io::IoContext& c, uint64_t capacity, int full_errno)
      : context_(c), capacity_(capacity), errno_(full_errno) {}
  void prepare(TargetIo& io, uint32_t) override {
    auto n = std::make_shared<FillFullIo>();
    n->parent = &io;
    n->done = &FillFullPort::done;
    io.target_private = n;
  }
  void submit(TargetIo& io) override {
    auto& n = *static_cast<FillFullIo*>(io.target_private.get());
    n.write = io.write;
    n.length = io.length;
    n.result = !io.write || io.offset + io.length <= capacity_ ? int(io.length)
               : io.offset < capacity_                         ? int(capacity_ - io.offset)
                                                               : -errno_;
    backend().queue(n);
  }
  rs::io::IoContext& context() override { return context_; }

 private:
  static void done(rs::io::MemberIo& m, int) {
    auto& n = static_cast<FillFullIo&>(m);
    n.parent->done(*n.parent, n.result);
  }
  rs::io::IoContext& context_;
  uint64_t capacity_;
  int errno_;
};

class FillFullTarget final : public Target {
 public:
  FillFullTarget(uint64_t size, uint64_t capacity, int full_errno)
      : null_(size), capacity_(capacity), errno_(full_errno) {}
  uint64_t size_bytes() const override { return null_.size_bytes(); }
  uint32_t block_size() const override { return 512; }
  std::unique_ptr<rs::io::Backend> make_backend(unsigned depth) override { return null_.make_backend(depth); }
  std::unique_ptr<TargetPort> open_port(rs::io::IoContext& c) override {
    return std::make_unique<FillFullPort>(c, capacity_, errno_);
  }
  std::string describe() const override { return "a target full past its capacity"; }
  const rs::telemetry::TelemetrySource& telemetry() const override { return null_.telemetry(); }
  const rs::telemetry::LiveLatencySet& latencies() const override { return null_.latencies(); }

 private:
  NullTarget null_;
  uint64_t capacity_;
  int errno_;
};

JobResults fill_run(std::vector<std::string> args, Target& target) {
  auto r = fill_parse(std::move(args));
  INFO(rs::test::error_text(r));
  REQUIRE(r.ok());
  std::string bad = check_jobs(r->jobs, target);
  INFO(bad);
  REQUIRE(bad.empty());
  RunOutcome out = run_jobs(r->jobs, {}, target, nullptr, rs::fio::open_job_logs);
  REQUIRE(out.ok);
  REQUIRE(out.results.jobs.size() == 1);
  return out.results.jobs[0];
}

}  // namespace

TEST_CASE("fill_device and its alias fill_fs parse as fio's bool option", "[fill_device][job_parser]") {
  CHECK_FALSE(rs::test::must(fill_parse({"--name=a"})).jobs.at(0).fill_device);  // fio's default 0
  CHECK(rs::test::must(fill_parse({"--name=a", "--fill_device=1"})).jobs.at(0).fill_device);
  CHECK(rs::test::must(fill_parse({"--name=a", "--fill_fs=1"})).jobs.at(0).fill_device);
  CHECK_FALSE(
      rs::test::must(fill_parse({"--fill_device=1", "--name=a", "--fill_fs=0"})).jobs.at(0).fill_device);
  CHECK(canonical_option_name("fill_fs") == "fill_device");
  auto file = parse_job_file("[global]\nfill_fs=1\n[w]\nrw=write\n", "fill.fio");
  INFO(rs::test::error_text(file));
  REQUIRE(file.ok());
  CHECK(file->jobs.at(0).fill_device);

  // fio's FIO_OPT_BOOL: a value is required, and it is 0 or 1.
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"--fill_device=2", "fill_device: expected 0 or 1, got '2'"},
      {"--fill_fs=yes", "fill_device: expected 0 or 1, got 'yes'"},
      {"--fill_device", "option 'fill_device' requires a value"},
  };
  for (const auto& [arg, message] : bad) {
    auto r = fill_parse({"--name=a", arg});
    INFO(arg);
    REQUIRE_FALSE(r.ok());
    CHECK_THAT(r.error().message, Catch::Contains(message));
  }
}

TEST_CASE("a fill_device job ends without an error when its target is full", "[fill_device]") {
  constexpr uint64_t kMiB = 1 << 20;
  SECTION("ENOSPC, one I/O at a time: the failed write is issued, not written") {
    FillFullTarget target(64 * kMiB, 10 * kMiB, ENOSPC);
    const JobResults j = fill_run({"--name=f", "--rw=write", "--bs=1m", "--fill_device=1"}, target);
    CHECK(j.error == 0);
    CHECK(j.error_text.empty());
    CHECK(j.write.io_bytes == 10 * kMiB);
    CHECK(j.write.total_ios == 11);  // fio 3.33: issued rwts 40 for 39 MiB written on a full ext4
  }
  SECTION("EDQUOT at depth 8: the writes in flight complete, none is an error") {
    FillFullTarget target(64 * kMiB, 10 * kMiB, EDQUOT);
    const JobResults j = fill_run(
        {"--name=f", "--rw=write", "--bs=1m", "--fill_fs=1", "--ioengine=io_uring", "--iodepth=8"}, target);
    CHECK(j.error == 0);
    CHECK(j.write.io_bytes == 10 * kMiB);
    CHECK(j.write.total_ios >= 11);
    CHECK(j.write.total_ios <= 18);  // at most the 8 in flight failed
  }
  SECTION("a short write ends it too, and what it wrote counts") {
    FillFullTarget target(64 * kMiB, 10 * kMiB + 4096, ENOSPC);
    const JobResults j = fill_run({"--name=f", "--rw=write", "--bs=1m", "--fill_device=1"}, target);
    CHECK(j.error == 0);
    CHECK(j.write.io_bytes == 10 * kMiB + 4096);
  }
  SECTION("size= still bounds it") {
    FillFullTarget target(64 * kMiB, 10 * kMiB, ENOSPC);
    const JobResults j =
        fill_run({"--name=f", "--rw=write", "--bs=1m", "--fill_device=1", "--size=4m"}, target);
    CHECK(j.error == 0);
    CHECK(j.write.io_bytes == 4 * kMiB);
    CHECK(j.write.total_ios == 4);
  }
  SECTION("without fill_device a full target is the job's error, as in fio") {
    FillFullTarget target(64 * kMiB, 10 * kMiB, ENOSPC);
    const JobResults j = fill_run({"--name=f", "--rw=write", "--bs=1m"}, target);
    CHECK(j.error == ENOSPC);
    CHECK_THAT(j.error_text, Catch::Contains("No space left on device"));
    CHECK(j.write.io_bytes == 10 * kMiB);
  }
}

TEST_CASE("a fill_device job on a new file: created empty, sized by its filesystem's free blocks",
          "[fill_device][bench]") {
  TempDir dir("rs-fill");
  const std::string path = dir.file("f");
  auto open = [&](std::vector<std::string> args) {
    auto r = fill_parse(std::move(args));
    INFO(rs::test::error_text(r));
    REQUIRE(r.ok());
    BenchSpec spec;
    spec.jobs = r->jobs;
    BenchNotes notes;
    return BenchSession::open(std::move(spec), &notes);
  };
  auto free_blocks = [&] {
    struct statvfs vfs {};
    REQUIRE(::statvfs(dir.path.c_str(), &vfs) == 0);
    return uint64_t(vfs.f_bfree) * vfs.f_frsize;
  };

  SECTION("write: the region is the free space (f_bfree, as fio) in whole blocks; nothing is reserved") {
    const uint64_t before = free_blocks();
    auto s = open({"--name=f", "--filename=" + path, "--rw=write", "--bs=1m", "--fill_device=1"});
    const uint64_t after = free_blocks();
    INFO((s ? "" : s.error().message));
    REQUIRE(s);
    const JobOptions& j = (*s)->spec().jobs.at(0);
    constexpr uint64_t kMiB = 1 << 20;
    // Others may write to this filesystem meanwhile: the figure lies
    // between the two readings, rounded up to the 1 MiB block.
    CHECK(j.size % kMiB == 0);
    CHECK(j.size >= std::min(before, after) / kMiB * kMiB);
    CHECK(j.size <= (std::max(before, after) + kMiB - 1) / kMiB * kMiB);
    CHECK((*s)->target().size_bytes() >= j.size);
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK(st.st_size == 0);
    CHECK(st.st_blocks == 0);
  }
  SECTION("a missing directory is refused, naming it, and nothing is created") {
    const std::string missing = dir.file("no/such/dir/f");
    auto s = open({"--name=f", "--filename=" + missing, "--rw=write", "--fill_device=1"});
    REQUIRE_FALSE(s);
    CHECK(s.error().code == rs::Errc::not_found);
    CHECK_THAT(s.error().message,
               Catch::Contains("directory " + dir.file("no/such/dir") + " does not exist"));
    CHECK_FALSE(std::filesystem::exists(dir.file("no")));
  }
  SECTION("what it does not support is refused before anything is created") {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"--name=f", "--filename=" + path, "--rw=write", "--fill_device=1", "--ioengine=mmap"},
         "fill_device=1 with ioengine=mmap is not supported"},
        {{"--name=f", "--filename=" + path, "--rw=write", "--fill_device=1", "--size=50%"},
         "fill_device=1 with size=N% is not supported"},
        {{"--name=f", "--directory=" + dir.path, "--nrfiles=2", "--rw=write", "--fill_device=1"},
         "fill_device=1 is supported on one file per run"},
    };
    for (const auto& [args, message] : cases) {
      auto s = open(args);
      INFO(message);
      REQUIRE_FALSE(s);
      CHECK(s.error().is_usage());
      CHECK_THAT(s.error().message, Catch::Contains(message));
    }
    CHECK(std::filesystem::is_empty(dir.path));
  }
}
