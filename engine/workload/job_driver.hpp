// One running job instance: a state machine that keeps `iodepth` I/Os in
// flight on its target, fio-style (budget or time based, ramp time, start
// delay, rate limits, think time, verify), and records what fio records.
//
// Completions re-issue from inside the completion callback, so a job needs
// no polling: the driver loop only reaps, submits, and wakes the job at the
// times pump() asks for (start delay, rate limit, think time).
//
// Submission follows fio's iodepth_batch_submit: the driver submits each
// time that many I/Os are queued (fio's default: every I/O on its own), and
// commit() pushes a partial batch before the loop waits.
#pragma once
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "io/backend.hpp"
#include "io/member_device.hpp"
#include "workload/buffer_contents.hpp"
#include "workload/file_choice.hpp"
#include "workload/io_priority.hpp"
#include "workload/job_log.hpp"
#include "workload/job_options.hpp"
#include "workload/latency_search.hpp"
#include "workload/offset_generator.hpp"
#include "workload/rate_control.hpp"
#include "workload/results.hpp"
#include "workload/steady_state.hpp"
#include "workload/target.hpp"
#include "workload/verify.hpp"
#include "workload/verify_state.hpp"
#include "workload/written_blocks.hpp"
#include "workload/zbd_zones.hpp"

namespace rs::workload {

inline constexpr uint64_t kNever = ~uint64_t{0};

// One job's figures for fio's --status-interval (RunProgress::status).
struct StatusCopy {
  uint64_t served = 0;  // the request (status_wanted) they answer
  bool done = false;    // the job ended: its last figures
  JobResults figures;
};

// Live totals a progress display reads while the run goes on.
struct RunProgress {
  std::atomic<uint64_t> bytes{0};
  std::atomic<uint64_t> ios{0};
  std::atomic<bool> cancel{false};
  // fio's --status-interval, when `status_enabled` is set before the run: a
  // reader bumps status_wanted, and each running job copies its figures so
  // far (the running phase's time counted in, as fio's
  // __show_running_run_stats) into `status` at its next completion; a job
  // leaves a copy when it starts and its last figures when it ends, and
  // wakes the reader waiting on status_copied. A job on a thread of its own
  // also leaves an asker while it runs: the reader calls it (after bumping
  // status_wanted) to post the request to the job's thread, which wakes a
  // job waiting out a think time, a rate limit or a slow completion, so it
  // answers at once instead of at its next completion.
  bool status_enabled = false;
  std::atomic<uint64_t> status_wanted{0};
  std::mutex status_mutex;
  std::condition_variable status_copied;
  std::map<unsigned, StatusCopy> status;                    // by job index; guarded by status_mutex
  std::map<unsigned, std::function<void()>> status_askers;  // by job index; guarded by status_mutex
};

// One flow_id's shared state (fio flow.c): I/Os issued by its jobs, and the
// sum of their flow weights. A job that ends takes both of its shares back
// (fio's flow_put), so the others no longer wait for it.
struct FlowGroup {
  std::atomic<uint64_t> issued{0};
  std::atomic<uint64_t> total_weight{0};
};

class JobDriver {
 public:
  // `job` must have passed validate_against_target(). `job_index` is the
  // instance's number in the run (fio's thread number: seeds, job id), of
  // `run_jobs` instances (dedupe_global's working set spans them).
  JobDriver(const JobOptions& job, unsigned job_index, Target& target, TargetPort& port, JobResults& out,
            RunProgress* progress, unsigned run_jobs = 1);
  ~JobDriver();
  JobDriver(const JobDriver&) = delete;
  JobDriver& operator=(const JobDriver&) = delete;

  // Another way to end the job early (fio's exitall: another job of the
  // group finished); read like a cancel. Set before start().
  void set_stop_flag(const std::atomic<bool>* flag) { stop_flag_ = flag; }
  // zonemode=zbd: the run's emulated zones, shared by its zbd jobs.
  void set_zones(ZbdZones* zones) { zbd_ = zones; }
  // The job's log (its bw/iops/lat logs and I/O trace; may be null): told
  // every I/O issued and completed. Must outlive the driver.
  void set_log(JobLog* log) { log_ = log; }
  // The job's flow group when it has a flow weight (may be null).
  void set_flow(FlowGroup* flow) { flow_ = flow; }
  // A job with ss_dur: its reporting group's steady state (member `member`
  // of it); any member samples the group. Set before start().
  void set_steady_group(SteadyGroup* group, unsigned member) { steady_ = group, steady_member_ = member; }
  // A multi-file job (file_set.hpp): each file's region size, in the job's
  // order (JobIo::file_sizes). File k is addressed at k << kFileShift; each
  // has its own offset sequence over [offset, offset + size), and fio's
  // file_service_type picks the file of each I/O. Set before start().
  void set_files(const std::vector<uint64_t>& sizes);
  // The path of each of the job's files (one for a single target): for the
  // names verify_dump gives its files.
  void set_file_names(std::vector<std::string> names) { file_names_ = std::move(names); }

