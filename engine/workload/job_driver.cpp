#include "workload/job_driver.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "workload/replay_log.hpp"
#include "workload/sync_engines.hpp"
#include "workload/verify.hpp"
#include "workload/verify_files.hpp"

namespace rs::workload {

namespace {
uint64_t ns(std::chrono::microseconds us) {
  return uint64_t(us.count()) * 1000;
}
constexpr uint64_t kSlotAlign = 4096;

// The generator's view of a trim job (see JobDriver::gen_job_).
JobOptions generator_options(const JobOptions& job) {
  JobOptions g = job;
  // zonemode=zbd: zonesize describes the emulated zones (zbd_zones.hpp), not strides.
  if (job.zbd) g.zonesize = g.zonerange = g.zoneskip = 0;
  switch (job.rw) {
    case RwMode::trim:
    case RwMode::randtrim:
      g.rw = job.rw == RwMode::trim ? RwMode::read : RwMode::randread;
      g.bs[kDdirRead] = job.bs_trim;
      g.bs_max[kDdirRead] = job.bs_trim_max;
      g.bssplit[kDdirRead] = job.bssplit_trim;
      break;
    case RwMode::trimwrite:
    case RwMode::randtrimwrite:
      // fio: each block is trimmed at a trim size, then written whole.
      g.rw = job.rw == RwMode::trimwrite ? RwMode::write : RwMode::randwrite;
      g.bs[kDdirWrite] = job.bs_trim;
      g.bs_max[kDdirWrite] = job.bs_trim_max;
      g.bssplit[kDdirWrite] = job.bssplit_trim;
      break;
    default:
      break;
  }
  return g;
}

// Makes a write's bytes unique at the cost of a few stores: in every
// 512-byte block, the block's byte offset goes into one of the first eight
// 64-byte lines (which one varies with the offset and time) and the time
// into the first line's last 16 bytes.
void scramble_block_stamps(void* buffer, uint32_t length, uint64_t offset, uint64_t now_ns) {
  auto* p = static_cast<uint8_t*>(buffer);
  const unsigned line = unsigned((now_ns ^ offset) & 7);
  for (uint32_t b = 0; b + 512 <= length; b += 512) {
    const uint64_t block_offset = offset + b;
    std::memcpy(p + b + line * 64, &block_offset, 8);
    std::memcpy(p + b + 48, &now_ns, 8);
    std::memcpy(p + b + 56, &block_offset, 8);
  }
}
}  // namespace

JobDriver::JobDriver(const JobOptions& job, unsigned job_index, Target& target, TargetPort& port,
                     JobResults& out, RunProgress* progress, unsigned run_jobs)
    : job_(job),
      job_index_(job_index),
      target_(target),
      port_(port),
      backend_(port.backend()),
      out_(out),
      progress_(progress),
      lat_(job),
      prio_(job, job_seed(job, job_index)),
      rate_(job, job_seed(job, job_index)),
      gen_job_(generator_options(job)),
      gen_(gen_job_, job_seed(job, job_index)),
      seed_(job_seed(job, job_index)),
      // fio: a job that writes with verify= logs its writes and reads them
      // back (a mixed job too: only those reads are checked, not its own).
      verifying_job_(job.verify != VerifyKind::none && does_write(job.rw)),
      interval_(job.verify != VerifyKind::none ? verify_interval_of(job) : 0),
      wrap_invalidate_(job.time_based && !job.direct && job.invalidate &&
                       (!is_random(job.rw) || ((!job.norandommap || job.lfsr) &&
                                               job.random_distribution == Distribution::random)) &&
                       fixed_bs(job) && job.seq_add == 0),
      executes_at_submit_(dynamic_cast<SyncEngineBackend*>(&backend_) != nullptr),
      measures_slat_(measures_slat(job)) {
  const uint64_t slot_bytes =
      (std::max({max_bs(job, 0), max_bs(job, 1), max_bs(gen_job_, 1)}) + kSlotAlign - 1) / kSlotAlign *
      kSlotAlign;
  slots_.resize(job.iodepth);
  if (auto buffers = io::AlignedBuffer::allocate(slot_bytes * job.iodepth, kSlotAlign)) {
    buffers_ = std::move(*buffers);
  } else {  // no slot memory: the job's I/O fails and the run says why
    out_.error = ENOMEM;
    out_.error_text = buffers.error().message;
  }
  free_.reserve(job.iodepth);
  unstamped_.reserve(job.iodepth);
  submit_batch_ = submit_batch(job);
  for (size_t i = 0; i < slots_.size(); ++i) {
    Slot& s = slots_[i];
    s.driver = this;
    s.io.buffer = buffers_.data() + i * slot_bytes;
    s.io.owner = &s;
    s.io.done = &JobDriver::on_done;
    s.io.job_id = uint32_t(300 + seed_ % 32468);  // btrfs's current->pid: a pid drawn from the job's seed
    port_.prepare(s.io, uint32_t(slot_bytes));
    free_.push_back(&s);
  }
  // Write jobs send what is in their buffers: fill them once with
  // pseudo-random bytes (fio's default buffer contents), never stale memory.
  if (does_write(job.rw) && !job.buffer_pattern.empty()) {
    for (Slot& s : slots_) fill_buffer_pattern(s.io.buffer, uint32_t(slot_bytes));
  } else if (does_write(job.rw) && !target_.shared_context()) {
    uint64_t x = seed_ | 1;
    auto* words = reinterpret_cast<uint64_t*>(buffers_.data());
    for (size_t i = 0; i < buffers_.size() / 8; ++i) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      words[i] = x;
    }
  }
  if (target_.registers_buffers())
    buffers_handle_ = backend_.register_buffer(buffers_.data(), buffers_.size());
  if (does_write(job.rw) && BufferContents::wanted(job) && job.buffer_pattern.empty())
    contents_.emplace(job, seed_, job_index, run_jobs);
  if (verifying_job_) written_.cover(job.offset, job.size, written_bs());
  last_writes_.assign(1, LastValues(job.iodepth));
  out_.jobname = job.name;
  out_.description = job.description;
  out_.options = job.given;
  out_.group_reporting = job.group_reporting;
  out_.iodepth = job.iodepth;
  out_.percentile_list = job.percentile_list;
  out_.percentile_precision = job.percentile_precision;
  out_.clat_percentiles = job.clat_percentiles;
  out_.lat_percentiles = job.lat_percentiles;
  out_.slat_percentiles = job.slat_percentiles;
  out_.unified_rw_reporting = job.unified_rw_reporting;
  if (job.gtod_reduce) out_.clat_percentiles = false;  // fio: gtod_reduce turns percentiles off
  // fio's per-priority latency (cmdprio_*); fio's offload workers keep
  // none (rate-submit.c: disable_prio_stat).
  if (uses_cmdprio(job) && !job.submit_offload)
    for (int d : {kDdirRead, kDdirWrite})
      if (d == kDdirRead ? does_read(job.rw) : does_write(job.rw))
        for (uint16_t p : prio_.stat_prios(d)) out_.dir(d).prios.push_back({p, {}});
  out_.latency_target_ns = job.latency_target_ns;
  out_.latency_window_us = uint64_t(job.latency_window.count());
  out_.latency_percentile = job.latency_percentile;
}

