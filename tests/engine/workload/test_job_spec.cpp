// The typed job spec (what the GUI builds jobs with) gives the job that
// fio's own option language gives for the same options: each spec is
// compared with the job file a user would write for it, parsed by the job
// file parser.
#include <catch2/catch.hpp>
#include <string>

#include "fio/job_parser.hpp"
#include "workload/job_spec.hpp"

using namespace rs::workload;

namespace {

JobOptions parsed(const std::string& text) {
  auto r = rs::fio::parse_job_file(text, "spec");
  REQUIRE(r.ok());
  REQUIRE(r->jobs.size() == 1);
  return r->jobs[0];
}

void same_job(const JobOptions& a, const JobOptions& b) {
  CHECK(a.name == b.name);
  CHECK(a.rw == b.rw);
  CHECK(a.bs == b.bs);
  CHECK(a.bs_trim == b.bs_trim);
  CHECK(a.iodepth == b.iodepth);
  CHECK(a.numjobs == b.numjobs);
  CHECK(a.ioengine == b.ioengine);
  CHECK(a.direct == b.direct);
  CHECK(a.rwmixread == b.rwmixread);
  CHECK(a.runtime == b.runtime);
  CHECK(a.time_based == b.time_based);
}

}  // namespace

TEST_CASE("job spec: KDiskMark's SEQ1M Q8T1 read is the job file's job") {
  JobSpec s;
  s.name = "seq";
  s.rw = RwMode::read;
  s.block_bytes = 1 << 20;
  s.iodepth = 8;
  s.runtime = std::chrono::seconds(5);
  s.time_based = true;
  auto j = to_job_options(s);
  REQUIRE(j);
  same_job(*j,
           parsed("[seq]\nrw=read\nbs=1M\niodepth=8\nioengine=io_uring\ndirect=1\nruntime=5\ntime_based\n"));
}

TEST_CASE("job spec: a mixed random job with clones and psync, buffered") {
  JobSpec s;
  s.name = "mix";
  s.rw = RwMode::randrw;
  s.block_bytes = 64 << 10;
  s.iodepth = 16;
  s.numjobs = 2;
  s.rwmixread = 70;
  s.ioengine = IoEngine::psync;
  s.direct = false;
  auto j = to_job_options(s);
  REQUIRE(j);
  same_job(
      *j,
      parsed("[mix]\nrw=randrw\nbs=64k\niodepth=16\nnumjobs=2\nrwmixread=70\nioengine=psync\ndirect=0\n"));
  // What fio JSON lists as the job's options: the ones given, by fio's names.
  bool has_mix = false;
  for (const auto& [name, value] : j->given) has_mix |= name == "rwmixread" && value == "70";
  CHECK(has_mix);
}

TEST_CASE("job spec: bad fields are refused by name") {
  auto refused = [](JobSpec s, const std::string& word) {
    auto j = to_job_options(s);
    REQUIRE_FALSE(j);
    CHECK(j.error().message.find(word) != std::string::npos);
  };
  JobSpec s;
  s.block_bytes = 0;
  refused(s, "block size");
  s = {};
  s.iodepth = 0;
  refused(s, "queue depth");
  s = {};
  s.numjobs = 0;
  refused(s, "job count");
  s = {};
  s.rwmixread = 101;
  refused(s, "read mix");
  s = {};
  s.time_based = true;
  refused(s, "runtime");
  s = {};
  s.name = "";
  refused(s, "name");
}
