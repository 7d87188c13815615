// The array I/O path through the front: ports and their member tables, the
// write gate (active mark, resync barrier), member I/O accounting, failing
// members and completing array I/O.
#include "raid/array_port.hpp"

#include <cerrno>

#include "raid/array.hpp"

namespace rs::raid {

ArrayPort::ArrayPort(Array& array, io::IoContext& context) : array_(array), context_(context) {
  latency_ = array.latencies().add();
  counters_ = array.counter_slots_->acquire();
  refresh();
}

ArrayPort::~ArrayPort() {
  array_.counter_slots_->release(counters_);
}

void ArrayPort::prepare(ArrayIo& io, uint32_t max_length) {
  io.port = this;
  array_.personality().prepare(io, max_length);
}

void ArrayPort::refresh() {
  if (!tables_.empty() && tables_.back().table->version == array_.table_version()) return;
  const TableRef next = array_.table();
  const MemberTable* prev = tables_.empty() ? nullptr : tables_.back().table.get();
  // Bring the backend's member table (io_uring's registered files) up to
  // date before any I/O uses the new table; I/O in flight keeps the files
  // it was queued with.
  for (int i = 0; i < next->size(); ++i) {
    io::MemberDevice* dev = (*next)[i].dev.get();
    if (!prev || (*prev)[i].dev.get() != dev) backend().replace_member(i, dev);
  }
  if (!tables_.empty() && tables_.back().inflight == 0) tables_.pop_back();
  tables_.push_back({next, 0});
  unit_ = Array::io_unit(array_.personality(), *next).bytes;
  size_bytes_ = array_.size_bytes();
}

void ArrayPort::hold(ArrayIo& io) {
  if (array_.table_version() != tables_.back().table->version) [[unlikely]]
    refresh();
  io.held = &tables_.back();
  ++io.held->inflight;
}

void ArrayPort::release(ArrayIo& io) {
  HeldTable* h = io.held;
  io.held = nullptr;
  if (--h->inflight == 0 && h != &tables_.back()) {
    // No I/O can reach this table's devices any more: let them go.
    for (auto it = tables_.begin(); it != tables_.end(); ++it)
      if (&*it == h) {
        tables_.erase(it);
        break;
      }
  }
}

void ArrayPort::submit(ArrayIo& io) {
  io.port = this;
  io.error = 0;
  io.metadata_epoch = 0;
  io.served_by = -1;
  io.submit_ns = backend().now_ns();
  io.gate_stage = 0;
  io.bitmap_counted = false;
  io.ring_error = 0;
  ++in_flight_;
  hold(io);
  if (context_.failed()) [[unlikely]] {
    // The ring is gone: nothing reaches a member, and no member is to blame.
    io.barrier = ArrayIo::Gate::none;
    array_.report_context_failure(*this);
    io.ring_error = -context_.backend().failed_errno();
    array_.finish_io(io, io.ring_error);
    return;
  }
  // A request off the array's unit or past its end is the submitter's
  // mistake: refused as a block device refuses it, never rounded.
  if (io.length == 0 || io.offset % unit_ || io.length % unit_ || io.offset > size_bytes_ ||
      io.length > size_bytes_ - io.offset) [[unlikely]] {
    io.barrier = ArrayIo::Gate::none;
    array_.finish_io(io, -EINVAL);
    return;
  }
  if (io.write && !array_.enter_write_gate(io)) return;  // parked; comes back through resubmit()
  array_.personality().submit(io);
}

// ---- the front's side ----

const MemberTable& Array::table(const ArrayIo& io) const {
  return *io.held->table;
}

// The gate a write passes before any member sees it, in md's order: the
// array marked active on disk (md_write_start), the resync barrier
// (wait_barrier), the write-intent bitmap's bits on disk
// (md_bitmap_startwrite + unplug). A write parked at a stage comes back
// through resubmit() and goes on from that stage.
bool Array::enter_write_gate(ArrayIo& io) {
  enum : uint8_t { kStart, kActive, kBarrier, kBitmap };
  if (read_only_) {
    io.barrier = ArrayIo::Gate::none;
    finish_io(io, -EROFS);
    return false;
  }
  if (io.gate_stage < kActive) {
    if (!dirty_.load(std::memory_order_acquire)) [[unlikely]] {
      // The write waits for the active mark on the metadata thread, not on
      // its own.
      uint64_t epoch;
      {
        std::lock_guard lock(meta_mutex_);
        if (!dirty_requested_) {
          dirty_requested_ = true;
          dirty_epoch_ = request_sync();
        }
        epoch = dirty_epoch_;
      }
      if (!dirty_.load(std::memory_order_acquire)) {
        io.barrier = ArrayIo::Gate::none;
        ArrayPort* port = io.port;
        metadata_->when_durable(
            epoch, [port, &io] { port->context().post([port, &io] { port->array().resubmit(io); }); });
        return false;
      }
    }
    io.gate_stage = kActive;
  }
  if (io.gate_stage < kBarrier) {
    if (!barrier_.enter(io)) return false;
    io.gate_stage = kBarrier;
  }
  if (bitmap_ && io.gate_stage < kBitmap) {
    if (!bitmap_gate(io)) return false;
    io.gate_stage = kBitmap;
  }
  return true;
}

void Array::resubmit(ArrayIo& io) {
  // Parked for a while: take the member table that is current now.
  io.port->release(io);
  io.port->hold(io);
  if (!enter_write_gate(io)) return;
  personality_->submit(io);
}

void Array::issue(ArrayIo& io, MemberChild& child, int slot) {
  const Member& m = (*io.held->table)[slot];
  child.member = slot;
  child.emulated = m.model.get();
  child.offset = (shape_.data_offset + child.dev_sector) * kSectorBytes;
  child.length = child.sectors * uint32_t(kSectorBytes);
  // The count read balancing sees (md's rdev->nr_pending) is shared; the
  // rest is this context's own.
  runtime(slot).counters.nr_pending.fetch_add(1, std::memory_order_relaxed);
  io.port->counters_[slot].issued(io.port->backend().now_ns());
  child.ring_failed = false;
  io.port->backend().queue(child);
}

bool Array::child_finished(MemberChild& child, int result) {
  auto& c = runtime(child.member).counters;
  ArrayPort& port = *child.parent->port;
  c.nr_pending.fetch_sub(1, std::memory_order_relaxed);
  c.head_position.store(child.dev_sector + child.sectors, std::memory_order_relaxed);
  const bool ok = result == int(child.length);
  port.counters_[child.member].completed(port.backend().batch_now_ns(), child.write, ok, child.length);
  if (!ok && child.ring_failed) [[unlikely]] {
    // Not the member's error: member_failed() leaves the member alone and
    // the request fails with the ring's errno.
    ArrayIo& io = *child.parent;
    if (!io.ring_error) io.ring_error = result < 0 ? result : -EIO;
    report_context_failure(*io.port);
  }
  return ok;
}

void Array::write_torn_by_ring() {
  if (torn_by_ring_.exchange(true)) return;
  events_.record({0, 0, "array", "", "needs resync",
                  "a write failed when its I/O context's ring failed and may have reached some members only; "
                  "the array stays marked unclean, so its next assemble resyncs it"});
  request_sync();
}

void Array::report_context_failure(ArrayPort& port) {
  if (port.failure_reported_) return;
  port.failure_reported_ = true;
  const Status why = port.context().failure();
  events_.record({0, 0, "context", port.context().name(), "failed",
                  (why ? std::string("its ring failed") : why.error().message) +
                      "; the I/O it carried fails with that error, no member is failed for it"});
}

void Array::complete(ArrayIo& io, int result) {
  if (io.write && io.metadata_epoch && metadata_ && metadata_->durable() < io.metadata_epoch) {
    // A member failed under this write: acknowledge it once the failure is
    // recorded on the other members.
    ArrayPort* port = io.port;
    metadata_->when_durable(io.metadata_epoch, [port, &io, result] {
      port->context().post([port, &io, result] { port->array().finish_io(io, result); });
    });
    return;
  }
  finish_io(io, result);
}

void Array::finish_io(ArrayIo& io, int result) {
  ArrayPort& port = *io.port;
  if (io.ring_error && result < 0) [[unlikely]] {
    result = io.ring_error;
    if (io.write) write_torn_by_ring();
  }
  if (io.write) barrier_.leave(io);
  if (io.bitmap_counted) {
    // A write its ring failed may have reached some members only: its bits
    // stay until a resync (md's bitmap_endwrite of a failed write).
    bitmap_->end_write(io.bitmap_lo, io.bitmap_hi, port.backend().batch_now_ns(), io.ring_error != 0);
    io.bitmap_counted = false;
  }
  if (result > 0) {
    port.counters_[shape_.raid_disks].count(io.write, uint64_t(result));
    const uint64_t now = port.backend().batch_now_ns();
    port.latency_->record(now > io.submit_ns ? now - io.submit_ns : 0);
  }
  port.release(io);
  --port.in_flight_;
  io.done(io, result);
}

}  // namespace rs::raid
