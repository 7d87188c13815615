#include "workload/runner.hpp"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <thread>

#include "io/sim_backend.hpp"
#include "io/uring_backend.hpp"
#include "workload/file_set.hpp"
#include "workload/job_checks.hpp"
#include "workload/posix_aio_port.hpp"
#include "workload/rate_control.hpp"
#include "workload/verify.hpp"
#include "workload/zbd_zones.hpp"

namespace rs::workload {

namespace {

// Job i waits for the jobs before it: stonewall, or wait_for (run as a
// barrier), except that jobs in a row waiting for the same job start
// together, as fio starts them when that job ends (zbd-rand-write-trim-gc:
// a write job and a trim job both wait_for the warm-up).
bool starts_run_group(const std::vector<JobOptions>& jobs, size_t i) {
  const JobOptions& job = jobs[i];
  if (job.stonewall) return true;
  if (job.wait_for.empty()) return false;
  return i == 0 || jobs[i - 1].wait_for != job.wait_for;
}

// Job i opens a new reporting group (fio's groupid): stonewall or new_group
// on any job but the first. A group's jobs share group_reporting's figures
// and must agree on their steady-state options.
bool starts_reporting_group(const std::vector<JobOptions>& jobs, size_t i) {
  return i > 0 && (jobs[i].stonewall || jobs[i].new_group);
}

struct Instance {
  const JobOptions* job;
  unsigned index;
  unsigned run_jobs;  // instances in the run
  unsigned clone;     // among the job's numjobs (fio's $jobnum)
  int run_group;      // instances of one run group start together
  int groupid;        // fio's reporting group
  JobResults result;
  uint64_t verify_errors = 0;
  std::string verify_message;
  std::vector<std::string> verify_notes;  // verify_dump's lines
  std::string engine, io_mode;            // what ran (JobIo)
  ZbdZones* zones = nullptr;              // zonemode=zbd: the run's emulated zones
  SteadyGroup* steady = nullptr;          // ss_dur: its reporting group's steady state
  unsigned steady_member = 0;
};

// zonemode=zbd: one set of emulated zones for the run, as fio keeps one
// per file for all its jobs (the first zbd job's zone options).
std::unique_ptr<ZbdZones> make_zones(std::vector<std::unique_ptr<Instance>>& instances,
                                     const Target& target) {
  std::unique_ptr<ZbdZones> zones;
  for (auto& inst : instances) {
    const JobOptions& j = *inst->job;
    if (!j.zbd) continue;
    if (!zones) {
      ZbdZones::Options o;
      o.zone_size = j.zonesize;
      o.max_open_zones = j.max_open_zones;
      o.reset_threshold = j.zone_reset_threshold;
      o.reset_frequency = j.zone_reset_frequency;
      o.region_bytes = j.size;
      zones = std::make_unique<ZbdZones>(target.size_bytes(), o);
    }
    inst->zones = zones.get();
  }
  return zones;
}

// fio's steadystate_setup: a job with ss_dur is judged on its own, or with
// group_reporting together with its reporting group, whose last job keeps
// the pooled figures (here: the group's ramp ends after its last member
// started, and any member samples).
std::vector<std::unique_ptr<SteadyGroup>> make_steady_groups(
    std::vector<std::unique_ptr<Instance>>& instances) {
  std::vector<std::unique_ptr<SteadyGroup>> groups;
  for (size_t i = 0; i < instances.size();) {
    const JobOptions& job = *instances[i]->job;
    size_t end = i + 1;
    if (job.group_reporting)
      while (end < instances.size() && instances[end]->groupid == instances[i]->groupid) ++end;
    if (job.ss_dur.count() > 0) {
      groups.push_back(std::make_unique<SteadyGroup>(job, unsigned(end - i)));
      for (size_t k = i; k < end; ++k) {
        instances[k]->steady = groups.back().get();
        instances[k]->steady_member = unsigned(k - i);
      }
    }
    i = end;
  }
  return groups;
}

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
// fio's exitall: the first job with it that finishes ends the others of its
// run group (exit_what=group or stonewall: RaidScope runs a stonewall group
// as one), or every job still to come (all).
struct ExitFlags {
  std::atomic<bool> group{false};
  std::atomic<bool>* all = nullptr;
};
void on_job_finished(const JobOptions& job, ExitFlags& exit) {
  if (!job.exitall) return;
  exit.group = true;
  if (job.exit_what == JobOptions::ExitWhat::all && exit.all) *exit.all = true;
}

using FlowGroups = std::map<unsigned, FlowGroup>;

// The job's log, when it asks for one; on failure the job records the error.
std::unique_ptr<JobLog> open_log(Instance& inst, const JobLogOpener& open, std::vector<std::string> paths) {
  if (!wants_logs(*inst.job)) return nullptr;
  auto made = open(*inst.job, JobLogSetup{inst.index + 1, std::move(paths)});
  if (made) return std::move(*made);
  inst.result.error = EIO;
  inst.result.error_text = made.error().message;
  return nullptr;
}

// While a job runs on its own thread, the --status-interval reader asks it
// for its figures by posting to its context (RunProgress::status_askers):
// the post wakes the job wherever its loop waits.
class StatusAsker {
 public:
  StatusAsker(RunProgress* progress, unsigned index, io::IoContext& context, JobDriver& driver)
      : progress_(progress && progress->status_enabled ? progress : nullptr), index_(index) {
    if (!progress_) return;
    std::lock_guard lock(progress_->status_mutex);
    progress_->status_askers[index] = [&context, &driver] {
      context.post([&driver] { driver.answer_status(); });
    };
  }
  // Before the driver and the context go: a request posted and not run by
  // then is dropped with the context's queue (the job left its last copy).
  ~StatusAsker() {
    if (!progress_) return;
    std::lock_guard lock(progress_->status_mutex);
    progress_->status_askers.erase(index_);
  }
  StatusAsker(const StatusAsker&) = delete;
  StatusAsker& operator=(const StatusAsker&) = delete;

