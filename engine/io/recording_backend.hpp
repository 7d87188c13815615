// A Backend decorator that tells each member device's WriteObserver about
// the writes queued through it: when a write is queued (its bytes as they
// will be written) and when it completes. Reads, timers and members without
// an observer pass straight through. The array wraps its backends in one
// when it was assembled or created with an observer (the power-cut model,
// ordering tests); it costs nothing otherwise, because then it is not there.
//
// Single-threaded like every Backend: the owning context's thread.
#pragma once
#include <memory>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "io/backend.hpp"
#include "io/member_device.hpp"

namespace rs::io {

class RecordingBackend final : public Backend {
 public:
  // `members[i]`: member i's device (null: missing), as the inner backend has them.
  RecordingBackend(std::unique_ptr<Backend> inner, std::span<MemberDevice* const> members);

  void queue(MemberIo& io) override;
  void submit() override { inner_->submit(); }
  void queue_timer(MemberIo& io, uint64_t delay_ns) override { inner_->queue_timer(io, delay_ns); }
  unsigned reap(unsigned min_complete) override { return inner_->reap(min_complete); }
  unsigned reap_until(unsigned min_complete, uint64_t deadline_ns) override {
    return inner_->reap_until(min_complete, deadline_ns);
  }
  void replace_member(int index, MemberDevice* dev) override;
  uint64_t now_ns() override { return inner_->now_ns(); }
  uint64_t batch_now_ns() override { return inner_->batch_now_ns(); }
  unsigned in_flight() const override { return inner_->in_flight(); }
  bool arm_wakeup(int event_fd) override { return inner_->arm_wakeup(event_fd); }
  int register_buffer(void* base, size_t bytes) override { return inner_->register_buffer(base, bytes); }
  void unregister_buffer(int handle) override { inner_->unregister_buffer(handle); }
  std::string describe() const override { return inner_->describe() + ", writes recorded"; }

 private:
  // A recorded write in flight: whom to tell, and the submitter's callback
  // to put back before it runs.
  struct Pending {
    WriteObserver* observer;
    uint64_t id;
    IoDoneFn done;
    void* owner;
  };
  static void write_done(MemberIo& io, int result);

  std::unique_ptr<Backend> inner_;
  std::vector<MemberDevice*> members_;
  std::unordered_map<MemberIo*, Pending> pending_;
};

}  // namespace rs::io
