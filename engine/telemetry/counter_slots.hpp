// Per-writer shares of the member and array counters, summed by readers:
// the kernel's per-CPU disk statistics (part_stat_add / part_stat_read),
// with an I/O context in the place of a CPU.
//
// Every I/O context that submits to an array owns one row of slots (one
// per member, plus one for the array) for as long as it is attached, and
// is the only thread that writes them: a count is a relaxed load and a
// store to a cache line no other thread writes, never a locked
// read-modify-write on a line every context shares. Readers (the sampler,
// snapshots) sum the rows; rows outlive the context that wrote them, so a
// total never drops.
//
// Each slot carries a sequence count (a seqlock with one writer) so a
// reader gets nr_pending, its time integral and the time of its last
// change from one moment: the sum of per-slot integrals is the member's
// integral of nr_pending, exactly.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "telemetry/member_counters.hpp"

namespace rs::telemetry {

class alignas(64) CounterSlot {
 public:
  // One more I/O pending from `now_ns` (same clock as completed()'s).
  void issued(uint64_t now_ns) { change_pending(now_ns, +1); }
  // One I/O done at `now_ns`; `bytes` transferred when it succeeded.
  void completed(uint64_t now_ns, bool write, bool ok, uint64_t bytes) {
    begin();
    account(now_ns);
    nr_pending_.store(nr_pending_.load(kRelaxed) - 1, kPublish);
    if (ok) counted(write, bytes);
    end();
  }
  // A finished transfer with no pending accounting (the array's own counts).
  void count(bool write, uint64_t bytes) {
    begin();
    counted(write, bytes);
    end();
  }

  struct Reading {
    uint64_t reads, writes, read_bytes, write_bytes, pending_time_ns, last_change_ns;
    uint32_t nr_pending;
  };
  Reading read() const;

 private:
  // The writer's data stores are release stores (plain stores on x86): a
  // reader that sees one also sees the odd sequence count before it (no
  // fences, which ThreadSanitizer cannot follow).
  static constexpr auto kRelaxed = std::memory_order_relaxed;
  static constexpr auto kPublish = std::memory_order_release;
  static void add(std::atomic<uint64_t>& a, uint64_t d) { a.store(a.load(kRelaxed) + d, kPublish); }
  void begin() { seq_.store(seq_.load(kRelaxed) + 1, kRelaxed); }
  void end() { seq_.store(seq_.load(kRelaxed) + 1, kPublish); }
  void account(uint64_t now_ns) {
    const uint64_t last = last_change_ns_.load(kRelaxed);
    if (last && now_ns > last) add(pending_time_ns_, uint64_t(nr_pending_.load(kRelaxed)) * (now_ns - last));
    if (now_ns > last) last_change_ns_.store(now_ns, kPublish);
  }
  void change_pending(uint64_t now_ns, int delta) {
    begin();
    account(now_ns);
    nr_pending_.store(uint32_t(int64_t(nr_pending_.load(kRelaxed)) + delta), kPublish);
    end();
  }
  void counted(bool write, uint64_t bytes) {
    add(write ? writes_ : reads_, 1);
    add(write ? write_bytes_ : read_bytes_, bytes);
  }

  std::atomic<uint64_t> seq_{0};  // odd while the writer is between begin() and end()
  std::atomic<uint64_t> reads_{0}, writes_{0}, read_bytes_{0}, write_bytes_{0};
  std::atomic<uint64_t> pending_time_ns_{0}, last_change_ns_{0};
  std::atomic<uint32_t> nr_pending_{0};
};

// Rows of `width` slots, one row per attached writer; a row given back is
// handed to the next writer that attaches (its counts carry on).
class CounterSlots {
 public:
  explicit CounterSlots(size_t width) : width_(width) {}
  size_t width() const { return width_; }
  // A row of width() slots, the caller's alone until release().
  CounterSlot* acquire();
  void release(CounterSlot* row);
  // Column `column` summed over every row, added to `into`: counts and
  // bytes, nr_pending, and its time integral up to the latest change.
  void sum(size_t column, MemberCountersSnapshot& into) const;

 private:
  size_t width_;
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<CounterSlot[]>> rows_;
  std::vector<CounterSlot*> free_;
};

}  // namespace rs::telemetry
