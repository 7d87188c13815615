#include "io/sim_backend.hpp"

#include <algorithm>
#include <cerrno>

namespace rs::io {

SimBackend::SimBackend(std::span<DeviceModel* const> members, MemoryStore* store, size_t expected_in_flight)
    : members_(members.begin(), members.end()), store_(store) {
  heap_.reserve(expected_in_flight);
}

void SimBackend::queue(MemberIo& io) {
  DeviceModel* m =
      io.member >= 0 && size_t(io.member) < members_.size() ? members_[size_t(io.member)] : nullptr;
  Entry e{now_, seq_++, &io, -ENODEV};
  if (m) {
    // A model must not complete in the past; clamp so time never runs back.
    e.due = std::max(now_, m->schedule(now_, io.write, io.offset, io.length));
    e.result = int(io.length);
  }
  io.due_ns = e.due;
  heap_.push_back(e);
  std::push_heap(heap_.begin(), heap_.end(), later);
}

void SimBackend::queue_timer(MemberIo& io, uint64_t delay_ns) {
  io.due_ns = now_ + delay_ns;
  heap_.push_back({io.due_ns, seq_++, &io, -EAGAIN});
  std::push_heap(heap_.begin(), heap_.end(), later);
}

void SimBackend::run_top() {
  std::pop_heap(heap_.begin(), heap_.end(), later);
  const Entry e = heap_.back();
  heap_.pop_back();
  now_ = std::max(now_, e.due);
  MemberIo& io = *e.io;
  if (e.result >= 0) {
    members_[size_t(io.member)]->complete(io.offset, io.length);
    // Bytes land when the emulated disk is done, as they would on a disk.
    if (store_ && io.buffer) {
      if (io.write)
        store_->write(io.member, io.offset, io.buffer, io.length);
      else
        store_->read(io.member, io.offset, io.buffer, io.length);
    }
  }
  io.done(io, e.result);
}

unsigned SimBackend::reap(unsigned min_complete) {
  unsigned n = 0;
  while (!heap_.empty()) {
    // The callback may queue more I/O, so look at the top afresh each time.
    if (heap_.front().due > now_ && n >= min_complete) break;
    run_top();
    ++n;
  }
  return n;
}

unsigned SimBackend::advance_to(uint64_t t_ns) {
  unsigned n = 0;
  while (!heap_.empty() && heap_.front().due <= t_ns) {
    run_top();
    ++n;
  }
  now_ = std::max(now_, t_ns);
  return n;
}

std::string SimBackend::describe() const {
  return "sim (virtual time, " + std::to_string(members_.size()) + " members" +
         (store_ ? ", bytes in memory)" : ")");
}

}  // namespace rs::io
