#include "workload/runner.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <thread>

#include "io/sim_backend.hpp"
#include "io/uring_backend.hpp"
#include "workload/job_parser.hpp"

namespace rs::workload {

namespace {

struct Instance {
  const JobOptions* job;
  unsigned index;
  int groupid;
  JobResults result;
  uint64_t verify_errors = 0;
  std::string verify_message;
};

rusage thread_rusage() {
  rusage ru{};
  getrusage(RUSAGE_THREAD, &ru);
  return ru;
}

uint64_t ns_of(const timeval& t) {
  return uint64_t(t.tv_sec) * 1000000000ull + uint64_t(t.tv_usec) * 1000ull;
}

// One instance on its own thread and io_uring context. The loop is fio's:
// fill the queue (the driver submits in iodepth_batch_submit batches), push
// a partial batch, then wait for iodepth_batch_complete_min completions and
// handle at most iodepth_batch_complete_max of them before filling again.
void run_thread(Instance& inst, Target& target, RunProgress* progress) {
  const rusage ru0 = thread_rusage();
  auto made = target.make_backend(inst.job->iodepth);
  made->set_reap_limit(reap_batch_max(*inst.job));
  io::IoContext context(std::move(made), "job");
  io::Backend& backend = context.backend();
  auto port = target.open_port(context);
  const unsigned complete_min = inst.job->iodepth_batch_complete_min;
  JobDriver driver(*inst.job, inst.index, target, *port, inst.result, progress);
  driver.start();
  while (!driver.finished()) {
    const uint64_t wake = driver.pump();
    driver.commit();
    if (driver.finished()) break;  // pump() may end the job (deadline passed, nothing in flight)
    if (backend.in_flight() > 0)
      driver.record_reap(context.run_once(std::min(complete_min, backend.in_flight()), wake));
    else  // waiting for a start time, a rate limit, or a write parked by the array
      context.run_once(1, wake == kNever ? io::kNoDeadline : wake);
  }
  driver.finish();
  inst.verify_errors = driver.verify_errors();
  inst.verify_message = driver.first_verify_error();
  const double run = double(std::max<uint64_t>(inst.result.job_runtime_ns, 1));
  const rusage ru1 = thread_rusage();
  inst.result.usr_cpu = 100.0 * double(ns_of(ru1.ru_utime) - ns_of(ru0.ru_utime)) / run;
  inst.result.sys_cpu = 100.0 * double(ns_of(ru1.ru_stime) - ns_of(ru0.ru_stime)) / run;
  inst.result.ctx = uint64_t((ru1.ru_nvcsw - ru0.ru_nvcsw) + (ru1.ru_nivcsw - ru0.ru_nivcsw));
  inst.result.majf = uint64_t(ru1.ru_majflt - ru0.ru_majflt);
  inst.result.minf = uint64_t(ru1.ru_minflt - ru0.ru_minflt);
}

// Every instance of a group on the shared virtual-time backend.
void run_simulated(std::vector<Instance*>& group, Target& target, io::IoContext& context,
                   RunProgress* progress) {
  io::Backend& shared = context.backend();
  auto* sim = dynamic_cast<io::SimBackend*>(&shared);
  std::vector<std::unique_ptr<TargetPort>> ports;
  std::vector<std::unique_ptr<JobDriver>> drivers;
  for (Instance* inst : group) {
    ports.push_back(target.open_port(context));
    drivers.push_back(
        std::make_unique<JobDriver>(*inst->job, inst->index, target, *ports.back(), inst->result, progress));
  }
  for (auto& d : drivers) d->start();
  for (;;) {
    uint64_t wake = kNever;
    bool all_done = true;
    for (auto& d : drivers) {
      if (d->finished()) continue;
      wake = std::min(wake, d->pump());
      all_done = all_done && d->finished();
    }
    if (all_done) break;
    for (auto& d : drivers) d->commit();
    // Work posted to the context (a bitmap page write, a write released by
    // it) runs before virtual time moves on.
    if (context.posted_pending() > 0) {
      context.run_once(0);
      continue;
    }
    if (wake <= shared.now_ns()) continue;  // a job can issue right away
    if (shared.in_flight() > 0 && (!sim || sim->next_completion_ns() <= wake))
      shared.reap(1);
    else if (sim && wake != kNever)
      sim->advance_to(wake);
    else if (shared.in_flight() > 0)
      shared.reap(1);
    else
      break;  // nothing in flight and nobody wants to wake: every job is done
  }
  for (size_t i = 0; i < drivers.size(); ++i) {
    drivers[i]->finish();
    group[i]->verify_errors = drivers[i]->verify_errors();
    group[i]->verify_message = drivers[i]->first_verify_error();
  }
}

}  // namespace

std::string check_jobs(std::vector<JobOptions>& jobs, const Target& target) {
  for (auto& job : jobs) {
    std::string err = validate_against_target(job, target.size_bytes(), target.block_size());
    if (!err.empty()) return "job '" + job.name + "': " + err;
    if (job.verify != VerifyKind::none && is_mixed(job.rw))
      return "job '" + job.name +
             "': verify with mixed reads and writes (rw=" + std::string(to_string(job.rw)) +
             ") is not supported; verify a write job, or read back with a read job that has verify set";
    if (job.verify != VerifyKind::none && std::min(job.bs[0], job.bs[1]) < 512)
      return "job '" + job.name + "': verify needs bs of at least 512 bytes";
  }
  return "";
}

uint64_t planned_bytes(const std::vector<JobOptions>& jobs) {
  uint64_t total = 0;
  for (auto& j : jobs) {
    if (j.time_based) return 0;
    total += j.size * j.numjobs * ((j.verify != VerifyKind::none && j.do_verify && !does_read(j.rw)) ? 2 : 1);
  }
  return total;
}

uint64_t planned_ns(const std::vector<JobOptions>& jobs) {
  uint64_t total = 0, group = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (i > 0 && jobs[i].stonewall) total += group, group = 0;
    const auto& j = jobs[i];
    if (j.runtime.count() > 0)
      group = std::max<uint64_t>(group, uint64_t((j.startdelay + j.ramp_time + j.runtime).count()) * 1000);
  }
  return total + group;
}

