#include "workload/targets.hpp"

#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <sys/ioctl.h>

#include <algorithm>
#include <cerrno>

#include "balance/policy.hpp"
#include "io/uring_backend.hpp"
#include "levels/levels.hpp"
#include "workload/aio_engine.hpp"
#include "workload/array_target_port.hpp"
#include "workload/discard.hpp"
#include "workload/posix_aio_engine.hpp"
#include "workload/sync_engines.hpp"

namespace rs::workload {

// ---- every target ----

namespace {
// A queued engine that runs on another path (libaio and posixaio on an
// array, whose member I/O is RaidScope's own, or where Linux AIO or POSIX
// AIO is not available): the path that ran, said so.
std::string queued_engine_label(IoEngine e, const std::string& backend) {
  if (e == IoEngine::posixaio)
    return "posixaio, run on " + backend + " (queue depth as written, one I/O in flight per file, as glibc)";
  if (e == IoEngine::libaio) return "libaio, run on " + backend + " (same queue depth and batching)";
  return backend;
}
}  // namespace

int Target::trim(uint64_t, uint32_t) {
  return -EOPNOTSUPP;
}

int Target::sync(uint64_t, SyncKind, unsigned) {
  return -EOPNOTSUPP;
}

int DeviceTarget::trim(uint64_t offset, uint32_t length) {
  return discard_range(*dev_, offset, length);
}

void DeviceTarget::drop_cache(uint64_t offset, uint64_t length) {
  ::posix_fadvise(dev_->fd(), off_t(offset), off_t(length), POSIX_FADV_DONTNEED);
}

std::string DeviceTarget::trim_method() const {
  return discard_method(*dev_);
}

Status open_engine(const JobOptions& job, const std::vector<io::MemberDevice*>& devs, bool direct, JobIo& j) {
  if (is_sync_engine(job.ioengine)) {
    auto sync = SyncEngineBackend::make(job.ioengine, devs, does_write(job.rw), is_random(job.rw));
    if (!sync) return sync.take_error();
    j.backend = std::move(*sync);
    j.engine = describe_sync_engine(job.ioengine);
  } else {
    std::string why_not_aio;
    if (job.ioengine == IoEngine::posixaio) {
      auto aio = PosixAioBackend::make(devs, job.iodepth, reap_batch_max(job));
      if (aio) {
        j.engine = (*aio)->describe();
        j.backend = std::move(*aio);
        return {};
      }
      why_not_aio = aio.error().message;
      j.one_in_flight_per_file = true;  // glibc's rule, kept by the job's port
    }
    if (job.ioengine == IoEngine::libaio) {
      auto aio = AioBackend::make(devs, job.iodepth, reap_batch_max(job));
      if (aio) {
        j.engine = (*aio)->describe();
        // Linux AIO is asynchronous only with O_DIRECT: on a buffered file
        // io_submit does each I/O before it returns, for fio as for us.
        if (!direct) j.engine += "; on a buffered file each I/O is done inside io_submit";
        j.backend = std::move(*aio);
        return {};
      }
      why_not_aio = aio.error().message;
    }
    auto real = io::make_real_backend(devs, job.iodepth);
    const std::string fallback = std::move(real.fallback_note);
    j.backend = std::move(real.backend);
    j.engine = queued_engine_label(job.ioengine, j.backend->describe());
    if (!why_not_aio.empty())
      j.engine += std::string(job.ioengine == IoEngine::posixaio ? " (POSIX AIO: " : " (Linux AIO: ") +
                  why_not_aio + ")";
    if (!fallback.empty()) j.engine += ": " + fallback;
  }
  return {};
}

Result<JobIo> Target::open_job_io(const JobOptions& job, unsigned) {
  JobIo j;
  const bool sync = is_sync_engine(job.ioengine);
  j.backend = make_backend(sync ? 1 : job.iodepth);
  const std::string path = j.backend ? j.backend->describe() : "io_uring";
  j.engine = sync ? std::string(to_string(job.ioengine)) + ", one I/O at a time through the array's " + path +
                        " path (the array is RaidScope's own I/O path, not a system call)"
                  : queued_engine_label(job.ioengine, path);
  j.io_mode = "direct (the array has no page cache; its members are opened with O_DIRECT)";
  j.one_in_flight_per_file = job.ioengine == IoEngine::posixaio;  // the array is one file to glibc
  return j;
}

// ---- ArrayTarget ----

ArrayTarget::ArrayTarget(raid::Array& array)
    : array_(array), unit_(array_unit_bytes(array)), locks_(std::make_unique<UnitLocks>()) {}

ArrayTarget::~ArrayTarget() = default;

std::unique_ptr<TargetPort> ArrayTarget::open_port(io::IoContext& context) {
  return make_array_target_port(array_, context, *locks_, unit_, false);
}

Result<JobIo> ArrayTarget::open_job_io(const JobOptions& job, unsigned clone) {
  auto opened = Target::open_job_io(job, clone);
  if (!opened) return opened;
  JobIo j = std::move(*opened);
  j.direct = job.direct;
  const std::string unit = std::to_string(unit_) + "-byte unit";
  j.io_mode = job.direct
                  ? "direct (the array has no page cache; its members are opened with O_DIRECT; I/O off "
                    "the array's " +
                        unit + " fails with EINVAL, as O_DIRECT)"
                  : "direct (the array has no page cache; its members are opened with O_DIRECT; I/O off "
                    "the array's " +
                        unit + " is read-modify-written in whole units)";
  return j;
}

std::unique_ptr<TargetPort> ArrayTarget::open_job_port(io::IoContext& context, const JobIo& jio) {
  return make_array_target_port(array_, context, *locks_, unit_, jio.direct);
}

std::string ArrayTarget::alignment_hint() const {
  return "; the array's unit is " + describe_array_unit(array_) +
         ": O_DIRECT on a block device fails I/O off its unit with EINVAL; without direct=1 (fio's default) "
         "such I/O is read-modify-written in whole units";
}

std::string ArrayTarget::describe() const {
  return std::string(array_.level().name) + " of " + std::to_string(array_.raid_disks()) + " members (" +
         array_.personality().describe() + ")";
}

std::vector<MemberTelemetry> ArrayTarget::members() const {
  std::vector<MemberTelemetry> v;
  for (auto& m : array_.read_members()) v.push_back({m.name, m.counters});
  return v;
}

std::string ArrayTarget::policy() const {
  auto p = const_cast<raid::Array&>(array_).tunables().get(balance::kReadPolicy.name);
  return p ? *p : "";
}

// ---- SimArrayTarget ----

Result<std::unique_ptr<SimArrayTarget>> SimArrayTarget::make(
    const raid::Shape& shape, std::vector<std::shared_ptr<io::DeviceModel>> models,
    uint32_t bitmap_chunk_bytes) {
  auto t = std::unique_ptr<SimArrayTarget>(new SimArrayTarget());
  t->models_ = std::move(models);
  auto arr = raid::Array::simulated(levels::builtin(), shape, t->models_, bitmap_chunk_bytes);
  if (!arr) return arr.take_error();
  t->array_ = std::move(*arr);
  t->inner_ = std::make_unique<ArrayTarget>(*t->array_);
  std::vector<io::DeviceModel*> raw;
  for (auto& m : t->models_) raw.push_back(m.get());
  auto sim = std::make_unique<io::SimBackend>(raw, nullptr, 4096);
  t->sim_ = sim.get();
  t->context_ = std::make_unique<io::IoContext>(std::move(sim), "sim");
  t->array_->attach_bitmap_context(*t->context_);
  return t;
}

// The bitmap's daemon timer and port live on the context: stop them before
// the context completes what is still queued on its backend.
SimArrayTarget::~SimArrayTarget() {
  if (array_) array_->detach_bitmap_context();
}

std::string SimArrayTarget::describe() const {
  return inner_->describe() + ", simulated";
}

// ---- DeviceTarget ----

std::unique_ptr<io::Backend> DeviceTarget::make_backend(unsigned depth) {
  io::MemberDevice* devs[] = {dev_.get()};
  return io::make_real_backend(devs, depth).backend;
}

namespace {
struct DeviceIo : io::MemberIo {
  TargetIo* parent = nullptr;
};
}  // namespace

class DevicePort final : public TargetPort {
 public:
  DevicePort(DeviceTarget& t, io::IoContext& c) : target_(t), context_(c), latency_(t.latencies_.add()) {}
  void prepare(TargetIo& io, uint32_t) override {
    auto d = std::make_shared<DeviceIo>();
    d->parent = &io;
    d->member = 0;
    d->owner = this;
    d->done = &DevicePort::done;
    io.target_private = d;
  }
  void submit(TargetIo& io) override {
    auto& d = *static_cast<DeviceIo*>(io.target_private.get());
    d.write = io.write;
    d.offset = io.offset;
    d.length = io.length;
    d.buffer = io.buffer;
    d.ioprio = io.ioprio;
    auto& c = target_.counters_;
    c.account_pending(io.issue_ns);
    c.nr_pending.fetch_add(1, std::memory_order_relaxed);
    backend().queue(d);
  }
  io::IoContext& context() override { return context_; }