JobDriver::~JobDriver() {
  if (buffers_handle_ >= 0) backend_.unregister_buffer(buffers_handle_);
}

void JobDriver::set_files(const std::vector<uint64_t>& sizes) {
  files_.clear();
  files_total_ = 0;
  uint32_t min_bs = UINT32_MAX;
  for (int d : {kDdirRead, kDdirWrite})
    if (d == kDdirRead ? does_read(gen_job_.rw) : does_write(gen_job_.rw))
      min_bs = std::min(min_bs, gen_job_.bs[size_t(d)]);
  if (min_bs == UINT32_MAX) min_bs = 1;
  for (size_t k = 0; k < sizes.size(); ++k) {
    auto f = std::make_unique<FileStream>();
    f->job = gen_job_;
    f->job.offset = (uint64_t(k) << kFileShift) + job_.offset;
    f->job.size = sizes[k];
    // Whole blocks only: fio's file is done when no block fits any more.
    f->size = sizes[k] - sizes[k] % min_bs;
    f->gen.emplace(f->job, seed_ + 0x9e3779b97f4a7c15ull * (k + 1));
    files_total_ += f->size;
    files_.push_back(std::move(f));
  }
  // fio: size= below the files' total bounds the job (setup_files).
  if (!job_.size_from_filesize && job_.size) files_total_ = std::min(files_total_, job_.size);
  file_choice_.emplace(job_, files_.size(), seed_ ^ 0xf11e5e7ull);
  if (verifying_job_) written_.cover_files(job_.offset, sizes, written_bs());
  last_writes_.assign(sizes.size(), LastValues(job_.iodepth));
}

void JobDriver::log_files(JobLog::FileEvent event) {
  if (!log_) return;
  const uint64_t now = backend_.now_ns();
  log_->files(now > start_ns_ ? now - start_ns_ : 0, event);
}

// fio's __get_next_file: stay on the current file for file_service_nr I/Os
// (sequential: until it is done), then roundrobin takes the next file not
// done, random a random one. Without time_based a file is done once its
// region was issued; when all are (loops, io_size beyond size), a new pass
// over them starts.
size_t JobDriver::pick_file() {
  const size_t n = files_.size();
  auto done = [&](size_t k) { return !job_.time_based && files_[k]->issued >= files_[k]->size; };
  if (files_done_ == n) {
    for (auto& f : files_) f->issued = 0;
    files_done_ = 0;
  }
  if (file_chosen_ && !done(file_cur_)) {
    if (job_.file_service == JobOptions::FileService::sequential) return file_cur_;
    if (file_left_ > 0) {
      --file_left_;
      return file_cur_;
    }
  }
  if (job_.file_service != JobOptions::FileService::roundrobin &&
      job_.file_service != JobOptions::FileService::sequential) {
    // fio's get_next_file_rand draws again while the file drawn is done (a
    // skewed draw may rarely give the last files left: then the next one).
    size_t k = file_choice_->next();
    for (unsigned tries = 1; done(k); ++tries) k = tries < 1024 ? file_choice_->next() : (k + 1) % n;
    file_cur_ = k;
  } else {
    size_t k = file_chosen_ ? (file_cur_ + 1) % n : 0;
    while (done(k)) k = (k + 1) % n;
    file_cur_ = k;
  }
  file_chosen_ = true;
  file_left_ = job_.file_service_nr - 1;
  return file_cur_;
}

Status JobDriver::generators_status() const {
  if (!gen_.status()) return gen_.status();
  for (const auto& f : files_)
    if (f->gen && !f->gen->status()) return f->gen->status();
  return {};
}

IoRequest JobDriver::next_request() {
  if (job_.replay) {  // read_iolog: the log's next entry (can_issue saw there is one)
    const ReplayEntry& e = (*job_.replay)[replay_at_++];
    IoRequest r;
    r.offset = e.offset;
    r.length = e.length;
    r.is_write = e.write;
    return r;
  }
  if (files_.empty()) {
    // fio's loop_cache_invalidate: a time based buffered job drops the
    // region's cached pages each time its offsets start over (sequential
    // end, random map used up), so later passes do not run from the cache.
    if (wrap_invalidate_ && wrap_bytes_ >= job_.size) {
      wrap_bytes_ -= job_.size;
      target_.drop_cache(job_.offset, job_.size);
    }
    IoRequest r = gen_.next();
    wrap_bytes_ += r.length;
    return r;
  }
  FileStream& f = *files_[pick_file()];
  const IoRequest r = f.gen->next();
  const bool was_done = f.issued >= f.size;
  f.issued += r.length;
  if (!was_done && f.issued >= f.size) ++files_done_;
  return r;
}

// read_iolog: false once the log is replayed (the pass ends, as at fio's
// end of file) or while its next entry's time has not come: a version 3
// log is replayed at its own pace from the job's start, unless
// replay_no_stall.
bool JobDriver::replay_ready(uint64_t now) {
  const auto& log = *job_.replay;
  if (replay_at_ >= log.size()) {
    seq_eof_ = true;
    return false;
  }
  if (job_.replay_no_stall) return true;
  const uint64_t at = start_ns_ + (log[replay_at_].at_us - log.front().at_us) * 1000;
  if (now >= at) return true;
  next_issue_ns_ = at;
  return false;
}

