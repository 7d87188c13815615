// Runs fio-style command-line jobs on one file, as `raidscope-cli bench
// --filename=PATH` would: shared by the issue-16 tests (test_fio_*.cpp).
#pragma once
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "workload/job_parser.hpp"
#include "workload/runner.hpp"
#include "workload/targets.hpp"

namespace rs::workload::fio_test {

inline RunOutcome run_on_file(const std::string& path, std::vector<std::string> args) {
  args.push_back("--filename=" + path);
  CliParseResult r = parse_cli_job(args);
  INFO(r.error);
  REQUIRE(r.ok);
  std::string err;
  auto dev = io::MemberDevice::open(path, io::OpenMode::ReadWrite, &err);
  INFO(err);
  REQUIRE(dev);
  DeviceTarget target(std::move(dev));
  std::string bad = check_jobs(r.jobs, target);
  INFO(bad);
  REQUIRE(bad.empty());
  return run_jobs(r.jobs, {}, target, nullptr);
}

}  // namespace rs::workload::fio_test