 private:
  static void done(io::MemberIo& m, int result) {
    auto& d = static_cast<DeviceIo&>(m);
    auto& port = *static_cast<DevicePort*>(d.owner);
    auto& c = port.target_.counters_;
    const uint64_t now = port.backend().batch_now_ns();
    c.account_pending(now);
    c.nr_pending.fetch_sub(1, std::memory_order_relaxed);
    if (result > 0) {
      (d.write ? c.writes : c.reads).fetch_add(1, std::memory_order_relaxed);
      (d.write ? c.write_bytes : c.read_bytes).fetch_add(uint64_t(result), std::memory_order_relaxed);
      port.latency_->record(now > d.parent->issue_ns ? now - d.parent->issue_ns : 0);
    }
    d.parent->served_by = 0;
    d.parent->done(*d.parent, result);
  }
  DeviceTarget& target_;
  io::IoContext& context_;
  std::shared_ptr<telemetry::LiveHistogram> latency_;
};

std::unique_ptr<TargetPort> DeviceTarget::open_port(io::IoContext& context) {
  return std::make_unique<DevicePort>(*this, context);
}

std::string DeviceTarget::describe() const {
  return dev_->path() + (dev_->info().block_device ? " (block device)" : " (file)");
}

Result<JobIo> DeviceTarget::open_job_io(const JobOptions& job, unsigned) {
  JobIo j;
  // The filesystem may refuse O_DIRECT (tmpfs): then the job runs buffered
  // and says so.
  const bool direct = job.direct && dev_->info().direct;
  auto reopened = dev_->reopen(direct);
  if (!reopened) return reopened.take_error();
  auto dev = std::shared_ptr<io::MemberDevice>(std::move(*reopened));
  // fio at job start (filesetup.c, ioengines.c): drop the region's cached
  // pages (invalidate=1; for a block device fio's BLKFLSBUF needs root and
  // fio only warns without it: the fadvise is tried the same way) and give
  // the access hint (fadvise_hint=1).
  if (job.invalidate) ::posix_fadvise(dev->fd(), off_t(job.offset), off_t(job.size), POSIX_FADV_DONTNEED);
  if (job.fadvise_hint)
    ::posix_fadvise(dev->fd(), 0, 0, is_random(job.rw) ? POSIX_FADV_RANDOM : POSIX_FADV_SEQUENTIAL);
  j.io_mode = direct       ? "direct (O_DIRECT)"
              : job.direct ? "buffered (page cache): " + dev_->info().direct_note
                           : "buffered (page cache)";
  if (Status st = open_engine(job, {dev.get()}, direct, j); !st) return st.error();
  j.keep = dev;
  j.file_paths = {dev_->path()};
  return j;
}

std::vector<MemberTelemetry> DeviceTarget::members() const {
  return {{dev_->path(), counters_.snapshot()}};
}

std::vector<telemetry::TelemetrySource::MemberReading> DeviceTarget::read_members() const {
  return {{dev_->path(), "active sync", counters_.snapshot()}};
}

// ---- NullTarget ----

namespace {
// fio's null engine: an I/O completes when it is submitted (fio's commit),
// is handed back at the next reap, and while completions wait to be
// reaped the backend is busy (fio's FIO_Q_BUSY): a job keeps at most one
// submitted batch, so its latency is its own submit/complete cost (tens of
// nanoseconds, as fio's), not a wait behind iodepth I/Os. No syscalls.
class NullBackend final : public io::Backend {
 public:
  explicit NullBackend(unsigned depth) {
    queued_.reserve(depth);
    events_.reserve(depth);
    batch_.reserve(depth);
  }
  void queue(io::MemberIo& io) override { queued_.push_back(&io); }
  void submit() override { commit(); }
  void queue_timer(io::MemberIo& io, uint64_t) override { timers_.push_back(&io); }
  unsigned reap(unsigned min_complete) override {
    // One clock reading for the batch, before its callbacks (as a ring's
    // reap): what a callback costs is not the completion's latency.
    batch_now_ = io::monotonic_ns();
    if (!timers_.empty()) {  // a timer is due at the next reap
      auto due = std::move(timers_);
      timers_.clear();
      for (io::MemberIo* io : due) io->done(*io, -EAGAIN);
      return unsigned(due.size());
    }
    // A reap that must wait submits first, as a ring's does.
    if (events_.empty() && min_complete > 0) commit();
    // Take the batch out first: callbacks queue (and submit) the next I/O.
    batch_.swap(events_);
    events_.clear();
    const size_t n = batch_.size();
    for (io::MemberIo* io : batch_) io->done(*io, int(io->length));
    batch_.clear();
    return unsigned(n);
  }
  uint64_t now_ns() override { return io::monotonic_ns(); }
  uint64_t batch_now_ns() override { return batch_now_; }
  unsigned in_flight() const override { return unsigned(queued_.size() + events_.size() + timers_.size()); }
  bool busy() const override { return !events_.empty(); }
  std::string describe() const override { return "null"; }