RunOutcome run_jobs(const std::vector<JobOptions>& jobs, const OptionList& global_options, Target& target,
                    RunProgress* progress) {
  RunOutcome out;
  std::vector<std::unique_ptr<Instance>> instances;
  int groupid = 0;
  unsigned index = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (i > 0 && jobs[i].stonewall) ++groupid;
    for (unsigned c = 0; c < jobs[i].numjobs; ++c) {
      auto inst = std::make_unique<Instance>();
      inst->job = &jobs[i];
      inst->index = index++;
      inst->groupid = groupid;
      inst->result.groupid = groupid;
      inst->result.pid = int(::getpid());
      instances.push_back(std::move(inst));
    }
  }
  const auto wall_start = std::chrono::steady_clock::now();
  io::IoContext* shared = target.shared_context();
  auto target_now = [&] { return shared ? shared->backend().now_ns() : io::monotonic_ns(); };
  for (int g = 0; g <= groupid; ++g) {
    std::vector<Instance*> group;
    for (auto& inst : instances)
      if (inst->groupid == g) group.push_back(inst.get());
    const auto before = target.members();
    const uint64_t t0 = target_now();
    if (shared) {
      run_simulated(group, target, *shared, progress);
    } else {
      std::vector<std::thread> threads;
      for (Instance* inst : group)
        threads.emplace_back(run_thread, std::ref(*inst), std::ref(target), progress);
      for (auto& t : threads) t.join();
    }
    const uint64_t span = std::max<uint64_t>(target_now() - t0, 1);
    // Member figures are the target's, over the whole group.
    const auto after = target.members();
    RaidscopeJobExtension ext;
    ext.target = target.describe();
    ext.policy = target.policy();
    uint64_t all_reads = 0;
    for (size_t m = 0; m < after.size(); ++m) all_reads += after[m].counters.reads - before[m].counters.reads;
    for (size_t m = 0; m < after.size(); ++m) {
      MemberShare share;
      share.path = after[m].path;
      share.reads = after[m].counters.reads - before[m].counters.reads;
      share.read_bytes = after[m].counters.read_bytes - before[m].counters.read_bytes;
      share.writes = after[m].counters.writes - before[m].counters.writes;
      share.write_bytes = after[m].counters.write_bytes - before[m].counters.write_bytes;
      share.read_share = all_reads ? double(share.reads) / double(all_reads) : 0.0;
      share.mean_pending =
          double(after[m].counters.pending_time_ns - before[m].counters.pending_time_ns) / double(span);
      ext.members.push_back(share);
    }
    // Member figures are the array's over the group: with group_reporting
    // the group's entry gets them once (fio sums merged entries).
    for (size_t i = 0; i < group.size(); ++i)
      if (i == 0 || !group[i]->job->group_reporting) group[i]->result.raidscope = ext;
  }
  const auto elapsed = std::chrono::steady_clock::now() - wall_start;
  out.results.raidscope_version = "0.1.0";
  out.results.timestamp_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
  out.results.global_options = global_options;
  for (auto& inst : instances) {
    inst->result.elapsed_sec = uint64_t(std::chrono::duration_cast<std::chrono::seconds>(elapsed).count());
    out.verify_errors += inst->verify_errors;
    if (!inst->verify_message.empty())
      out.verify_messages.push_back(inst->job->name + ": " + inst->verify_message);
    out.results.jobs.push_back(std::move(inst->result));
  }
  out.ok = true;
  return out;
}

}  // namespace rs::workload