 private:
  RunProgress* progress_;
  unsigned index_;
};

void run_thread(Instance& inst, Target& target, RunProgress* progress, ExitFlags* exit, FlowGroups* flows,
                const JobLogOpener* open_logs) {
  const rusage ru0 = thread_rusage();
  auto opened = target.open_job_io(*inst.job, inst.clone);
  if (!opened || !opened->backend) {
    inst.result.error = EIO;
    inst.result.error_text = opened ? "cannot set up the job's I/O" : opened.error().message;
    return;
  }
  JobIo jio = std::move(*opened);  // outlives the context and its backend
  inst.engine = jio.engine;
  if (does_trim(inst.job->rw)) inst.engine += "; trims done at issue: " + target.trim_method();
  inst.io_mode = jio.io_mode;
  io::IoContext context(std::move(jio.backend), "job");
  io::Backend& backend = context.backend();
  std::unique_ptr<TargetPort> port = target.open_job_port(context, jio);
  if (jio.one_in_flight_per_file)
    port = std::make_unique<PosixAioPort>(std::move(port), jio.file_sizes.size());
  const unsigned complete_min = inst.job->iodepth_batch_complete_min;
  const std::vector<std::string> paths =
      jio.file_paths.empty()
          ? std::vector<std::string>{inst.job->filename.empty() ? std::string("null") : inst.job->filename}
          : jio.file_paths;
  std::unique_ptr<JobLog> log = open_log(inst, *open_logs, paths);
  if (inst.result.error) return;
  // fio's prio= / prioclass=: the job thread's I/O priority (ioprio_set on
  // the calling thread, before any I/O).
  if (inst.job->prio >= 0 || inst.job->prioclass >= 0) {
    const uint16_t value =
        ioprio_value(unsigned(std::max(inst.job->prioclass, 0)), unsigned(std::max(inst.job->prio, 0)));
    if (::syscall(SYS_ioprio_set, 1 /* IOPRIO_WHO_PROCESS */, 0, int(value)) != 0) {
      inst.result.error = errno;
      inst.result.error_text = std::string("ioprio_set: ") + std::strerror(errno);
      return;
    }
  }
  JobDriver driver(*inst.job, inst.index, target, *port, inst.result, progress, inst.run_jobs);
  driver.set_stop_flag(&exit->group);
  driver.set_log(log.get());
  if (inst.job->flow) driver.set_flow(&flows->at(inst.job->flow_id));
  if (!jio.file_sizes.empty()) driver.set_files(jio.file_sizes);
  driver.set_file_names(paths);
  driver.set_zones(inst.zones);
  driver.set_steady_group(inst.steady, inst.steady_member);
  driver.start();
  const StatusAsker asker(progress, inst.index, context, driver);
  while (!driver.finished()) {
    // A busy backend (the null target, fio's FIO_Q_BUSY) takes no I/O and
    // has its completions ready: straight to the reap, without a wait (no
    // clock read, no deadline; the completions see the runtime end), as
    // fio's loop goes from its commit to its getevents.
    const bool busy = backend.busy();
    uint64_t wake = kNever;
    if (!busy) {
      wake = driver.pump();
      driver.commit();
      if (driver.finished()) break;  // pump() may end the job (deadline passed, nothing in flight)
    }
    if (backend.in_flight() > 0 || driver.has_parked()) {
      // fio's iodepth_batch_complete_min/max: wait for the minimum, handle
      // at most the maximum (the driver parks the rest for the next reap).
      // gtod_reduce: no deadline for the reap, whose check reads the clock;
      // the driver sees the runtime end at its next (cached) clock reading.
      const unsigned parked = driver.begin_reap();
      const unsigned want = busy ? 0 : std::min(complete_min, backend.in_flight() + parked);
      if (backend.in_flight() > 0 && driver.reap_room() > 0)
        context.run_once(want > parked ? std::min(want - parked, backend.in_flight()) : 0,
                         inst.job->gtod_reduce ? io::kNoDeadline : wake);
      driver.record_reap(driver.end_reap());
    } else if (wake > backend.now_ns())
      // A start time, a rate limit, think time, or a write parked by the
      // array: a plain timed wait to the time, as fio's usec_sleep sleeps.
      // (A yielding spin before it gave the CPU away for a scheduler tick on
      // a loaded machine: 2 ms of think time took 4 ms.) A wake time already
      // passed (a flow job checking again) loops at once: fio's spin.
      context.run_once(1, wake == kNever ? io::kNoDeadline : wake);
    // Otherwise a flow job is checking again: loop at once, a spin as fio's
    // (its do_io loop `continue`s without sleeping or yielding). On a loaded
    // host spinning jobs lose CPU to the others, fio's as ours: butterfly.fio
    // gave fio 8-10k IOPS a job on a quiet host and 1.8-2.3k at load 3; a
    // yield in this loop made ours 1.2x fio quiet and 3x loaded.
  }
  driver.finish();
  on_job_finished(*inst.job, *exit);
  inst.verify_errors = driver.verify_errors();
  inst.verify_message = driver.first_verify_error();
  inst.verify_notes = driver.verify_notes();
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
                   RunProgress* progress, ExitFlags* exit, FlowGroups* flows, const JobLogOpener& open_logs) {
  io::Backend& shared = context.backend();
  auto* sim = dynamic_cast<io::SimBackend*>(&shared);
  std::vector<std::unique_ptr<TargetPort>> ports;
  std::vector<std::unique_ptr<JobDriver>> drivers;
  std::vector<std::unique_ptr<JobLog>> logs;
  for (Instance* inst : group) {
    inst->engine = "simulated: no engine is modelled, the queue depth as written (ioengine=" +
                   std::string(to_string(inst->job->ioengine)) + ")";
    inst->io_mode = "simulated (no page cache)";
    ports.push_back(target.open_port(context));
    drivers.push_back(std::make_unique<JobDriver>(*inst->job, inst->index, target, *ports.back(),
                                                  inst->result, progress, inst->run_jobs));
    // The logs run on the virtual clock.
    logs.push_back(open_log(*inst, open_logs,
                            {inst->job->filename.empty() ? std::string("simulated") : inst->job->filename}));
    drivers.back()->set_log(logs.back().get());
    if (inst->job->flow) drivers.back()->set_flow(&flows->at(inst->job->flow_id));
    drivers.back()->set_steady_group(inst->steady, inst->steady_member);
  }
  for (auto& d : drivers) d->set_stop_flag(&exit->group), d->start();
  std::vector<bool> seen_done(drivers.size(), false);
  for (;;) {
    uint64_t wake = kNever;
    bool all_done = true;
    for (size_t i = 0; i < drivers.size(); ++i) {
      auto& d = drivers[i];
      if (!d->finished()) wake = std::min(wake, d->pump());
      if (d->finished() && !seen_done[i]) seen_done[i] = true, on_job_finished(*group[i]->job, *exit);
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
    group[i]->verify_notes = drivers[i]->verify_notes();
  }
}

// What RaidScope's verify covers (one job or several files alike): verify
// blocks (verify_interval_of) of at least 512 bytes, a multiple of 8.
std::string check_verify_options(const JobOptions& job) {
  if (job.verify == VerifyKind::none) return {};
  const uint32_t interval = verify_interval_of(job);
  if (!verify_block_len_ok(interval))
    return "verify needs blocks of at least 512 bytes, a multiple of 8: with bs " +
           std::to_string(job.bs[0]) + "," + std::to_string(job.bs[1]) + " each verify block would hold " +
           std::to_string(interval) + " bytes (verify_interval)";
  return {};
}
}  // namespace

std::string check_file_set_job(const JobOptions& job, uint32_t block_size) {
  if (job.size_percent || job.offset_percent)
    return "size=N% and offset=N% are not supported with several files (nrfiles, directory, a:b)";
  if (std::string err = check_verify_options(job); !err.empty()) return err;
  if (job.experimental_verify && job.verify != VerifyKind::none)
    return "experimental_verify is not supported with several files (nrfiles, directory, a:b)";
  for (unsigned clone = 0; clone < job.numjobs; ++clone) {
    const auto files = job_files(job, clone);
    if (!files) return files.error().message;
    for (const auto& f : *files) {
      JobOptions one = job;
      one.size = f.size;
      if (std::string err = validate_against_target(one, job.offset + f.size, block_size); !err.empty())
        return f.path + ": " + err;
    }
  }
  return "";
}

std::vector<std::string> engine_notes(const std::vector<JobOptions>& jobs) {
  std::vector<std::string> notes;
  bool said_buffered_libaio = false;
  for (const auto& job : jobs) {
    if (is_sync_engine(job.ioengine) && job.iodepth > 1)
      notes.push_back("note: job '" + job.name + "': both iodepth >= 1 and synchronous I/O engine (" +
                      std::string(to_string(job.ioengine)) +
                      ") are selected, queue depth will be capped at 1");
    if (job.submit_offload)
      notes.push_back("note: job '" + job.name +
                      "': io_submit_mode=offload: each I/O is issued at its rate's time while one of the " +
                      std::to_string(job.iodepth) +
                      " slots is free, whatever completes (by the job's own loop: fio's submit threads are "
                      "not used)");
    if (!job.wait_for.empty())
      notes.push_back("note: job '" + job.name + "': wait_for=" + job.wait_for +
                      ": it starts once every job defined before it has finished");
    if (does_trim(job.rw))
      notes.push_back(
          "note: job '" + job.name + "': rw=" + std::string(to_string(job.rw)) +
          ": each trim is done when issued, with fallocate(PUNCH_HOLE) on a file or BLKDISCARD on a "
          "block device (as fio's engines do trims), whatever the ioengine");
    // libaio is Linux AIO itself, except on a buffered file, where Linux
    // AIO does each I/O inside io_submit: so do we, and say so once.
    if (job.ioengine == IoEngine::libaio && !job.direct && !said_buffered_libaio) {
      said_buffered_libaio = true;
      notes.push_back(
          "note: ioengine=libaio with direct=0: on a buffered file Linux AIO does each I/O inside io_submit, "
          "one at a time (for fio's libaio too)");
    }
  }
  return notes;
}

namespace {
// zonemode=zbd: what fio 3.33 asks of a job on emulated zones (zbd.c
// init_zone_info, zbd_setup_files), and what RaidScope's emulation covers.
std::string check_zbd_job(const JobOptions& job, const Target& target) {
  if (job.zonesize == 0)
    return "zonemode=zbd needs zonesize on a target without zones of its own (as fio: its zone size is "
           "mandatory for a regular file or block device)";
  if (job.zonesize < 512) return "zonemode=zbd: zonesize must be at least 512 bytes";
  if (target.size_bytes() < job.zonesize) return "zonemode=zbd: the target is smaller than zonesize";
  if (const_cast<Target&>(target).shared_context())
    return "zonemode=zbd is not supported on a simulated target";
  if (target.is_file_set() || job.nrfiles > 1) return "zonemode=zbd with several files is not supported";
  if (does_write(job.rw) && !job.direct)
    return "zonemode=zbd: direct I/O is mandatory for writing (fio: \"Using direct I/O is mandatory for "
           "writing to ZBD drives\"); set direct=1";
  if (job.verify != VerifyKind::none) return "zonemode=zbd with verify is not supported";
  if (job.rw == RwMode::trimwrite || job.rw == RwMode::randtrimwrite)
    return "zonemode=zbd with rw=" + std::string(to_string(job.rw)) + " is not supported";
  return {};
}

// fio's zbd_zone_align_file_sizes: a job that writes or trims starts at a
// zone boundary (the offset rounded up) and covers whole zones (the size
// rounded down).
std::string align_zbd_region(JobOptions& job, uint64_t target_bytes) {
  if (job.rw == RwMode::read || job.rw == RwMode::randread) return {};
  const uint64_t z = job.zonesize;
  uint64_t start = (job.offset + z - 1) / z * z;
  uint64_t end = std::min(job.offset + job.size, target_bytes);
  if (end != target_bytes || end % z) end = end / z * z;
  if (end <= start) return "zonemode=zbd: io_size must be at least one zone";
  job.offset = start;
  job.size = end - start;
  return {};
}
}  // namespace

namespace {

// fio's checks for dedupe_mode=working_set (init.c fixup_options), with
// its reasons: the set is sized from `size`, per file, and its pages are
// unique pages the job writes, so they and the dedupe share fit in 100 %.
std::string check_dedupe_working_set(const JobOptions& job) {
  if (!job.dedupe_percentage || !job.dedupe_mode_working_set) return {};
  auto given = [&](std::string_view name) {
    for (const auto* list : {&job.given, &job.inherited})
      for (const auto& [key, value] : *list)
        if (key == name) return true;
    return false;
  };
  if (!given("size")) return "dedupe_mode=working_set needs size= (the working set is a share of it)";
  if (job.nrfiles > 1 || split_file_names(job.filename).size() > 1)
    return "dedupe_mode=working_set works on one file per job (as fio)";
  if (job.dedupe_percentage + job.dedupe_working_set_percentage > 100)
    return "dedupe_percentage=" + std::to_string(job.dedupe_percentage) + " cannot be reached: " +
           "dedupe_working_set_percentage=" + std::to_string(job.dedupe_working_set_percentage) +
           " of the size is written as the working set's unique pages (the two add up to over 100, "
           "as fio refuses)";
  return {};
}

}  // namespace

std::string check_jobs(std::vector<JobOptions>& jobs, const Target& target) {
  for (size_t i = 0, group_start = 0; i < jobs.size(); ++i) {  // fio's td_steadystate_init
    if (starts_reporting_group(jobs, i)) group_start = i;
    if (jobs[i].ss_dur.count() > 0 && jobs[i].ss_dur < jobs[i].ss_interval)
      return "job '" + jobs[i].name + "': ss_dur must be at least ss_interval (1s unless given)";
    for (size_t k = group_start; k < i; ++k)
      if (std::string err = check_steady_state_group(jobs[i], jobs[k]); !err.empty())
        return "job '" + jobs[i].name + "': " + err;
  }
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (jobs[i].wait_for.empty()) continue;
    bool before = false;
    for (size_t k = 0; k < i; ++k) before |= jobs[k].name == jobs[i].wait_for;
    if (!before)
      return "job '" + jobs[i].name + "': wait_for=" + jobs[i].wait_for +
             " names no job defined before it (RaidScope runs wait_for as a barrier after the jobs before "
             "it)";
  }
  for (auto& job : jobs) {
    if (job.verify == VerifyKind::pattern && job.verify_pattern.empty())
      return "job '" + job.name + "': verify=pattern needs verify_pattern= (the bytes every block must hold)";
    if (std::string err = check_dedupe_working_set(job); !err.empty())
      return "job '" + job.name + "': " + err;
    if (job.seq_add != 0 && is_random(job.rw))
      return "job '" + job.name + "': rw=" + std::string(to_string(job.rw)) +
             ":N (a new random offset every N I/Os) is not supported";
    if (!job.direct && job.direct_given && !target.offers_buffered())
      return "job '" + job.name + "': direct=0 / buffered=1 asks for the page cache, which " +
             target.describe() + " does not offer (an array has no page cache of its own); use direct=1";
    if (job.ioengine == IoEngine::mmap && !target.offers_buffered())
      return "job '" + job.name + "': ioengine=mmap needs a file or block device to map; " +
             target.describe() + " cannot be mapped";
    if (std::string err = check_rate_options(job); !err.empty()) return "job '" + job.name + "': " + err;
    // fio caps the synchronous engines at depth 1 (engine_notes() says so).
    // A simulation models no engine: its jobs keep the depth as written.
    if (is_sync_engine(job.ioengine) && !const_cast<Target&>(target).shared_context()) {
      job.iodepth = 1;
      job.iodepth_batch_submit = 1;
      job.iodepth_batch_complete_min = 1;
      job.iodepth_batch_complete_max = 0;
    }
    if (uses_cmdprio(job)) {
      const char* opt = job.cmdprio_bssplit[0].empty() && job.cmdprio_bssplit[1].empty()
                            ? "cmdprio_percentage"
                            : "cmdprio_bssplit";
      if (job.ioengine != IoEngine::libaio && job.ioengine != IoEngine::io_uring)
        return "job '" + job.name + "': " + opt +
               " is an option of ioengine=libaio and io_uring (fio's), not of " +
               std::string(to_string(job.ioengine));
      if ((job.cmdprio_percentage[0] || job.cmdprio_percentage[1]) &&
          (!job.cmdprio_bssplit[0].empty() || !job.cmdprio_bssplit[1].empty()))
        return "job '" + job.name + "': cmdprio_percentage and cmdprio_bssplit are mutually exclusive";
      if (!target.offers_buffered() || const_cast<Target&>(target).shared_context())
        return "job '" + job.name + "': " + opt +
               " gives I/Os their own priority on a file or block device; " + target.describe() +
               " passes no per-I/O priority on";
    }
    if (job.zbd) {
      if (std::string err = check_zbd_job(job, target); !err.empty()) return "job '" + job.name + "': " + err;
    }
    if ((job.fsync_blocks || job.fdatasync_blocks || job.sync_file_range_nr || job.end_fsync ||
         job.fsync_on_close) &&
        !target.offers_sync())
      return "job '" + job.name +
             "': fsync, fdatasync, sync_file_range, end_fsync and fsync_on_close sync a file or block "
             "device; " +
             target.describe() + " is not one";
    if (does_trim(job.rw) && !target.offers_trim() && !job.zbd)
      return "job '" + job.name + "': rw=" + std::string(to_string(job.rw)) +
             " needs a target that can discard (" + target.describe() +
             " cannot: RaidScope's arrays pass no trims to their members)";
    if (does_trim(job.rw) && job.verify != VerifyKind::none)
      return "job '" + job.name + "': verify with trims is not supported";
    if (!job.buffer_pattern.empty() && (job.buffer_compress_percentage || job.dedupe_percentage))
      return "job '" + job.name +
             "': buffer_pattern with buffer_compress_percentage or dedupe_percentage is not supported";
    if (target.is_file_set()) {
      if (std::string err = check_file_set_job(job, target.block_size()); !err.empty())
        return "job '" + job.name + "': " + err;
      continue;
    }
    // validate_against_target names the job itself; a direct=1 alignment
    // refusal gets the target's word on what serves such I/O.
    std::string err = validate_against_target(job, target.size_bytes(), target.block_size());
    if (!err.empty())
      return err + (err.find("direct=1 needs") != std::string::npos ? target.alignment_hint() : "");
    if (job.zbd) {
      if (std::string e = align_zbd_region(job, target.size_bytes()); !e.empty())
        return "job '" + job.name + "': " + e;
    }
    if (std::string err = check_verify_options(job); !err.empty()) return "job '" + job.name + "': " + err;
  }
  return "";
}

uint64_t planned_bytes(const std::vector<JobOptions>& jobs) {
  uint64_t total = 0;
  for (auto& j : jobs) {
    if (j.time_based) return 0;
    const uint64_t pass = j.io_size ? j.io_size : j.size;
    total += pass * j.loops * j.numjobs *
             ((j.verify != VerifyKind::none && j.do_verify && !does_read(j.rw)) ? 2 : 1);
  }
  return total;
}

uint64_t planned_ns(const std::vector<JobOptions>& jobs) {
  uint64_t total = 0, group = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (i > 0 && starts_run_group(jobs, i)) total += group, group = 0;
    const auto& j = jobs[i];
    if (j.runtime.count() > 0)
      group = std::max<uint64_t>(group, uint64_t((j.startdelay + j.ramp_time + j.runtime).count()) * 1000);
  }
  return total + group;
}

