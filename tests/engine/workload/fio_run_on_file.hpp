// Runs fio-style command-line jobs on one file, as `raidscope-cli bench
// --filename=PATH` would: shared by the issue-16 tests (test_fio_*.cpp).
#pragma once
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "../../common/result_helpers.hpp"
#include "fio/job_parser.hpp"
#include "fio/log_files.hpp"
#include "workload/bench.hpp"
#include "workload/runner.hpp"
#include "workload/targets.hpp"

namespace rs::workload::fio_test {

using namespace rs::fio;

// A command line's jobs, parsed (the test fails on a parse error).
inline std::vector<JobOptions> jobs_from_cli(std::vector<std::string> args) {
  auto r = parse_cli_job(args);
  INFO(rs::test::error_text(r));
  REQUIRE(r.ok());
  return r->jobs;
}

// check_jobs, then run_jobs on `target` (the test fails when a job is refused).
inline RunOutcome run_checked(std::vector<JobOptions>& jobs, Target& target) {
  std::string bad = check_jobs(jobs, target);
  INFO(bad);
  REQUIRE(bad.empty());
  return run_jobs(jobs, {}, target, nullptr, rs::fio::open_job_logs);
}

inline RunOutcome run_on_file(const std::string& path, std::vector<std::string> args) {
  args.push_back("--filename=" + path);
  auto r = parse_cli_job(args);
  INFO(rs::test::error_text(r));
  REQUIRE(r.ok());
  std::string err;
  auto dev = rs::test::or_empty(io::MemberDevice::open(path, io::OpenMode::ReadWrite), &err);
  INFO(err);
  REQUIRE(dev);
  DeviceTarget target(std::move(dev));
  std::string bad = check_jobs(r->jobs, target);
  INFO(bad);
  REQUIRE(bad.empty());
  return run_jobs(r->jobs, {}, target, nullptr, rs::fio::open_job_logs);
}

// Runs a command line's jobs as `raidscope-cli bench` does (a job's own
// files included); the session stays open for its target's counters.
struct BenchRun {
  std::unique_ptr<BenchSession> session;
  RunOutcome out;
};
inline BenchRun run_bench(std::vector<std::string> args) {
  auto r = parse_cli_job(args);
  INFO(rs::test::error_text(r));
  REQUIRE(r.ok());
  BenchSpec spec;
  spec.jobs = r->jobs;
  spec.job_logs = open_job_logs;
  BenchNotes notes;
  auto s = BenchSession::open(std::move(spec), &notes);
  INFO((s ? std::string() : s.error().message));
  REQUIRE(s);
  RunProgress progress;
  BenchRun run{std::move(*s), {}};
  run.out = run.session->run(progress, nullptr, &notes);
  INFO(run.out.error);
  REQUIRE(run.out.ok);
  return run;
}

// A file of `bytes` of `fill` (real, allocated data: reads reach the disk).
inline void write_filled_file(const std::string& path, uint64_t bytes, uint8_t fill = 0x5a) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  REQUIRE(fd >= 0);
  std::vector<uint8_t> buf(1 << 20, fill);
  for (uint64_t done = 0; done < bytes; done += buf.size()) {
    const size_t n = size_t(std::min<uint64_t>(buf.size(), bytes - done));
    REQUIRE(::pwrite(fd, buf.data(), n, off_t(done)) == ssize_t(n));
  }
  ::fsync(fd);
  ::close(fd);
}

// The one job a command line defines, parsed.
inline JobOptions parse_one_job(std::vector<std::string> args) {
  auto r = parse_cli_job(args);
  INFO(rs::test::error_text(r));
  REQUIRE(r.ok());
  REQUIRE(r->jobs.size() == 1);
  return r->jobs[0];
}

// The I/O lines of a fio iolog (version 3), in order.
struct IologLine {
  uint64_t us = 0;
  std::string file, action;
  uint64_t offset = 0;
  uint32_t length = 0;
};
inline std::vector<IologLine> iolog_lines(const std::string& path) {
  std::vector<IologLine> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    IologLine l;
    if (f >> l.us >> l.file >> l.action >> l.offset >> l.length) out.push_back(l);
  }
  return out;
}

// Issue times (us) per file path of the I/O lines of a fio iolog (version 3).
inline std::map<std::string, std::vector<uint64_t>> iolog_issue_times(const std::string& path) {
  std::map<std::string, std::vector<uint64_t>> times;
  for (const IologLine& l : iolog_lines(path)) times[l.file].push_back(l.us);
  return times;
}

}  // namespace rs::workload::fio_test
