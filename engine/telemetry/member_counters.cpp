#include "telemetry/member_counters.hpp"

#include "telemetry/counter_slots.hpp"

namespace rs::telemetry {

MemberCountersSnapshot MemberCounters::snapshot() const {
  MemberCountersSnapshot s;
  s.errors = errors.load(std::memory_order_relaxed);
  s.read_errors = read_errors.load(std::memory_order_relaxed);
  s.corrected_errors = corrected_errors.load(std::memory_order_relaxed);
  s.head_position = head_position.load(std::memory_order_relaxed);
  if (slots_) {
    slots_->sum(column_, s);
    return s;
  }
  s.reads = reads.load(std::memory_order_relaxed);
  s.writes = writes.load(std::memory_order_relaxed);
  s.read_bytes = read_bytes.load(std::memory_order_relaxed);
  s.write_bytes = write_bytes.load(std::memory_order_relaxed);
  s.nr_pending = nr_pending.load(std::memory_order_relaxed);
  s.pending_time_ns = pending_time_ns.load(std::memory_order_relaxed);
  s.last_change_ns = last_change_ns.load(std::memory_order_relaxed);
  return s;
}

}  // namespace rs::telemetry
