#include "io/sim_backend.hpp"

#include <algorithm>
#include <cerrno>

namespace rs::io {

SimBackend::SimBackend(std::span<DeviceModel* const> members, MemoryStore* store, size_t expected_in_flight)
    : members_(members.begin(), members.end()), store_(store) {
  heap_.reserve(expected_in_flight);
  events_.resize(members_.size());
  sinks_.resize(members_.size());
  in_batch_.assign(members_.size(), 0);
  batch_.reserve(members_.size());
  for (size_t i = 0; i < members_.size(); ++i) {
    events_[i] = dynamic_cast<EventDevice*>(members_[i]);
    sinks_[i].be = this;
    sinks_[i].member = int(i);
  }
}

void SimBackend::push(const Entry& e) {
  heap_.push_back(e);
  std::push_heap(heap_.begin(), heap_.end(), later);
}

void SimBackend::Sink::complete_at(uint64_t token, uint64_t at_ns) {
  auto* io = reinterpret_cast<MemberIo*>(token);
  // A device must not complete in the past; clamp so time never runs back.
  io->due_ns = std::max(be->now_, at_ns);
  be->push({io->due_ns, be->seq_++, io, int(io->length), member});
}

void SimBackend::Sink::wake_at(uint64_t at_ns) {
  be->push({std::max(be->now_, at_ns), be->seq_++, nullptr, 0, member});
}

void SimBackend::queue(MemberIo& io) {
  ++in_flight_;
  const int m =
      io.member >= 0 && size_t(io.member) < members_.size() && members_[size_t(io.member)] ? io.member : -1;
  if (m < 0) {
    io.due_ns = now_;
    push({now_, seq_++, &io, -ENODEV, -1});
    return;
  }
  if (EventDevice* ev = events_[size_t(m)]) {
    ev->arrive(now_, reinterpret_cast<uint64_t>(&io), io.write, io.offset, io.length, sinks_[size_t(m)]);
    if (!in_batch_[size_t(m)]) {
      in_batch_[size_t(m)] = 1;
      batch_.push_back(m);
    }
    return;
  }
  io.due_ns = std::max(now_, members_[size_t(m)]->schedule(now_, io.write, io.offset, io.length));
  push({io.due_ns, seq_++, &io, int(io.length), m});
}

void SimBackend::flush_batch() {
  // Flushing may complete nothing at once but can file events; devices
  // given I/O by those callbacks join the next batch.
  for (size_t i = 0; i < batch_.size(); ++i) {
    const int m = batch_[i];
    in_batch_[size_t(m)] = 0;
    events_[size_t(m)]->flush(now_, sinks_[size_t(m)]);
  }
  batch_.clear();
}

void SimBackend::submit() {
  if (!batch_.empty()) flush_batch();
}

void SimBackend::queue_timer(MemberIo& io, uint64_t delay_ns) {
  ++in_flight_;
  io.due_ns = now_ + delay_ns;
  push({io.due_ns, seq_++, &io, -EAGAIN, -1});
}

unsigned SimBackend::run_top() {
  std::pop_heap(heap_.begin(), heap_.end(), later);
  const Entry e = heap_.back();
  heap_.pop_back();
  now_ = std::max(now_, e.due);
  if (!e.io) {
    events_[size_t(e.member)]->wake(now_, sinks_[size_t(e.member)]);
    return 0;
  }
  MemberIo& io = *e.io;
  --in_flight_;
  if (e.result >= 0) {
    const size_t m = size_t(io.member);
    members_[m]->complete(io.offset, io.length);
    // The device decides its next command before the submitter reacts.
    if (events_[m]) events_[m]->delivered(now_, reinterpret_cast<uint64_t>(&io), sinks_[m]);
    // Bytes land when the emulated disk is done, as they would on a disk.
    if (store_ && io.buffer) {
      if (io.write)
        store_->write(io.member, io.offset, io.buffer, io.length);
      else
        store_->read(io.member, io.offset, io.buffer, io.length);
    }
  }
  io.done(io, e.result);
  return 1;
}

unsigned SimBackend::reap(unsigned min_complete) {
  unsigned n = 0;
  for (;;) {
    // A callback may have queued more I/O: that batch reaches its device
    // before time moves on.
    if (!batch_.empty()) flush_batch();
    if (heap_.empty()) break;
    // Time moves on only for a completion the caller waits for (a wake
    // alone, with nothing in flight, is no reason to advance).
    if (heap_.front().due > now_ && (n >= min_complete || in_flight_ == 0)) break;
    n += run_top();
  }
  return n;
}

unsigned SimBackend::advance_to(uint64_t t_ns) {
  unsigned n = 0;
  for (;;) {
    if (!batch_.empty()) flush_batch();
    if (heap_.empty() || heap_.front().due > t_ns) break;
    n += run_top();
  }
  now_ = std::max(now_, t_ns);
  return n;
}

uint64_t SimBackend::next_completion_ns() {
  if (!batch_.empty()) flush_batch();
  return heap_.empty() ? UINT64_MAX : heap_.front().due;
}

std::string SimBackend::describe() const {
  return "sim (virtual time, " + std::to_string(members_.size()) + " members" +
         (store_ ? ", bytes in memory)" : ")");
}

}  // namespace rs::io