  void start();
  // Issues what the job may issue now; returns when it wants to be called
  // again (kNever: only completions matter now).
  uint64_t pump();
  // Submits the I/Os queued since the last submit (a partial batch) and
  // stamps them submitted; the loop calls it before it reaps.
  void commit();
  // The loop's reap call handled `completions` member completions (fio's
  // "complete" distribution).
  void record_reap(unsigned completions);
  // One reap of the job's loop, handling at most reap_batch_max(job)
  // completions (fio's iodepth_batch_complete_max): begin_reap() opens it
  // and first handles completions parked by the last reap; completions the
  // backend delivers past the limit are parked for the next one (the
  // backend knows no limit). end_reap() closes it and returns how many
  // completions it handled. Outside a reap every completion is handled.
  unsigned begin_reap();
  unsigned end_reap();
  // Room left in the open reap, and completions waiting for the next one.
  unsigned reap_room() const { return reap_room_; }
  bool has_parked() const { return !parked_.empty(); }
  bool finished() const { return phase_ == Phase::Done; }
  // A --status-interval request reaching the job's thread between
  // completions (RunProgress::status_askers): its figures as of now, unless
  // it answered the request already or has ended.
  void answer_status();
  // Fills the result's totals; call once after finished().
  void finish();
  uint64_t verify_errors() const { return verify_errors_; }
  const std::string& first_verify_error() const { return first_verify_error_; }
  // verify_dump's lines, as fio prints them ("received data dumped as ...").
  const std::vector<std::string>& verify_notes() const { return verify_notes_; }

 private:
  enum class Phase { Waiting, Running, Verifying, Done };
  struct Slot {
    TargetIo io;
    JobDriver* driver = nullptr;
    bool zbd_held = false;  // its I/O holds a zone until it completes
    // Bytes of the verify pattern its buffer holds from its last write
    // (fio's buf_filled_len): such a write again only needs new headers.
    uint32_t pattern_filled = 0;
    bool verify_read = false;  // its read is checked at completion
  };
  static void on_done(TargetIo& io, int result);
  bool cancelled() const;
  uint64_t now_ns();  // the backend's clock; with gtod_reduce a cached reading
  uint64_t clock_reads_ = 0, cached_now_ = 0;
  void complete(Slot& slot, int result);
  bool can_issue(uint64_t now);
  void issue(Slot& slot, uint64_t now);
  bool fill_buffer(Slot& slot, uint64_t now);
  void advance_phase(uint64_t now);
  // Over its flow share with flow_sleep and nothing in flight: fio's sleep.
  void flow_pause(uint64_t now);
  // The next offset: the job's generator, or the chosen file's.
  IoRequest next_request();
  bool replay_ready(uint64_t now);
  // Why a generator refused the job (OffsetGenerator::status()), if one did.
  Status generators_status() const;
  size_t pick_file();
  void end_phase(uint64_t now);
  void issue_ready(uint64_t now);
  // The written blocks left to read back (the verify pass, a backlog round).
  bool verify_pending();
  WrittenPiece verify_take();
  // The block size the written log counts in; 0: variable sizes, logged as
  // pieces (bsrange, bssplit, rw=write:N).
  uint32_t written_bs() const { return fixed_bs(job_) && job_.seq_add == 0 ? job_.bs[kDdirWrite] : 0; }
  // A backlog round's read is due before the next write.
  bool backlog_read_due();
  // The sync fio would issue before the next I/O, if one is due now.
  std::optional<SyncKind> sync_due() const;
  // Does it on the job's thread (nothing in flight) and counts it.
  void run_sync(SyncKind kind);
  // end_fsync / fsync_on_close: each of the job's files once, at its end.
  void end_syncs();
  // Completes the trims done at issue, one after another (a completion may
  // issue the next trim, which lands here too, never deeper in the stack).
  void drain_inline();
  // The I/O's verify blocks: verify_interval bytes each (default: all of
  // it); `fn(chunk, length, offset)` returns false to stop.
  template <typename Fn>
  void for_each_interval(TargetIo& io, Fn fn) {
    const uint32_t step = interval_ ? interval_ : io.length;
    auto* b = static_cast<unsigned char*>(io.buffer);
    for (uint32_t at = 0; at + step <= io.length; at += step)
      if (!fn(b + at, step, io.offset + at)) return;
  }
  // buffer_pattern: the pattern repeated from the buffer's first byte.
  void fill_buffer_pattern(void* buffer, uint32_t length) const {
    auto* b = static_cast<uint8_t*>(buffer);
    const auto& p = job_.buffer_pattern;
    for (uint32_t at = 0; at < length; at += uint32_t(p.size()))
      std::memcpy(b + at, p.data(), std::min<size_t>(p.size(), length - at));
  }
  VerifyPattern pattern() const { return {job_.verify_pattern.data(), job_.verify_pattern.size()}; }
  // The pattern as the verify block at `chunk` of `io` holds it: with
  // verify=pattern it runs on from the start of the write (fio's).
  VerifyPattern pattern_at(const TargetIo& io, const unsigned char* chunk) const {
    VerifyPattern p = pattern();
    if (job_.verify == VerifyKind::pattern && p.len)
      p.phase = size_t(chunk - static_cast<const unsigned char*>(io.buffer)) % p.len;
    return p;
  }
  // An offset as the output shows it: within its file for a multi-file job
  // (file k's offsets are at k << kFileShift), as is for one target, whose
  // offsets may pass 2^kFileShift (a device over 1 TiB).
  uint64_t offset_in_file(uint64_t job_offset) const {
    return files_.empty() ? job_offset : job_offset & kFileOffsetMask;
  }
  // Which of the job's files an offset is in (0 for one target).
  size_t file_of(uint64_t job_offset) const { return files_.empty() ? 0 : size_t(job_offset >> kFileShift); }

