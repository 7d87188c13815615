// The simulator backend: virtual time, no bytes moved (or bytes kept in a
// MemoryStore for tests). Deterministic: the same sequence of calls gives
// the same completions at the same virtual times.
//
// Time starts at 0 and moves only forward, when reap() or advance_to()
// runs a completion that is due later than now. queue() asks the member's
// DeviceModel when the emulated disk is done and files the completion in a
// min-heap ordered by (time, queue order), so completions due at the same
// instant run in the order they were queued. submit() has nothing to do.
//
// Several job state machines can share one SimBackend on one thread: a
// driver loop reaps completions and lets think time pass with advance_to(),
// using next_completion_ns() to see which comes first.
//
// Member index i is members[i]; a null model is a missing member whose I/O
// completes with -ENODEV at the next reap, as on the real backend. The
// models and the store must outlive the backend. Single-threaded, like
// every Backend; the heap is reserved up front, so a steady queue depth
// allocates nothing per I/O.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "io/backend.hpp"
#include "io/device_model.hpp"
#include "io/memory_store.hpp"

namespace rs::io {

class SimBackend final : public Backend {
 public:
  // `expected_in_flight`: heap capacity reserved now (it grows if exceeded).
  explicit SimBackend(std::span<DeviceModel* const> members, MemoryStore* store = nullptr,
                      size_t expected_in_flight = 4096);

  // Sets io.due_ns to the completion time.
  void queue(MemberIo& io) override;
  void submit() override {}
  void queue_timer(MemberIo& io, uint64_t delay_ns) override;
  // Runs every completion due by now; while fewer than `min_complete` ran
  // and some are in flight, advances the clock to the next one and runs it
  // (and any due at that same instant). Returns how many ran; less than
  // `min_complete` only when nothing is left in flight.
  unsigned reap(unsigned min_complete) override;
  uint64_t now_ns() override { return now_; }
  unsigned in_flight() const override { return unsigned(heap_.size()); }
  bool virtual_time() const override { return true; }
  std::string describe() const override;

  // Lets time pass up to `t_ns` (no-op if already later): runs the
  // completions due by then, each at its own time, then sets the clock to
  // t_ns. Returns how many ran.
  unsigned advance_to(uint64_t t_ns);
  // When the earliest in-flight I/O completes; UINT64_MAX when none.
  uint64_t next_completion_ns() const { return heap_.empty() ? UINT64_MAX : heap_.front().due; }
  size_t members() const { return members_.size(); }

 private:
  struct Entry {
    uint64_t due;
    uint64_t seq;  // queue order: a stable tie-break
    MemberIo* io;
    int result;
  };
  // std::*_heap keep the greatest first; "greater" puts the earliest there.
  static bool later(const Entry& a, const Entry& b) { return a.due != b.due ? a.due > b.due : a.seq > b.seq; }
  void run_top();

  std::vector<DeviceModel*> members_;
  MemoryStore* store_;
  std::vector<Entry> heap_;
  uint64_t now_ = 0;
  uint64_t seq_ = 0;
};

}  // namespace rs::io
