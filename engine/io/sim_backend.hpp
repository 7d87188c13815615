// The simulator backend: virtual time, no bytes moved (or bytes kept in a
// MemoryStore for tests). Deterministic: the same sequence of calls gives
// the same completions at the same virtual times.
//
// Time starts at 0 and moves only forward, when reap() or advance_to()
// runs an event that is due later than now. Events sit in a min-heap ordered
// by (time, filing order), so events due at the same instant run in the
// order they were filed.
//
// Two kinds of member model:
//  - an EventDevice (event_device.hpp: the block layer every profile's model
//    has in front, an NCQ disk) gets each I/O as it is queued, holds it, and
//    reports its completion time when it decides it; submit() ends the
//    batch (the kernel's plug), and the device is told when each completion
//    it reported is delivered (before the submitter's callback runs) and
//    when a wake it asked for is due;
//  - any other DeviceModel is asked at queue() when the emulated disk is
//    done (DeviceModel::schedule).
// Wakes are internal: reap() does not count them. A reap(1) that runs a wake
// goes on to the next completion even if that is later than a time the
// caller meant to look at (only models that ask for wakes, a block layer
// with requests waiting for tags or split I/O on a disk, can cause this).
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
#include "io/event_device.hpp"
#include "io/memory_store.hpp"

namespace rs::io {

class SimBackend final : public Backend {
 public:
  // `expected_in_flight`: heap capacity reserved now (it grows if exceeded).
  explicit SimBackend(std::span<DeviceModel* const> members, MemoryStore* store = nullptr,
                      size_t expected_in_flight = 4096);

  // Plain models: sets io.due_ns to the completion time. Event devices set
  // it when they decide.
  void queue(MemberIo& io) override;
  // Ends the submission batch: event devices merge and dispatch it. reap(),
  // advance_to() and next_completion_ns() end it too, so a caller that
  // never submits still makes progress.
  void submit() override;
  void queue_timer(MemberIo& io, uint64_t delay_ns) override;
  // Runs every completion due by now; while fewer than `min_complete` ran
  // and some are in flight, advances the clock to the next one and runs it
  // (and any due at that same instant). Returns how many ran; less than
  // `min_complete` only when nothing is left in flight.
  unsigned reap(unsigned min_complete) override;
  uint64_t now_ns() override { return now_; }
  unsigned in_flight() const override { return in_flight_; }
  bool virtual_time() const override { return true; }
  std::string describe() const override;

  // Lets time pass up to `t_ns` (no-op if already later): runs the
  // completions due by then, each at its own time, then sets the clock to
  // t_ns. Returns how many ran.
  unsigned advance_to(uint64_t t_ns);
  // When the next event is due (a completion, a timer or a device's wake);
  // UINT64_MAX when none.
  uint64_t next_completion_ns();
  size_t members() const { return members_.size(); }

 private:
  struct Entry {
    uint64_t due;
    uint64_t seq;  // filing order: a stable tie-break
    MemberIo* io;  // null: a wake of device `member`
    int result;
    int member;
  };
  // Where member i's event device reports.
  struct Sink final : EventSink {
    SimBackend* be = nullptr;
    int member = 0;
    void complete_at(uint64_t token, uint64_t at_ns) override;
    void wake_at(uint64_t at_ns) override;
  };
  // std::*_heap keep the greatest first; "greater" puts the earliest there.
  static bool later(const Entry& a, const Entry& b) { return a.due != b.due ? a.due > b.due : a.seq > b.seq; }
  void push(const Entry& e);
  // Runs the earliest event; returns 1 for a completion or timer, 0 for a wake.
  unsigned run_top();
  void flush_batch();

  std::vector<DeviceModel*> members_;
  std::vector<EventDevice*> events_;  // members_[i] as an event device, or null
  std::vector<Sink> sinks_;
  std::vector<int> batch_;  // event devices given I/O since the last flush
  std::vector<char> in_batch_;
  MemoryStore* store_;
  std::vector<Entry> heap_;
  uint64_t now_ = 0;
  uint64_t seq_ = 0;
  unsigned in_flight_ = 0;
};

}  // namespace rs::io
