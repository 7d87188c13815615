#include "workload/targets.hpp"

#include <algorithm>
#include <cerrno>

#include "io/uring_backend.hpp"

namespace rs::workload {

// ---- ArrayTarget ----

std::unique_ptr<io::Backend> ArrayTarget::make_backend(unsigned depth) {
  return array_.make_backend(depth);
}

namespace {
void array_io_done(raid::ArrayIo& a, int result) {
  auto& t = *static_cast<TargetIo*>(a.owner);
  if (!a.write && !a.children.empty()) t.served_by = a.children[0].member;
  t.done(t, result);
}
}  // namespace

void ArrayTarget::prepare(TargetIo& io, uint32_t max_length) {
  auto a = std::make_shared<raid::ArrayIo>();
  array_.prepare(*a, max_length);
  a->owner = &io;
  a->done = array_io_done;
  io.target_private = a;
}

void ArrayTarget::submit(TargetIo& io, io::Backend& backend) {
  auto& a = *static_cast<raid::ArrayIo*>(io.target_private.get());
  a.write = io.write;
  a.offset = io.offset;
  a.length = io.length;
  a.buffer = io.buffer;
  a.job_id = io.job_id;
  array_.submit(a, backend);
}

std::string ArrayTarget::describe() const {
  const auto& g = array_.geometry();
  std::string s = "raid" + std::to_string(g.level) + " of " + std::to_string(g.raid_disks) + " members";
  if (g.level == 10) s += " (" + g.layout_name() + ", chunk " + std::to_string(g.chunk_sectors / 2) + "K)";
  return s;
}

std::vector<MemberTelemetry> ArrayTarget::members() const {
  std::vector<MemberTelemetry> v;
  for (int i = 0; i < array_.raid_disks(); ++i) {
    const raid::Slot& s = array_.slot(i);
    v.push_back({s.dev ? s.dev->path() : "member" + std::to_string(i), s.counters.snapshot()});
  }
  return v;
}

std::string ArrayTarget::policy() const {
  return std::string(balance::policy_name(array_.policy()));
}

// ---- SimArrayTarget ----

SimArrayTarget::SimArrayTarget(const raid::Geometry& geometry,
                               std::vector<std::shared_ptr<io::DeviceModel>> models)
    : models_(std::move(models)) {
  array_ = raid::Array::simulated(geometry, models_);
  inner_ = std::make_unique<ArrayTarget>(*array_);
  std::vector<io::DeviceModel*> raw;
  for (auto& m : models_) raw.push_back(m.get());
  backend_ = std::make_unique<io::SimBackend>(raw, nullptr, 4096);
}

std::string SimArrayTarget::describe() const {
  return inner_->describe() + ", simulated";
}

// ---- DeviceTarget ----

std::unique_ptr<io::Backend> DeviceTarget::make_backend(unsigned depth) {
  io::MemberDevice* devs[] = {dev_.get()};
  return io::make_real_backend(devs, depth);
}

namespace {
struct DeviceIo : io::MemberIo {
  TargetIo* parent = nullptr;
  telemetry::MemberCounters* counters = nullptr;
  io::Backend* backend = nullptr;
};
void device_io_done(io::MemberIo& m, int result) {
  auto& d = static_cast<DeviceIo&>(m);
  auto& c = *d.counters;
  c.account_pending(d.backend->batch_now_ns());
  c.nr_pending.fetch_sub(1, std::memory_order_relaxed);
  if (result > 0) {
    (d.write ? c.writes : c.reads).fetch_add(1, std::memory_order_relaxed);
    (d.write ? c.write_bytes : c.read_bytes).fetch_add(uint64_t(result), std::memory_order_relaxed);
  }
  d.parent->served_by = 0;
  d.parent->done(*d.parent, result);
}
}  // namespace

void DeviceTarget::prepare(TargetIo& io, uint32_t) {
  auto d = std::make_shared<DeviceIo>();
  d->parent = &io;
  d->counters = &counters_;
  d->member = 0;
  d->done = device_io_done;
  io.target_private = d;
}

void DeviceTarget::submit(TargetIo& io, io::Backend& backend) {
  auto& d = *static_cast<DeviceIo*>(io.target_private.get());
  d.write = io.write;
  d.offset = io.offset;
  d.length = io.length;
  d.buffer = io.buffer;
  d.backend = &backend;
  counters_.account_pending(backend.batch_now_ns());
  counters_.nr_pending.fetch_add(1, std::memory_order_relaxed);
  backend.queue(d);
}

std::string DeviceTarget::describe() const {
  return dev_->path() + (dev_->info().block_device ? " (block device" : " (file") +
         (dev_->info().direct ? ", O_DIRECT)" : ", buffered)");
}

std::vector<MemberTelemetry> DeviceTarget::members() const {
  return {{dev_->path(), counters_.snapshot()}};
}

// ---- NullTarget ----

namespace {
// Completes at the next reap, in queue order: no syscalls, no clock.
class NullBackend final : public io::Backend {
 public:
  explicit NullBackend(unsigned depth) { pending_.reserve(depth * 2); }
  void queue(io::MemberIo& io) override { pending_.push_back(&io); }
  void submit() override {}
  void queue_timer(io::MemberIo& io, uint64_t) override { timers_.push_back(&io); }
  unsigned reap(unsigned) override {
    if (!timers_.empty()) {  // no clock here: a timer is due at the next reap
      auto due = std::move(timers_);
      timers_.clear();
      for (io::MemberIo* io : due) io->done(*io, -EAGAIN);
      return unsigned(due.size());
    }
    // Take the batch out first: callbacks queue the next I/O into pending_.
    const size_t n = std::min<size_t>(pending_.size(), limit_);
    batch_.assign(pending_.begin(), pending_.begin() + std::ptrdiff_t(n));
    pending_.erase(pending_.begin(), pending_.begin() + std::ptrdiff_t(n));
    for (io::MemberIo* io : batch_) io->done(*io, int(io->length));
    return unsigned(n);
  }
  void set_reap_limit(unsigned max_per_reap) override { limit_ = max_per_reap ? max_per_reap : 1; }
  uint64_t now_ns() override { return io::monotonic_ns(); }
  unsigned in_flight() const override { return unsigned(pending_.size() + timers_.size()); }
  std::string describe() const override { return "null"; }

 private:
  std::vector<io::MemberIo*> pending_, batch_, timers_;
  unsigned limit_ = ~0u;
};

struct NullIo : io::MemberIo {
  TargetIo* parent = nullptr;
};
void null_io_done(io::MemberIo& m, int result) {
  auto& n = static_cast<NullIo&>(m);
  n.parent->done(*n.parent, result);
}
}  // namespace

std::unique_ptr<io::Backend> NullTarget::make_backend(unsigned depth) {
  return std::make_unique<NullBackend>(depth);
}

void NullTarget::prepare(TargetIo& io, uint32_t) {
  auto n = std::make_shared<NullIo>();
  n->parent = &io;
  n->done = null_io_done;
  io.target_private = n;
}

void NullTarget::submit(TargetIo& io, io::Backend& backend) {
  auto& n = *static_cast<NullIo*>(io.target_private.get());
  n.length = io.length;
  backend.queue(n);
}

}  // namespace rs::workload