void JobDriver::start() {
  const uint64_t now = backend_.now_ns();
  start_ns_ = now + ns(job_.startdelay);
  stats_start_ns_ = start_ns_ + ns(job_.ramp_time);
  deadline_ns_ = job_.runtime.count() > 0 ? stats_start_ns_ + ns(job_.runtime) : kNever;
  // fio: without time_based a job moves io_size (default: size) bytes,
  // `loops` times; with it, it loops until the runtime is over. A verifying
  // job writes one pass (even when time based), verifies it, and starts the
  // next pass while passes (loops, or time) remain (backend.c thread_main).
  pass_bytes_ = job_.io_size ? job_.io_size : files_.empty() ? job_.size : files_total_;
  passes_left_ = job_.loops;
  if (verifying_job_ && job_.do_verify)
    budget_bytes_ = pass_bytes_;
  else
    budget_bytes_ = job_.time_based ? kNever : pass_bytes_ * job_.loops;
  // A generator that refused the job (not resolved against the target)
  // hands out nothing: the job issues no I/O and ends with the reason.
  // So does a verify state that cannot be loaded (fio's thread_main).
  Status st = generators_status();
  if (st && job_.verify_state_load) {
    auto loaded = load_verify_state(job_.name, job_index_);
    if (loaded)
      loaded_state_ = std::move(*loaded);
    else
      st = loaded.error();
  }
  if (!st) {
    if (!out_.error) out_.error = EINVAL, out_.error_text = st.error().message;
    budget_bytes_ = 0;
    deadline_ns_ = start_ns_;
  }
  pass_start_ns_ = stats_start_ns_;
  begin_pass();
  rate_.restart(start_ns_);
  rate_ramp_pending_ = job_.ramp_time.count() > 0;
  lat_.start(start_ns_);
  if (steady_) steady_->start(stats_start_ns_);
  log_files(JobLog::FileEvent::add);
  log_files(JobLog::FileEvent::open);
  if (progress_ && progress_->status_enabled) serve_status(start_ns_, false);
  phase_ = Phase::Waiting;
  pump();
}

bool JobDriver::can_issue(uint64_t now) {
  if (stop_ || cancelled()) return false;
  // fio's FIO_Q_BUSY (the null target until its completions are reaped):
  // the reap's completions issue again.
  if (backend_.busy()) return false;
  if (phase_ == Phase::Verifying) {
    // fio's runtime covers the verify pass too.
    return verify_pending() && now < deadline_ns_;
  }
  if (phase_ != Phase::Running) return false;
  // trimwrite: the block just trimmed is written even when the trims used
  // up the budget (fio counts a trimwrite job's size in trims).
  if (now >= deadline_ns_ || (issued_bytes_ >= budget_bytes_ && !write_after_trim_) || steady_reached())
    return false;
  if (job_.number_ios && issued_ios_ >= job_.number_ios) return false;
  if (now < next_issue_ns_) return false;
  if (zbd_eof_ || seq_eof_) return false;
  if (job_.replay && !replay_ready(now)) return false;
  if (zbd_pending_ && zbd_wait_ != ZbdZones::Verdict::accept) {
    // A zone to reset or held by another job: fio lets the job's own I/O
    // complete first (io_u_quiesce), then waits for the zone.
    if (in_flight_ > 0) return false;
    if (zbd_wait_ == ZbdZones::Verdict::busy) zbd_->wait_free(this, zbd_pending_->offset, deadline_ns_);
    zbd_wait_ = ZbdZones::Verdict::accept;
    if (cancelled() || backend_.now_ns() >= deadline_ns_) return false;
  }
  if (lat_.enabled()) {
    if (lat_.done()) return false;
    if (lat_.quiescing()) {
      if (in_flight_ > 0) return false;
      if (lat_.drained(now)) reset_stats(now);
    }
    if (in_flight_ >= lat_.depth()) return false;  // fio's queue_full
  }
  // Rate limits (rate_control.hpp): no I/O before each direction's next
  // I/O time. fio starts the rates over when ramp_time ends.
  if (rate_.limits()) {
    if (rate_ramp_pending_ && now >= stats_start_ns_) rate_.restart(now), rate_ramp_pending_ = false;
    if (const uint64_t at = rate_.next_issue_ns(); now < at) {
      // Inline submission (fio's default) waits for the job's I/O in flight
      // before it sleeps (io_u.c rate_ddir: io_u_quiesce): the last
      // completion checks again. Offload issues at the rate's times while
      // a slot is free.
      if (!job_.submit_offload && in_flight_ > 0) return false;
      next_issue_ns_ = at;
      return false;
    }
  }
  // fio's flow_threshold_exceeded (backend.c do_io): a job ahead of its
  // weight's share issues nothing; with flow_sleep it lets all its I/O
  // complete (io_u_quiesce), sleeps flow_sleep, and only then checks again,
  // even if the others caught up meanwhile; without flow_sleep it checks
  // again at once, spinning as fio does (a simulation, whose clock only
  // moves when the jobs wait, waits 10 us instead).
  flow_spin_ = false;
  if (flow_ && job_.flow) {
    if (flow_quiesce_) {
      if (in_flight_ > 0) return false;
      flow_quiesce_ = false;
      flow_pause(now);
      return false;
    }
    // fio's shared flow_counter starts at 1 (flow.c flow_get), so each job
    // may run one I/O ahead of its share.
    const uint64_t all = flow_->issued.load(std::memory_order_relaxed) + 1;
    const uint64_t weights = flow_->total_weight.load(std::memory_order_relaxed);
    if (double(flow_issued_) / double(all) > double(job_.flow) / double(weights)) {
      if (job_.flow_sleep.count() > 0 && in_flight_ > 0)
        flow_quiesce_ = true;  // the last completion starts the sleep
      else if (job_.flow_sleep.count() > 0)
        flow_pause(now);
      else if (job_.zbd && in_flight_ > 0)
        ;  // fio quiesces in zonemode=zbd (its zones free for the others): the completions check again
      else if (target_.shared_context())
        next_issue_ns_ = now + 10000;
      else
        flow_spin_ = true;
      return false;
    }
  }
  return true;
}