 private:
  void commit() {
    events_.insert(events_.end(), queued_.begin(), queued_.end());
    queued_.clear();
  }
  std::vector<io::MemberIo*> queued_, events_, batch_, timers_;
  uint64_t batch_now_ = 0;
};

struct NullIo : io::MemberIo {
  TargetIo* parent = nullptr;
};
}  // namespace

class NullPort final : public TargetPort {
 public:
  NullPort(NullTarget& t, io::IoContext& c) : target_(t), context_(c) {}
  void prepare(TargetIo& io, uint32_t) override {
    auto n = std::make_shared<NullIo>();
    n->parent = &io;
    n->owner = this;
    n->done = &NullPort::done;
    io.target_private = n;
  }
  void submit(TargetIo& io) override {
    auto& n = *static_cast<NullIo*>(io.target_private.get());
    n.write = io.write;
    n.length = io.length;
    backend().queue(n);
  }
  io::IoContext& context() override { return context_; }

 private:
  static void done(io::MemberIo& m, int result) {
    auto& n = static_cast<NullIo&>(m);
    auto& c = static_cast<NullPort*>(n.owner)->target_.counters_;
    (n.write ? c.writes : c.reads).fetch_add(1, std::memory_order_relaxed);
    (n.write ? c.write_bytes : c.read_bytes).fetch_add(n.length, std::memory_order_relaxed);
    n.parent->done(*n.parent, result);
  }
  NullTarget& target_;
  io::IoContext& context_;
};

Result<JobIo> NullTarget::open_job_io(const JobOptions& job, unsigned) {
  JobIo j;
  j.backend = make_backend(job.iodepth);
  j.engine = "null (no I/O)";
  j.io_mode = "none";
  return j;
}

std::unique_ptr<io::Backend> NullTarget::make_backend(unsigned depth) {
  return std::make_unique<NullBackend>(depth);
}

std::unique_ptr<TargetPort> NullTarget::open_port(io::IoContext& context) {
  return std::make_unique<NullPort>(*this, context);
}

}  // namespace rs::workload
