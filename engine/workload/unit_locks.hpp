// The run-wide locks that keep read-modify-writes of an array's units
// (array_target_port.hpp) from losing bytes.
//
// A write that is not aligned to the array's unit reads the units it
// touches, patches its bytes in, and writes the units back. Another write
// to one of those units landing between that read and that write would be
// undone by it. So a read-modify-write holds its span of units exclusively,
// from before its read until its write completed, against every job of the
// run; a whole-unit write holds its span shared (whole-unit writes among
// themselves need no order, as on a block device).
//
// Whole-unit writes pay nothing until the run's first read-modify-write:
// before it they go past the lock (bypass), each port counting its own in a
// counter on its own cache line. The first read-modify-write raises
// `rmw_seen` and waits until every write that went past has completed
// (Dekker's handshake on the flag and the counters, both sides sequentially
// consistent: a write either sees the flag and takes the lock, or is seen
// counted); from then on every write takes the lock.
//
// Waiting never blocks a thread: a job's thread also completes the I/O of
// the other slots it has in flight (and on the simulator every job shares
// one thread). A request that cannot be granted is queued, and when it is
// granted its callback is posted to its own I/O context. Requests are
// granted in arrival order among those that conflict, so a stream of
// shared writes cannot starve a read-modify-write.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "io/context.hpp"

namespace rs::workload {

class UnitLocks {
 public:
  // One lock request, owned by the I/O slot that makes it (no allocation
  // per I/O). [lo, hi) are array bytes.
  struct Request {
    uint64_t lo = 0, hi = 0;
    bool exclusive = false;
    io::IoContext* context = nullptr;     // where `granted` runs when the request had to wait
    void (*granted)(Request&) = nullptr;  // posted to `context` once a queued request holds the lock
    void* owner = nullptr;                // the slot, for `granted`
    bool held = false;                    // between a grant and release()
  };

  // Per port (I/O context): its count of writes past the lock, alone on
  // its cache line.
  struct alignas(64) Bypass {
    std::atomic<uint64_t> in_flight{0};
  };

  UnitLocks() = default;
  UnitLocks(const UnitLocks&) = delete;
  UnitLocks& operator=(const UnitLocks&) = delete;

  // A port's bypass counter, registered until remove_port().
  Bypass& add_port();
  void remove_port(Bypass& b);

  // Whole-unit writes: true when the write may go past the lock (no
  // read-modify-write yet in this run); it is counted in `b` until
  // end_bypass(). False: take the lock (shared).
  bool try_bypass(Bypass& b) {
    if (rmw_seen_.load(std::memory_order_acquire)) return false;
    b.in_flight.fetch_add(1, std::memory_order_seq_cst);
    if (!rmw_seen_.load(std::memory_order_seq_cst)) return true;
    end_bypass(b);
    return false;
  }
  void end_bypass(Bypass& b) {
    b.in_flight.fetch_sub(1, std::memory_order_seq_cst);
    if (rmw_seen_.load(std::memory_order_seq_cst)) recheck();
  }

  // True: `r` holds the lock now. False: queued; r.granted is posted to
  // r.context when it holds it. An exclusive request raises rmw_seen.
  bool acquire(Request& r);
  // Drops a held request and grants what it was holding back.
  void release(Request& r);

  // For tests and the output: whether the run has read-modify-written.
  bool rmw_seen() const { return rmw_seen_.load(std::memory_order_acquire); }

 private:
  bool conflicts(const Request& r, size_t waiters_before) const;
  bool drained_locked();
  void grant_waiters_locked();
  void recheck();

  std::atomic<bool> rmw_seen_{false};
  std::mutex mutex_;
  bool drained_ = false;  // every write that went past the lock has completed (sticky)
  std::vector<Request*> held_;
  std::vector<Request*> waiting_;  // in arrival order
  std::vector<std::unique_ptr<Bypass>> ports_;
};

}  // namespace rs::workload