void JobDriver::flow_pause(uint64_t now) {
  if (target_.shared_context()) {  // a simulation: its clock moves instead
    next_issue_ns_ = now + ns(job_.flow_sleep);
    return;
  }
  // fio sleeps here with a bare usleep(flow_sleep) (flow.c), not with
  // usec_sleep as for think time and rates (which the runner's timed wait
  // follows): a nanosleep that the kernel lets run up to the thread's
  // timer slack (50 us by default) longer. Waited as a deadline in the I/O
  // loop, which has no slack, flow_sleep=100 pauses were shorter than
  // fio's and flow.fio ran 1.19x its IOPS. Nothing of the job is in
  // flight and the thread is the job's own: it sleeps as fio's job does,
  // then checks again.
  ::usleep(useconds_t(job_.flow_sleep.count()));
  flow_spin_ = true;  // the loop calls again at once
}

// A write's buffer contents (verify blocks, fresh or patterned contents,
// scrambled stamps); true when it was filled just now.
bool JobDriver::fill_buffer(Slot& slot, uint64_t now) {
  TargetIo& io = slot.io;
  bool filled = false;
  if (io.trim) {
    // no buffer contents: nothing is transferred
  } else if (io.write && contents_ && job_.verify == VerifyKind::none) {
    contents_->fill(io.buffer, io.length);
    filled = true;
  } else if (io.write && job_.verify != VerifyKind::none) {
    // pattern_filled stays 0 without a pattern.
    verify_fill_write(job_.verify, io.buffer, io.length, interval_, io.offset, seed_, pattern(),
                      slot.pattern_filled >= io.length);
    if (!job_.verify_pattern.empty()) slot.pattern_filled = std::max(slot.pattern_filled, io.length);
    filled = true;
  } else if (io.write && !job_.buffer_pattern.empty()) {
    // fio refills a job's pattern before each write when reads may have
    // landed in the buffer (str_buffer_pattern_cb: refill_buffers).
    if (does_read(job_.rw)) fill_buffer_pattern(io.buffer, io.length), filled = true;
  } else if (io.write && job_.scramble_buffers) {
    scramble_block_stamps(io.buffer, io.length, io.offset, now);
    filled = true;
  }
  return filled;
}

void JobDriver::issue(Slot& slot, uint64_t now) {
  TargetIo& io = slot.io;
  bool filled = false;  // the buffer got contents for a write just now
  if (phase_ == Phase::Verifying || backlog_read_due()) {
    io.write = false;
    io.trim = false;
    const WrittenPiece piece = verify_take();
    io.length = piece.length;
    io.offset = piece.offset;
    slot.verify_read = true;
    if (state_stops(io)) {  // fio's do_verify: the loaded state ends it here
      stop_ = true;
      free_.push_back(&slot);
      return;
    }
    if (backlog_round_) --backlog_round_;
    slot.pattern_filled = 0;  // the read replaces what the buffer held
  } else {
    IoRequest r;
    io.trim = false;
    if (zbd_pending_) {  // the request a zone put off (zbd_place)
      r = *zbd_pending_;
      io.trim = zbd_pending_trim_;
      zbd_pending_.reset();
    } else if (job_.rw == RwMode::trim || job_.rw == RwMode::randtrim) {
      r = next_request();
      io.trim = true;
    } else if (job_.rw == RwMode::trimwrite || job_.rw == RwMode::randtrimwrite) {
      // fio's trimwrite: a block is trimmed, then the same block written.
      if (write_after_trim_) {
        r = trimmed_;
      } else {
        r = trimmed_ = next_request();
        io.trim = true;
      }
      write_after_trim_ = !write_after_trim_;
    } else {
      r = next_request();
    }
    if (r.eof) {  // fio's io_u_eof: nothing more this pass
      seq_eof_ = true;
      free_.push_back(&slot);
      return;
    }
    if (zbd_ && !zbd_place(slot, r, io.trim)) {
      free_.push_back(&slot);
      return;
    }
    io.write = r.is_write && !io.trim;
    // fio checks every read of a job that only reads; a job that writes
    // checks only the reads of what it wrote (verify_backlog, verify pass).
    slot.verify_read = !io.write && !io.trim && job_.verify != VerifyKind::none && !does_write(job_.rw);
    last_was_write_ = io.write;
    if (io.write) ++writes_issued_, last_write_offset_ = r.offset;
    io.offset = r.offset;
    io.length = r.length;
    if (slot.verify_read && state_stops(io)) {  // fio's do_io: the loaded state ends the job here
      stop_ = true;
      free_.push_back(&slot);
      return;
    }
    // A read lands in the buffer. A block that verifies brings the pattern
    // back, but one that fails (verify_fatal=0 goes on) must not be sent
    // out again as the pattern: fio clears buf_filled_len on reads too.
    if (!io.write && !io.trim) slot.pattern_filled = 0;
    filled = fill_buffer(slot, now);
    if (io.trim || !does_trim(job_.rw)) issued_bytes_ += r.length;
    const int d = io.trim ? kDdirTrim : io.write ? kDdirWrite : kDdirRead;
    if (rate_.limits()) rate_.issued(d, r.length);
    ++issued_ios_;
    if (flow_ && job_.flow) {
      ++flow_issued_;
      flow_->issued.fetch_add(1, std::memory_order_relaxed);
    }
    if (job_.thinktime.count() > 0) next_issue_ns_ = now + ns(job_.thinktime);
  }
  io.ioprio = io.trim ? prio_.job_ioprio() : prio_.pick(io.write ? kDdirWrite : kDdirRead, io.length);
  // fio stamps an I/O's start after get_io_u has filled its buffer: the
  // fill (verify headers and checksums, fresh contents) is no part of its
  // latency, whatever the engine.
  io.issue_ns = filled ? now_ns() : now;
  io.served_by = -1;
  ++in_flight_;
  if (log_) {
    LoggedIo l;
    l.at_ns = now - start_ns_;
    l.ddir = io.trim ? kDdirTrim : io.write ? kDdirWrite : kDdirRead;
    l.file = file_of(io.offset);
    l.offset = offset_in_file(io.offset);
    l.length = io.length;
    log_->issued(l);
  }
  out_.depth_dist.record_depth(in_flight_, 1);
  if (io.trim) {
    io.submit_ns = io.issue_ns;
    // zonemode=zbd: fio's zbd_do_io_u_trim does a zone reset instead
    // (zbd_place() did it); an emulated zone has nothing to discard.
    inline_done_.emplace_back(&slot, zbd_ ? int(io.length) : port_.trim(target_, io.offset, io.length));
    return;
  }
  unstamped_.push_back(&slot);
  port_.submit(io);
  if (unstamped_.size() >= submit_batch_) commit();
}

