// Per-member counters, written on the I/O path with relaxed atomics and read
// as a snapshot by whoever wants them (CLI, GUI sampler, reports) while I/O
// runs. Readers never take a lock or slow the writers down.
#pragma once
#include <atomic>
#include <cstdint>

namespace rs::telemetry {

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

  MemberCountersSnapshot snapshot() const {
    MemberCountersSnapshot s;
    s.reads = reads.load(std::memory_order_relaxed);
    s.writes = writes.load(std::memory_order_relaxed);
    s.read_bytes = read_bytes.load(std::memory_order_relaxed);
    s.write_bytes = write_bytes.load(std::memory_order_relaxed);
    s.errors = errors.load(std::memory_order_relaxed);
    s.read_errors = read_errors.load(std::memory_order_relaxed);
    s.corrected_errors = corrected_errors.load(std::memory_order_relaxed);
    s.nr_pending = nr_pending.load(std::memory_order_relaxed);
    s.head_position = head_position.load(std::memory_order_relaxed);
    s.pending_time_ns = pending_time_ns.load(std::memory_order_relaxed);
    s.last_change_ns = last_change_ns.load(std::memory_order_relaxed);
    return s;
  }
};

}  // namespace rs::telemetry
