#include "telemetry/counter_slots.hpp"

#include <algorithm>

namespace rs::telemetry {

CounterSlot::Reading CounterSlot::read() const {
  Reading r;
  for (;;) {
    const uint64_t before = seq_.load(std::memory_order_acquire);
    // Acquire loads: the sequence count below is read after them.
    constexpr auto kAcquire = std::memory_order_acquire;
    r.reads = reads_.load(kAcquire);
    r.writes = writes_.load(kAcquire);
    r.read_bytes = read_bytes_.load(kAcquire);
    r.write_bytes = write_bytes_.load(kAcquire);
    r.pending_time_ns = pending_time_ns_.load(kAcquire);
    r.last_change_ns = last_change_ns_.load(kAcquire);
    r.nr_pending = nr_pending_.load(kAcquire);
    // Even and unchanged: no write overlapped the reads above.
    if (before % 2 == 0 && seq_.load(kRelaxed) == before) return r;
  }
}

CounterSlot* CounterSlots::acquire() {
  std::lock_guard lock(mutex_);
  if (!free_.empty()) {
    CounterSlot* row = free_.back();
    free_.pop_back();
    return row;
  }
  rows_.push_back(std::make_unique<CounterSlot[]>(width_));
  return rows_.back().get();
}

void CounterSlots::release(CounterSlot* row) {
  std::lock_guard lock(mutex_);
  free_.push_back(row);
}

void CounterSlots::sum(size_t column, MemberCountersSnapshot& into) const {
  std::lock_guard lock(mutex_);
  std::vector<CounterSlot::Reading> readings;
  readings.reserve(rows_.size());
  uint64_t latest = 0;
  for (const auto& row : rows_) {
    readings.push_back(row[column].read());
    latest = std::max(latest, readings.back().last_change_ns);
  }
  // Each row's integral runs to its own last change; carried on to the
  // latest one at the row's depth, the rows' integrals add up.
  uint64_t pending_time = 0;
  uint32_t pending = 0;
  for (const auto& r : readings) {
    into.reads += r.reads;
    into.writes += r.writes;
    into.read_bytes += r.read_bytes;
    into.write_bytes += r.write_bytes;
    pending += r.nr_pending;
    pending_time += r.pending_time_ns;
    if (r.last_change_ns) pending_time += uint64_t(r.nr_pending) * (latest - r.last_change_ns);
  }
  into.nr_pending = pending;
  into.pending_time_ns = pending_time;
  into.last_change_ns = latest;
}

}  // namespace rs::telemetry