// Issues what the job may issue now; a sync due first (fio's get_rw_ddir).
void JobDriver::issue_ready(uint64_t now) {
  while (!free_.empty() && can_issue(now)) {
    if (const auto kind = sync_due()) {
      // fio's engines let the queued I/O complete before a sync (its
      // libaio returns FIO_Q_BUSY): the last completion comes back here.
      if (in_flight_ > 0) return;
      run_sync(*kind);
      continue;
    }
    Slot* s = free_.back();
    free_.pop_back();
    issue(*s, now);
  }
}

uint64_t JobDriver::now_ns() {
  // fio's gtod_reduce: the clock is read every 64th time only (fio's
  // ts_cache), so the per-I/O path does no clock reads.
  if (!job_.gtod_reduce) return backend_.now_ns();
  if ((clock_reads_++ & 63) == 0) cached_now_ = backend_.now_ns();
  return cached_now_;
}

uint64_t JobDriver::pump() {
  const uint64_t now = now_ns();
  if (phase_ == Phase::Waiting) {
    if (now < start_ns_) return start_ns_;
    phase_ = Phase::Running;
  }
  issue_ready(now);
  advance_phase(now);
  drain_inline();
  // Only future times: a past deadline is handled by the completions.
  uint64_t wake = kNever;
  if (phase_ == Phase::Running) {
    if (flow_spin_) return now;
    if (next_issue_ns_ > now) wake = next_issue_ns_;
    if (deadline_ns_ > now) wake = std::min(wake, deadline_ns_);
  }
  return wake;
}

void JobDriver::commit() {
  if (unstamped_.empty()) return;
  backend_.submit();
  out_.depth_dist.record_submit(unsigned(unstamped_.size()));
  const uint64_t now = now_ns();
  // A sync engine's I/O runs inside submit(): fio records no submission
  // latency for them, all of it is completion latency.
  for (Slot* s : unstamped_) s->io.submit_ns = executes_at_submit_ ? s->io.issue_ns : now;
  unstamped_.clear();
}

void JobDriver::record_reap(unsigned completions) {
  if (completions) out_.depth_dist.record_complete(completions);
}

bool JobDriver::cancelled() const {
  return (progress_ && progress_->cancel.load(std::memory_order_relaxed)) ||
         (stop_flag_ && stop_flag_->load(std::memory_order_relaxed));
}

void JobDriver::on_done(TargetIo& io, int result) {
  Slot& slot = *static_cast<Slot*>(io.owner);
  JobDriver& d = *slot.driver;
  if (d.reap_room_ == 0) {  // past this reap's limit: the next reap handles it
    d.parked_.emplace_back(&slot, result);
    return;
  }
  if (d.reap_room_ != ~0u) --d.reap_room_, ++d.reaped_;
  d.complete(slot, result);
}

unsigned JobDriver::begin_reap() {
  reap_room_ = reap_batch_max(job_);
  if (reap_room_ == 0) reap_room_ = 1;
  reaped_ = 0;
  // Parked completions came in after the last reap's clock reading.
  unparking_ = true;
  while (!parked_.empty() && reap_room_ > 0) {
    const auto [slot, result] = parked_.front();
    parked_.pop_front();
    --reap_room_, ++reaped_;
    complete(*slot, result);
  }
  unparking_ = false;
  return reaped_;
}

unsigned JobDriver::end_reap() {
  reap_room_ = ~0u;
  return reaped_;
}

void JobDriver::drain_inline() {
  if (draining_) return;  // the outer call picks up what this one was asked for
  draining_ = true;
  while (!inline_done_.empty()) {
    const auto [slot, result] = inline_done_.front();
    inline_done_.pop_front();
    complete(*slot, result);
  }
  draining_ = false;
}

