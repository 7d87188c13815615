// A Backend decorator that fails the way a broken io_uring ring does, on
// demand: for tests of what a context, the array and its clients do when
// one context's ring stops working (backend.hpp: "a backend that can no
// longer drive its ring").
//
// It keeps what is queued until submit(), so "queued but not submitted" is
// a real state here as in a ring's submission queue. fail(err) puts it in
// the failed state at once; fail_after_submits(n, err) at the n-th submit()
// that has I/O to push, before pushing it. Once failed:
//  - the I/O it still holds (the kernel "never took" it) and every I/O
//    queued later completes at the next reap with -err and
//    MemberIo::ring_failed set;
//  - the I/O the inner backend has completes with the inner backend's own
//    result, when the inner backend completes it;
//  - timers still work (they touch no ring).
// Single-threaded like every Backend: the owning context's thread.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "io/backend.hpp"

namespace rs::io {

class RingFaultBackend final : public Backend {
 public:
  explicit RingFaultBackend(std::unique_ptr<Backend> inner) : inner_(std::move(inner)) {}

  // Owning thread (or before the backend is given to a context).
  void fail(int err);
  void fail_after_submits(unsigned submits, int err);
  // I/O completed with the ring's error so far (never reached the inner backend).
  unsigned refused() const { return refused_count_; }

  void queue(MemberIo& io) override;
  void submit() override;
  void queue_timer(MemberIo& io, uint64_t delay_ns) override { inner_->queue_timer(io, delay_ns); }
  unsigned reap(unsigned min_complete) override { return reap_until(min_complete, kNoDeadline); }
  unsigned reap_until(unsigned min_complete, uint64_t deadline_ns) override;
  void replace_member(int index, MemberDevice* dev) override { inner_->replace_member(index, dev); }
  uint64_t now_ns() override { return inner_->now_ns(); }
  uint64_t batch_now_ns() override { return inner_->batch_now_ns(); }
  unsigned in_flight() const override {
    return inner_->in_flight() + unsigned(held_.size() + refused_.size());
  }
  bool arm_wakeup(int event_fd) override { return inner_->arm_wakeup(event_fd); }
  bool virtual_time() const override { return inner_->virtual_time(); }
  std::string describe() const override { return "ring-fault(" + inner_->describe() + ")"; }
  int failed_errno() const override { return err_; }
  Status failure() const override;

 private:
  unsigned deliver_refused();

  std::unique_ptr<Backend> inner_;
  std::vector<MemberIo*> held_;     // queued, not yet submitted to the inner backend
  std::vector<MemberIo*> refused_;  // to complete with -err_ at the next reap
  unsigned submits_left_ = 0;       // fail at the submit that brings this to 0 (0: not armed)
  int armed_err_ = 0;
  int err_ = 0;
  unsigned refused_count_ = 0;
};

}  // namespace rs::io
