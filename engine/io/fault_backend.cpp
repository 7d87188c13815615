#include "io/fault_backend.hpp"

#include <cstring>

namespace rs::io {

void FaultPlan::add(FaultRule rule) {
  std::lock_guard lock(mutex_);
  rules_.push_back(std::move(rule));
}

void FaultPlan::clear() {
  std::lock_guard lock(mutex_);
  rules_.clear();
}

int FaultPlan::take(const std::string& device, bool write, uint64_t offset, uint64_t length) {
  std::lock_guard lock(mutex_);
  const auto overlaps = [&](const FaultRule& r) {
    return r.times != 0 && r.device == device && offset < r.offset + r.length && r.offset < offset + length;
  };
  for (FaultRule& r : rules_) {
    if (!overlaps(r) || !(write ? r.writes : r.reads)) continue;
    if (r.times > 0) --r.times;
    ++(write ? failed_writes_ : failed_reads_)[device];
    return -r.error;
  }
  if (write)  // the write goes through: the unreadable sectors it covers are remapped
    for (FaultRule& r : rules_)
      if (r.until_written && overlaps(r)) r.times = 0;
  return 0;
}

uint64_t FaultPlan::failed(const std::string& device, bool write) const {
  std::lock_guard lock(mutex_);
  const auto& m = write ? failed_writes_ : failed_reads_;
  auto it = m.find(device);
  return it == m.end() ? 0 : it->second;
}

void FaultBackend::queue(MemberIo& io) {
  MemberDevice* dev = device(io.member);
  FaultPlan* plan = dev ? dev->faults() : nullptr;
  const int error = plan ? plan->take(dev->path(), io.write, io.offset, io.length) : 0;
  if (error == 0) {
    inner_->queue(io);
    return;
  }
  if (!io.write) std::memset(io.buffer, FaultPlan::kPoison, io.length);
  pending_[&io] = {io.done, io.owner, error};
  io.done = &FaultBackend::fault_done;
  io.owner = this;
  // A timer touches no device and completes from reap(), as an error would.
  inner_->queue_timer(io, 0);
}

void FaultBackend::fault_done(MemberIo& io, int result) {
  (void)result;  // the timer's -EAGAIN
  auto* self = static_cast<FaultBackend*>(io.owner);
  auto it = self->pending_.find(&io);
  const Pending p = it->second;
  self->pending_.erase(it);
  io.done = p.done;
  io.owner = p.owner;
  io.done(io, p.error);
}

}  // namespace rs::io