void JobDriver::complete(Slot& slot, int result) {
  // A trim completes outside any reap: the reap's clock would be stale.
  const uint64_t now = job_.gtod_reduce          ? now_ns()
                       : draining_ || unparking_ ? backend_.now_ns()
                                                 : backend_.batch_now_ns();
  TargetIo& io = slot.io;
  --in_flight_;
  if (slot.zbd_held) {  // fio's zbd_put_io: the zone is free for other jobs again
    zbd_->release(this, io.offset);
    slot.zbd_held = false;
  }
  // An I/O completed before its batch was stamped (inline completion).
  if (io.submit_ns < io.issue_ns) io.submit_ns = io.issue_ns;
  const bool verify_read = slot.verify_read;
  slot.verify_read = false;
  // fill_device: a full filesystem (ENOSPC, EDQUOT, or the short write
  // before them) is how the job is meant to end, as fio's io_u error path
  // ends it: nothing more is issued, the I/O in flight completes, and no
  // error is reported. What a short write wrote counts.
  const bool full = job_.fill_device && io.write && result != int(io.length) &&
                    (result > 0 || result == -ENOSPC || result == -EDQUOT);
  if (full) {
    stop_ = true;
    if (result > 0) io.length = uint32_t(result);
  }
  if (full && result <= 0) {
    // fio counts the write ENOSPC failed as issued ("issued rwts", IOPS,
    // the depth and latency shares), with no bytes and no latency.
    if (now >= stats_start_ns_) ++out_.dir(kDdirWrite).total_ios;
  } else if (result != int(io.length)) {
    if (!out_.error) {
      out_.error = result < 0 ? -result : EIO;
      out_.error_text = std::string(io.trim    ? "trim"
                                    : io.write ? "write"
                                               : "read") +
                        " at offset " + std::to_string(io.offset) + ": " +
                        (result < 0 ? std::strerror(-result) : "short transfer");
    }
    stop_ = true;
  } else {
    if (verify_read) check_read(io);
    if (io.write) note_write(io);
    if (!io.write && !io.trim) ++reads_done_;
    const int ddir = io.trim ? kDdirTrim : io.write ? kDdirWrite : kDdirRead;
    if (now >= stats_start_ns_) {
      DirectionResults& d = out_.dir(ddir);
      d.io_bytes += io.length;
      ++d.total_ios;
      if (!job_.gtod_reduce) {
        if (measures_slat_) d.slat.record(io.submit_ns - io.issue_ns);
        d.clat.record(now - io.submit_ns);
        d.lat.record(now - io.issue_ns);
        out_.latency_dist.record(now - io.submit_ns);
        if (!d.prios.empty()) record_prio_latency(d, io, now);
      }
      if (log_) log_completion(io, ddir, now);
      if (rate_.checks_minimum()) check_rate_minimum(now, ddir);
    }
    // fio's account_io_completion: an I/O over the latency target counts
    // against the window; at depth 1 with percentile 100 it fails the job.
    if (!io.trim && !lat_.completed(now - io.issue_ns, now, now >= stats_start_ns_) && !out_.error) {
      out_.error = ETIMEDOUT;
      out_.error_text = "max latency exceeded";
      stop_ = true;
    }
    if (steady_) {
      steady_->publish(steady_member_, ++ss_ios_, ss_bytes_ += io.length);
      steady_->tick(now);
    }
    if (progress_) {
      progress_->bytes.fetch_add(io.length, std::memory_order_relaxed);
      progress_->ios.fetch_add(1, std::memory_order_relaxed);
      serve_status_if_asked(now);
    }
  }
  // fio thinks after an I/O is issued; a sync engine's I/O is done by then,
  // so the think time runs from its completion.
  if (executes_at_submit_ && job_.thinktime.count() > 0 && phase_ == Phase::Running)
    next_issue_ns_ = now + ns(job_.thinktime);
  free_.push_back(&slot);
  issue_ready(now);
  advance_phase(now);
  drain_inline();
}

// A verifying read completed: its verify blocks are checked (fio's
// verify_io_u), the first failure kept, dumped with verify_dump.
void JobDriver::check_read(TargetIo& io) {
  VerifyResult v{true, {}};
  uint64_t bad_offset = io.offset;
  for_each_interval(io, [&](unsigned char* chunk, uint32_t len, uint64_t offset) {
    v = verify_check(job_.verify, chunk, len, offset, pattern_at(io, chunk));
    bad_offset = offset;
    return v.ok;
  });
  if (!v.ok && job_.verify == VerifyKind::pattern && verify_errors_ == 0) {
    // fio's log_verify_failure line for the block (the "got pattern" words are the reason).
    const size_t file = file_of(io.offset);
    verify_notes_.push_back("pattern: verify failed at file " +
                            (file < file_names_.size() ? file_names_[file] : std::string("null")) +
                            " offset " + std::to_string(offset_in_file(bad_offset)) + ", length " +
                            std::to_string(interval_ ? interval_ : io.length) +
                            " (requested block: offset=" + std::to_string(offset_in_file(io.offset)) +
                            ", length=" + std::to_string(io.length) + ")");
  }
  if (!v.ok && job_.verify_dump)
    dump_failure(io, static_cast<const unsigned char*>(io.buffer) + (bad_offset - io.offset),
                 interval_ ? interval_ : io.length, bad_offset, v);
  if (!v.ok) {
    if (verify_errors_++ == 0) {
      first_verify_error_ =
          "verify: " + std::string(v.reason) + " at offset " + std::to_string(offset_in_file(bad_offset));
      if (io.served_by >= 0) {
        auto members = target_.members();
        if (size_t(io.served_by) < members.size())
          first_verify_error_ += " (read from member " + members[size_t(io.served_by)].path + ")";
      }
    }
    if (job_.verify_fatal) {
      stop_ = true;
      if (!out_.error) {
        out_.error = EILSEQ;
        out_.error_text = first_verify_error_;
      }
    }
  }
}

// A write completed: verify_state_save's last completions, and the written
// log (or the backlog) the verify reads come from.
void JobDriver::note_write(const TargetIo& io) {
  if (saves_state()) {
    last_writes_[file_of(io.offset)].push(offset_in_file(io.offset));
  }
  if (job_.experimental_verify)
    pass_written_ += io.length;  // no log: the verify pass replays the offsets
  else if (verifying_job_ && job_.verify_backlog)
    backlog_.push_back({io.offset, io.length});
  else if (verifying_job_ && job_.do_verify)
    written_.mark(io.offset, io.length);
}

void JobDriver::advance_phase(uint64_t now) {
  if (in_flight_ > 0) return;
  const bool cancelled = this->cancelled();
  const bool out_of_time = now >= deadline_ns_;
  if (phase_ == Phase::Running) {
    const bool over = stop_ || cancelled || out_of_time || steady_reached() || lat_.done() || zbd_eof_ ||
                      seq_eof_ || (issued_bytes_ >= budget_bytes_ && !write_after_trim_) ||
                      (job_.number_ios && issued_ios_ >= job_.number_ios);
    if (!over) return;
    end_phase(now);
    end_syncs();  // fio's do_io ends with them, before any verify pass
    // fio's verify pass: read back every block written and check it; a
    // write pass cut short by the runtime ends the job unverified, as in fio.
    if (verifying_job_ && job_.do_verify && !stop_ && !cancelled && !out_of_time) {
      phase_ = Phase::Verifying;
      verify_phase_start_ns_ = now;
      while (!free_.empty() && can_issue(now)) {
        Slot* s = free_.back();
        free_.pop_back();
        issue(*s, now);
      }
      if (in_flight_ > 0) return;
    } else {
      phase_ = Phase::Done;
      end_ns_ = now;
      return;
    }
  }
  if (phase_ == Phase::Verifying && !can_issue(now)) {
    out_.read.runtime_ns += now - verify_phase_start_ns_;
    // Another write pass while loops or (time based) the runtime remain.
    const bool more = !stop_ && !cancelled && !out_of_time &&
                      (job_.time_based ? deadline_ns_ != kNever : --passes_left_ > 0) &&
                      !(job_.number_ios && issued_ios_ >= job_.number_ios);
    if (!more) {
      phase_ = Phase::Done;
      end_ns_ = now;
      return;
    }
    written_.restart();
    budget_bytes_ = issued_bytes_ + pass_bytes_;
    seq_eof_ = false;
    pass_start_ns_ = now;
    begin_pass();
    phase_ = Phase::Running;
    issue_ready(now);
  }
}

