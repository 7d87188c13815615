// Per-member counters, written on the I/O path with relaxed atomics and read
// as a snapshot by whoever wants them (CLI, GUI sampler, reports) while I/O
// runs. Readers never slow the writers down.
//
// An array's members count I/O in per-context slots (counter_slots.hpp)
// attached here: snapshot() adds them up. The atomics here are then only
// what every context must see at once (nr_pending and head_position for
// read balancing, as md's rdev->nr_pending and head_position) and the rare
// errors; a plain target counts everything here.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>

namespace rs::telemetry {

class CounterSlots;

struct MemberCountersSnapshot {
  uint64_t reads = 0, writes = 0;
  uint64_t read_bytes = 0, write_bytes = 0;
  uint64_t errors = 0;
  uint64_t read_errors = 0;       // member reads that failed (also counted in errors)
  uint64_t corrected_errors = 0;  // sectors rewritten from a good copy after a read error (md's `errors`)
  uint32_t nr_pending = 0;
  uint64_t head_position = 0;    // sectors
  uint64_t pending_time_ns = 0;  // integral of nr_pending over time up to last_change_ns
  uint64_t last_change_ns = 0;   // when nr_pending last changed (0: never, or not known)

  // The integral up to `now_ns` (same clock as account_pending's): adds the
  // time since the last change at the current depth, so a member whose
  // queue is stuck at 32 shows 32, not 0, until its next completion.
  uint64_t pending_time_at(uint64_t now_ns) const {
    if (last_change_ns == 0 || now_ns <= last_change_ns) return pending_time_ns;
    return pending_time_ns + uint64_t(nr_pending) * (now_ns - last_change_ns);
  }
};

struct MemberCounters {
  std::atomic<uint64_t> reads{0}, writes{0};
  std::atomic<uint64_t> read_bytes{0}, write_bytes{0};
  std::atomic<uint64_t> errors{0};
  std::atomic<uint64_t> read_errors{0}, corrected_errors{0};
  std::atomic<uint32_t> nr_pending{0};
  std::atomic<uint64_t> head_position{0};
  std::atomic<uint64_t> pending_time_ns{0};
  std::atomic<uint64_t> last_change_ns{0};

  // Accumulates nr_pending x elapsed time before nr_pending changes.
  void account_pending(uint64_t now_ns) {
    uint64_t last = last_change_ns.exchange(now_ns, std::memory_order_relaxed);
    if (last && now_ns > last)
      pending_time_ns.fetch_add(uint64_t(nr_pending.load(std::memory_order_relaxed)) * (now_ns - last),
                                std::memory_order_relaxed);
  }

  // From now on reads, writes, bytes, nr_pending and its integral come
  // from column `column` of `slots` (which must outlive this).
  void attach(const CounterSlots* slots, size_t column) {
    slots_ = slots;
    column_ = column;
  }

  MemberCountersSnapshot snapshot() const;

 private:
  const CounterSlots* slots_ = nullptr;
  size_t column_ = 0;
};

}  // namespace rs::telemetry
