#include "workload/job_spec.hpp"

namespace rs::workload {

Result<JobOptions> to_job_options(const JobSpec& spec) {
  auto refuse = [&](const std::string& what) {
    return make_error(Errc::invalid_argument, "job '" + spec.name + "': " + what);
  };
  if (spec.name.empty()) return make_error(Errc::invalid_argument, "a job needs a name");
  if (spec.block_bytes == 0) return refuse("the block size must be above 0");
  if (spec.iodepth == 0) return refuse("the queue depth must be at least 1");
  if (spec.numjobs == 0) return refuse("the job count must be at least 1");
  if (spec.rwmixread > 100) return refuse("the read mix is a percentage, 0..100");
  if (spec.time_based && spec.runtime.count() <= 0) return refuse("a time based job needs a runtime");

  JobOptions j;
  j.name = spec.name;
  j.origin = "job spec";
  j.rw = spec.rw;
  j.bs = {spec.block_bytes, spec.block_bytes};
  j.bs_trim = spec.block_bytes;
  j.iodepth = spec.iodepth;
  j.numjobs = spec.numjobs;
  j.ioengine = spec.ioengine;
  j.direct = spec.direct;
  j.direct_given = true;
  j.rwmixread = spec.rwmixread;
  j.runtime = spec.runtime;
  j.time_based = spec.time_based;

  auto& g = j.given;
  g.emplace_back("name", spec.name);
  g.emplace_back("rw", std::string(to_string(spec.rw)));
  g.emplace_back("bs", std::to_string(spec.block_bytes));
  g.emplace_back("iodepth", std::to_string(spec.iodepth));
  if (spec.numjobs != 1) g.emplace_back("numjobs", std::to_string(spec.numjobs));
  g.emplace_back("ioengine", std::string(to_string(spec.ioengine)));
  g.emplace_back("direct", spec.direct ? "1" : "0");
  if (is_mixed(spec.rw)) g.emplace_back("rwmixread", std::to_string(spec.rwmixread));
  if (spec.runtime.count() > 0) g.emplace_back("runtime", std::to_string(spec.runtime.count()));
  if (spec.time_based) g.emplace_back("time_based", "");
  return j;
}

}  // namespace rs::workload