RunOutcome run_jobs(const std::vector<JobOptions>& jobs, const OptionList& global_options, Target& target,
                    RunProgress* progress, const JobLogOpener& open_logs) {
  RunOutcome out;
  for (const auto& job : jobs)
    if (wants_logs(job) && !open_logs) {
      out.error = "job '" + job.name + "' asks for log files, and this run has no log writer";
      return out;
    }
  std::vector<std::unique_ptr<Instance>> instances;
  // fio's groups: stonewall starts a new reporting group and waits for the
  // jobs before it; new_group only starts a reporting group; wait_for only
  // waits (check_jobs made sure it names a job before it).
  int groupid = 0, run_groups = 0;
  unsigned index = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (starts_reporting_group(jobs, i)) ++groupid;
    if (i > 0 && starts_run_group(jobs, i)) ++run_groups;
    for (unsigned c = 0; c < jobs[i].numjobs; ++c) {
      auto inst = std::make_unique<Instance>();
      inst->job = &jobs[i];
      inst->index = index++;
      inst->clone = c;
      inst->run_group = run_groups;
      inst->groupid = groupid;
      inst->result.groupid = groupid;
      inst->result.pid = int(::getpid());
      instances.push_back(std::move(inst));
    }
  }
  for (auto& inst : instances) inst->run_jobs = unsigned(instances.size());
  const std::vector<std::unique_ptr<SteadyGroup>> steady = make_steady_groups(instances);
  const auto wall_start = std::chrono::steady_clock::now();
  io::IoContext* shared = target.shared_context();
  auto target_now = [&] { return shared ? shared->backend().now_ns() : io::monotonic_ns(); };
  // fio registers every job's flow weight before any runs (flow_init_job).
  FlowGroups flows;
  for (auto& inst : instances)
    if (inst->job->flow) flows[inst->job->flow_id].total_weight += inst->job->flow;
  const std::unique_ptr<ZbdZones> zones = make_zones(instances, target);
  std::atomic<bool> exit_all{false};
  for (int g = 0; g <= run_groups; ++g) {
    if (exit_all) break;  // exitall with exit_what=all: the rest never start
    ExitFlags exit;
    exit.all = &exit_all;
    std::vector<Instance*> group;
    for (auto& inst : instances)
      if (inst->run_group == g) group.push_back(inst.get());
    const auto before = target.members();
    const uint64_t t0 = target_now();
    if (shared) {
      run_simulated(group, target, *shared, progress, &exit, &flows, open_logs);
    } else {
      std::vector<std::thread> threads;
      for (Instance* inst : group)
        threads.emplace_back(run_thread, std::ref(*inst), std::ref(target), progress, &exit, &flows,
                             &open_logs);
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
      if (i == 0 || !group[i]->job->group_reporting) {
        group[i]->result.raidscope = ext;
        group[i]->result.raidscope->engine = group[i]->engine;
        group[i]->result.raidscope->io_mode = group[i]->io_mode;
      }
  }
  const auto elapsed = std::chrono::steady_clock::now() - wall_start;
  std::vector<JobResults> results;
  for (auto& inst : instances) {
    inst->result.elapsed_sec = uint64_t(std::chrono::duration_cast<std::chrono::seconds>(elapsed).count());
    if (inst->steady) inst->result.steadystate = inst->steady->report();
    out.verify_errors += inst->verify_errors;
    if (!inst->verify_message.empty())
      out.verify_messages.push_back(inst->job->name + ": " + inst->verify_message);
    for (auto& note : inst->verify_notes) out.verify_messages.push_back(note);
    results.push_back(std::move(inst->result));
  }
  out.results = make_run_results(global_options, std::move(results));
  out.ok = true;
  return out;
}

}  // namespace rs::workload