bool JobDriver::zbd_place(Slot& slot, IoRequest& r, bool trim) {
  const int ddir = trim ? kDdirTrim : r.is_write ? kDdirWrite : kDdirRead;
  ZbdZones::Request q;
  q.ddir = ddir;
  q.random = is_random(job_.rw);
  q.read_beyond_wp = job_.read_beyond_wp;
  q.min_bs = ddir == kDdirTrim ? job_.bs_trim : job_.bs[size_t(ddir)];
  q.has_inflight = in_flight_ > 0;
  uint64_t offset = r.offset;
  uint32_t length = r.length;
  bool reset = false;
  const ZbdZones::Verdict v = zbd_->adjust(this, q, offset, length, &reset);
  if (reset) ++out_.zone_resets;
  if (v == ZbdZones::Verdict::accept) {
    r.offset = offset;
    r.length = length;
    slot.zbd_held = !(ddir == kDdirRead && job_.read_beyond_wp);
    return true;
  }
  if (v == ZbdZones::Verdict::eof) {
    zbd_eof_ = true;  // fio's io_u_eof: nothing left this job may do
  } else {
    zbd_pending_ = r;
    zbd_pending_trim_ = trim;
    zbd_wait_ = v;
  }
  return false;
}

// fio's add_clat_sample / add_lat_sample: the I/O's latency under its
// priority (total latency with lat_percentiles, as fio).
void JobDriver::record_prio_latency(DirectionResults& d, const TargetIo& io, uint64_t now) {
  for (auto& p : d.prios)
    if (p.ioprio == io.ioprio) {
      p.lat.record(out_.lat_percentiles ? now - io.issue_ns : now - io.submit_ns);
      return;
    }
}

void JobDriver::log_completion(const TargetIo& io, int ddir, uint64_t now) {
  LoggedIo l;
  l.at_ns = now - start_ns_;
  l.ddir = ddir;
  l.file = file_of(io.offset);
  l.offset = offset_in_file(io.offset);
  l.length = io.length;
  l.slat_ns = io.submit_ns - io.issue_ns;
  l.clat_ns = now - io.submit_ns;
  l.lat_ns = now - io.issue_ns;
  l.ioprio = io.ioprio;
  log_->completed(l);
}

void JobDriver::check_rate_minimum(uint64_t now, int ddir) {
  const DirectionResults& d = out_.dir(ddir);
  std::string why = rate_.check_minimum(now, ddir, d.io_bytes, d.total_ios);
  if (why.empty() || out_.error) return;
  out_.error = EIO;  // fio: td_verror(td, EIO, "check_min_rate")
  out_.error_text = std::move(why);
  stop_ = true;
}

void JobDriver::reset_stats(uint64_t now) {
  // fio's reset_all_stats: the figures restart, the job's runtime with them.
  for (int d = 0; d < 3; ++d) {
    DirectionResults& dr = out_.dir(d);
    auto prios = std::move(dr.prios);
    dr = {};
    for (auto& p : prios) dr.prios.push_back({p.ioprio, {}});
  }
  out_.latency_dist = {};
  out_.depth_dist = {};
  stats_start_ns_ = now;
  pass_start_ns_ = now;
}

void JobDriver::end_phase(uint64_t now) {
  // fio's runtime: from the end of ramp time to the end of the phase; a
  // verifying job's write time is the sum of its write passes.
  const uint64_t from = std::max(pass_start_ns_, stats_start_ns_);
  const uint64_t t = now > from ? now - from : 0;
  if (verifying_job_) {
    out_.write.runtime_ns += t;
    if (does_read(job_.rw)) out_.read.runtime_ns += t;  // a mixed job's own reads
    return;
  }
  if (out_.read.total_ios) out_.read.runtime_ns = t;
  if (out_.write.total_ios) out_.write.runtime_ns = t;
  if (out_.trim.total_ios) out_.trim.runtime_ns = t;
}

void JobDriver::begin_pass() {
  if (!job_.experimental_verify) return;
  replay_.emplace(gen_);
  pass_written_ = replay_issued_ = 0;
  replay_next_.reset();
}

// fio's experimental_verify (do_verify): the pass's offsets again, from
// the generator as it stood when the pass began; its writes become the
// reads, its reads are skipped, until the bytes written are read back.
bool JobDriver::replay_pending() {
  const uint64_t min_bs = std::min(job_.bs[kDdirRead], job_.bs[kDdirWrite]);
  while (!replay_next_ && replay_issued_ + min_bs <= pass_written_) {
    const IoRequest r = replay_->next();
    if (r.eof || !r.length) return false;
    if (r.is_write) replay_next_ = WrittenPiece{r.offset, r.length};
  }
  return replay_next_.has_value();
}

bool JobDriver::verify_pending() {
  if (job_.experimental_verify) return phase_ == Phase::Verifying && replay_pending();
  return job_.verify_backlog ? !backlog_.empty() : written_.pending();
}

WrittenPiece JobDriver::verify_take() {
  if (job_.experimental_verify) {
    const WrittenPiece p = *replay_next_;
    replay_next_.reset();
    replay_issued_ += p.length;
    return p;
  }
  if (!job_.verify_backlog) return written_.take();
  const WrittenPiece piece = backlog_.front();
  backlog_.pop_front();
  return piece;
}

// fio's get_io_u: once verify_backlog written blocks wait, a round of
// verify_batch reads (default verify_backlog) goes before further writes.
bool JobDriver::backlog_read_due() {
  if (!job_.verify_backlog || !verifying_job_ || phase_ != Phase::Running) return false;
  if (!backlog_round_ && backlog_.size() >= job_.verify_backlog)
    backlog_round_ = job_.verify_batch ? job_.verify_batch : job_.verify_backlog;
  return backlog_round_ > 0 && !backlog_.empty();
}