  const JobOptions& job_;
  unsigned job_index_;
  Target& target_;
  TargetPort& port_;
  io::Backend& backend_;
  JobResults& out_;
  RunProgress* progress_;
  const std::atomic<bool>* stop_flag_ = nullptr;
  JobLog* log_ = nullptr;
  FlowGroup* flow_ = nullptr;
  // steady state (ss_dur): the job's reporting group's; any member samples it
  SteadyGroup* steady_ = nullptr;
  unsigned steady_member_ = 0;
  uint64_t ss_ios_ = 0, ss_bytes_ = 0;  // completed so far, published to the group
  bool steady_reached() const { return steady_ && steady_->attained(); }
  uint64_t status_served_ = 0;  // the last --status-interval request answered
  void serve_status(uint64_t now, bool done);
  // A --status-interval reader asked since the last copy: copy now (progress_ set).
  void serve_status_if_asked(uint64_t now);
  uint64_t flow_issued_ = 0;   // this job's I/Os counted in its flow group
  bool flow_quiesce_ = false;  // over its share with flow_sleep: waiting for its I/O, then the sleep
  bool flow_spin_ = false;     // over its share without flow_sleep: check again at once
  LatencySearch lat_;          // fio's latency_target depth search
  IoPriorities prio_;          // each I/O's priority (prio, prioclass, cmdprio_*)
  void record_prio_latency(DirectionResults& d, const TargetIo& io, uint64_t now);
  RateControl rate_;  // rate, rate_iops, rate_process, rate_min (rate_control.hpp)
  bool rate_ramp_pending_ = false;
  // fio's check_min_rate after a completion of `ddir`: a rate below
  // rate_min / rate_iops_min fails the job with EIO, as fio.
  void check_rate_minimum(uint64_t now, int ddir);
  void log_completion(const TargetIo& io, int ddir, uint64_t now);
  void reset_stats(uint64_t now);
  // zonemode=zbd: fio's zbd_adjust_block for the request about to be
  // issued. False: not issued now (a zone to wait for, or the job's end).
  bool zbd_place(Slot& slot, IoRequest& r, bool trim);
  ZbdZones* zbd_ = nullptr;
  std::optional<IoRequest> zbd_pending_;
  bool zbd_pending_trim_ = false;
  ZbdZones::Verdict zbd_wait_ = ZbdZones::Verdict::accept;
  bool zbd_eof_ = false;
  size_t replay_at_ = 0;  // read_iolog: the next entry of job_.replay to issue
  bool seq_eof_ = false;  // the generator reached fio's end of file (IoRequest::eof) this pass
  // What the offset generator sees: the job, with a trim mode as the read
  // or write mode that visits the same blocks (trim: read, trimwrite:
  // write) in the trim's block size.
  JobOptions gen_job_;
  OffsetGenerator gen_;
  // Multi-file jobs: a generator per file (over the file's region, at its
  // k << kFileShift), what was issued to each in this pass, and fio's
  // file service state (the current file, I/Os left on it).
  struct FileStream {
    JobOptions job;  // gen_job_ over this file's region: the generator keeps pointers into it
    std::optional<OffsetGenerator> gen;
    uint64_t size = 0;
    uint64_t issued = 0;
  };
  std::vector<std::unique_ptr<FileStream>> files_;
  uint64_t files_total_ = 0;  // bytes per pass over the files
  size_t files_done_ = 0;     // files whose region was issued in full this pass
  size_t file_cur_ = 0;
  unsigned file_left_ = 0;
  bool file_chosen_ = false;
  std::optional<RandomFileChoice> file_choice_;  // file_service_type=random, zipf, pareto, normal
  void log_files(JobLog::FileEvent event);
  std::optional<BufferContents> contents_;  // dedupe/compress/refill: the write buffers' contents
  uint64_t seed_;
  bool verifying_job_;
  uint32_t interval_;        // verify_interval_of(job): bytes per verify block
  bool wrap_invalidate_;     // fio's loop_cache_invalidate applies (time based, buffered)
  uint64_t wrap_bytes_ = 0;  // issued since the offsets last started over
  bool executes_at_submit_;  // a sync engine: the I/O runs inside submit()
  bool measures_slat_;       // fio keeps submission latency for this engine (measures_slat)

