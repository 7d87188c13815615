// The simulator's event-driven view of a device: one that holds commands and
// decides later which to serve (an NCQ disk picking the command whose sector
// comes round first, a block layer waiting for a free tag).
//
// DeviceModel::schedule() must name a completion time the moment a command
// arrives, so a command arriving later can never overtake it; that is all
// the io_uring path can use (it holds a completion back until a time it
// cannot revise). An EventDevice instead reports each completion time when
// it decides it: at the arrival, or at a later touch (an arrival, the
// delivery of an earlier completion, a wake it asked for), always at or
// before the completion itself.
//
// Contract with the backend (SimBackend):
//  - every call carries the backend's clock, which never runs back;
//  - complete_at(token, t) is final, with t >= the time of the call;
//  - delivered(now, token) is called exactly when a reported completion is
//    due (now == t), before the submitter's callback runs: the device
//    decides its next command before the host can react, as a drive does;
//  - a device holding undecided commands must have a reported completion or
//    a wake pending, so that it is touched again (otherwise it would stall).
#pragma once
#include <cstdint>

namespace rs::io {

class EventSink {
 public:
  virtual ~EventSink() = default;
  // Request `token` completes at `at_ns`.
  virtual void complete_at(uint64_t token, uint64_t at_ns) = 0;
  // Touch the device (EventDevice::wake) at `at_ns`.
  virtual void wake_at(uint64_t at_ns) = 0;
};

class EventDevice {
 public:
  virtual ~EventDevice() = default;
  // A request arrives. `token` identifies it in complete_at and delivered.
  virtual void arrive(uint64_t now_ns, uint64_t token, bool write, uint64_t offset, uint32_t length,
                      EventSink& sink) = 0;
  // The requests that arrived since the last flush were one submission
  // batch (the kernel's plug): adjacent ones may be merged now.
  virtual void flush(uint64_t now_ns, EventSink& sink) {
    (void)now_ns;
    (void)sink;
  }
  // The completion reported for `token` is due now.
  virtual void delivered(uint64_t now_ns, uint64_t token, EventSink& sink) = 0;
  // A wake asked for with wake_at is due.
  virtual void wake(uint64_t now_ns, EventSink& sink) {
    (void)now_ns;
    (void)sink;
  }
};

}  // namespace rs::io