std::optional<SyncKind> JobDriver::sync_due() const {
  if (!last_was_write_ || phase_ != Phase::Running) return std::nullopt;
  auto every = [&](unsigned n) { return n && writes_issued_ % n == 0; };
  if (every(job_.fsync_blocks)) return SyncKind::fsync;
  if (every(job_.fdatasync_blocks)) return SyncKind::fdatasync;
  if (every(job_.sync_file_range_nr)) return SyncKind::sync_file_range;
  return std::nullopt;
}

void JobDriver::run_sync(SyncKind kind) {
  last_was_write_ = false;  // fio's last_ddir_issued: the sync itself
  const uint64_t t0 = backend_.now_ns();
  const int rc = port_.sync(target_, last_write_offset_, kind, job_.sync_file_range_flags);
  const uint64_t t1 = backend_.now_ns();
  if (kind == SyncKind::fsync && t1 >= stats_start_ns_) ++out_.sync_ios, out_.sync_lat.record(t1 - t0);
  if (rc < 0 && !out_.error) {
    out_.error = -rc;
    out_.error_text = std::string(kind == SyncKind::fsync       ? "fsync"
                                  : kind == SyncKind::fdatasync ? "fdatasync"
                                                                : "sync_file_range") +
                      ": " + std::strerror(-rc);
    stop_ = true;
  }
}

void JobDriver::end_syncs() {
  if (!(job_.end_fsync || job_.fsync_on_close) || !(does_write(job_.rw) || does_trim(job_.rw))) return;
  const size_t files = files_.empty() ? 1 : files_.size();
  for (size_t k = 0; k < files; ++k) {
    const int rc = port_.sync(target_, uint64_t(k) << kFileShift, SyncKind::fsync, 0);
    if (rc < 0 && !out_.error) out_.error = -rc, out_.error_text = "fio: end_fsync failed";
  }
}

// fio's verify_save_state at the job's end: writes issued, and each
// file's last iodepth write completions, newest first.
void JobDriver::save_state() {
  VerifyState st;
  st.name = job_.name;
  st.index = job_index_;
  st.depth = job_.iodepth;
  st.nofiles = uint32_t(last_writes_.size());
  st.numberio = writes_issued_;
  for (size_t k = 0; k < last_writes_.size(); ++k)
    for (size_t i = 0; i < last_writes_[k].size(); ++i) st.comps.push_back({k, last_writes_[k].newest(i)});
  if (Status saved = save_verify_state(st); !saved) verify_notes_.push_back(saved.error().message);
}

void JobDriver::finish() {
  if (saves_state()) save_state();
  if (flow_ && job_.flow) {  // fio's flow_exit_job: its count and weight leave the group
    flow_->issued.fetch_sub(flow_issued_, std::memory_order_relaxed);
    flow_->total_weight.fetch_sub(job_.flow, std::memory_order_relaxed);
  }
  if (log_) log_->finish(end_ns_ > start_ns_ ? end_ns_ - start_ns_ : 0);
  log_files(JobLog::FileEvent::close);
  if (lat_.enabled()) out_.iodepth = lat_.depth();  // fio's latency_depth: where the search stood
  out_.job_runtime_ns = (end_ns_ > stats_start_ns_ ? end_ns_ - stats_start_ns_ : 0);
  if (!first_verify_error_.empty() && out_.error_text.empty()) out_.error_text = first_verify_error_;
  if (verify_errors_ && !out_.error) {
    out_.error = EILSEQ;
    out_.error_text = first_verify_error_ + " (" + std::to_string(verify_errors_) + " verify errors)";
  }
  if (progress_ && progress_->status_enabled) serve_status(end_ns_, true);
}

void JobDriver::answer_status() {
  if (progress_ && !finished()) serve_status_if_asked(backend_.now_ns());
}

void JobDriver::serve_status_if_asked(uint64_t now) {
  if (progress_->status_enabled && progress_->status_wanted.load(std::memory_order_relaxed) != status_served_)
    serve_status(now, false);
}

void JobDriver::serve_status(uint64_t now, bool done) {
  status_served_ = progress_->status_wanted.load(std::memory_order_relaxed);
  JobResults copy = out_;
  if (!done) {
    copy.job_runtime_ns = now > stats_start_ns_ ? now - stats_start_ns_ : 0;
    // A write or read phase still running: its time so far (end_phase's
    // figure). A verify pass counts what its passes added so far.
    const uint64_t from = std::max(pass_start_ns_, stats_start_ns_);
    if (phase_ == Phase::Running && !verifying_job_ && now > from)
      for (int d = 0; d < 3; ++d)
        if (copy.dir(d).total_ios) copy.dir(d).runtime_ns = now - from;
  }
  {
    std::lock_guard lock(progress_->status_mutex);
    StatusCopy& slot = progress_->status[job_index_];
    slot.served = status_served_;
    slot.done = done;
    slot.figures = std::move(copy);
  }
  progress_->status_copied.notify_all();
}

void JobDriver::dump_failure(const TargetIo& io, const unsigned char* chunk, uint32_t len, uint64_t offset,
                             const VerifyResult& v) {
  const size_t file = file_of(io.offset);
  const std::string path = file < file_names_.size() ? file_names_[file] : "null";
  const uint64_t at = offset_in_file(offset);
  auto dump = [&](const void* data, const char* type) {
    const std::string name = verify_dump_name(path, at, type);
    if (Status st = write_verify_dump(name, data, len); !st)
      verify_notes_.push_back(st.error().message);
    else
      verify_notes_.push_back(std::string("       ") + type + " data dumped as " + name);
  };
  if (!v.payload) {
    dump(chunk, "hdr_fail");
    return;
  }
  dump(chunk, "received");
  std::vector<unsigned char> expected(len);
  verify_expected(job_.verify, chunk, expected.data(), len, offset, pattern_at(io, chunk));
  dump(expected.data(), "expected");
}

}  // namespace rs::workload