  std::vector<Slot> slots_;
  std::vector<Slot*> free_;
  std::vector<Slot*> unstamped_;  // queued, not yet submitted
  unsigned submit_batch_ = 1;
  // Trims run at issue, as fio's engines do them (do_io_u_trim); their
  // completions wait here for drain_inline().
  std::deque<std::pair<Slot*, int>> inline_done_;
  // The reap window (begin_reap/end_reap): completions it may still handle
  // (~0u: no reap open), those it handled, and those past its limit.
  unsigned reap_room_ = ~0u, reaped_ = 0;
  std::deque<std::pair<Slot*, int>> parked_;
  bool unparking_ = false;
  bool draining_ = false;
  // trimwrite: the block just trimmed, to be written next.
  bool write_after_trim_ = false;
  IoRequest trimmed_;
  io::AlignedBuffer buffers_;
  int buffers_handle_ = -1;  // buffers_ registered with the backend (Target::registers_buffers)
  unsigned in_flight_ = 0;

  Phase phase_ = Phase::Waiting;
  uint64_t start_ns_ = 0;        // when the job began issuing (after startdelay)
  uint64_t stats_start_ns_ = 0;  // start + ramp_time
  uint64_t deadline_ns_ = kNever;
  uint64_t next_issue_ns_ = 0;  // think time
  uint64_t end_ns_ = 0;
  uint64_t verify_phase_start_ns_ = 0;
  uint64_t budget_bytes_ = kNever;
  uint64_t pass_bytes_ = 0;     // io_size, else size
  unsigned passes_left_ = 1;    // loops, for verifying jobs
  uint64_t pass_start_ns_ = 0;  // when the current write pass began
  uint64_t issued_ios_ = 0;     // for number_ios
  // fsync=, fdatasync=, sync_file_range= (fio's get_rw_ddir): writes issued,
  // whether the last I/O issued was a write, and where (its file).
  uint64_t writes_issued_ = 0;
  // verify_backlog: written blocks not yet read back, in the order their
  // writes completed, and the reads left in the current round.
  std::deque<WrittenPiece> backlog_;
  uint64_t backlog_round_ = 0;
  bool last_was_write_ = false;
  uint64_t last_write_offset_ = 0;
  uint64_t issued_bytes_ = 0;
  bool stop_ = false;

  // verify: which blocks were written, and the read-back cursor
  WrittenBlocks written_;
  uint64_t verify_errors_ = 0;
  std::string first_verify_error_;
  std::vector<std::string> file_names_;
  // verify_state_save: each file's last iodepth write completions (newest
  // at the back); verify_state_load: the state loaded, and reads completed.
  std::vector<LastValues> last_writes_;
  std::optional<VerifyState> loaded_state_;
  uint64_t reads_done_ = 0;
  bool saves_state() const {
    return job_.verify_state_save && job_.verify != VerifyKind::none && does_write(job_.rw);
  }
  // A verifying read the loaded state says to stop at (the job then ends).
  bool state_stops(const TargetIo& io) const {
    return loaded_state_ && verify_state_should_stop(*loaded_state_, reads_done_, file_of(io.offset),
                                                     offset_in_file(io.offset));
  }
  void save_state();
  // experimental_verify: the generator as the pass began, the bytes the
  // pass wrote, those read back, and the next piece to read back.
  std::optional<OffsetGenerator> replay_;
  uint64_t pass_written_ = 0, replay_issued_ = 0;
  std::optional<WrittenPiece> replay_next_;
  void begin_pass();
  bool replay_pending();
  void check_read(TargetIo& io);
  void note_write(const TargetIo& io);
  std::vector<std::string> verify_notes_;
  // verify_dump: writes the failed block (and, for a payload failure, the
  // block expected) next to the job, as fio's dump_buf.
  void dump_failure(const TargetIo& io, const unsigned char* chunk, uint32_t len, uint64_t offset,
                    const VerifyResult& v);
};

}  // namespace rs::workload
