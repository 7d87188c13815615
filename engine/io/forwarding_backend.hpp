// A Backend that passes every call to the backend it wraps and keeps the
// member table it was made with up to date: the base of decorators that
// look at (RecordingBackend) or change (FaultBackend) the member I/O queued
// through them and leave everything else to the real backend.
//
// Single-threaded like every Backend: the owning context's thread.
#pragma once
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "io/backend.hpp"

namespace rs::io {

class ForwardingBackend : public Backend {
 public:
  void queue(MemberIo& io) override { inner_->queue(io); }
  void submit() override { inner_->submit(); }
  void queue_timer(MemberIo& io, uint64_t delay_ns) override { inner_->queue_timer(io, delay_ns); }
  unsigned reap(unsigned min_complete) override { return inner_->reap(min_complete); }
  unsigned reap_until(unsigned min_complete, uint64_t deadline_ns) override {
    return inner_->reap_until(min_complete, deadline_ns);
  }
  void replace_member(int index, MemberDevice* dev) override {
    if (index >= 0 && size_t(index) < members_.size()) members_[size_t(index)] = dev;
    inner_->replace_member(index, dev);
  }
  uint64_t now_ns() override { return inner_->now_ns(); }
  uint64_t batch_now_ns() override { return inner_->batch_now_ns(); }
  unsigned in_flight() const override { return inner_->in_flight(); }
  bool busy() const override { return inner_->busy(); }
  bool arm_wakeup(int event_fd) override { return inner_->arm_wakeup(event_fd); }
  bool queue_recv(MemberIo& io, int fd) override { return inner_->queue_recv(io, fd); }
  int register_buffer(void* base, size_t bytes) override { return inner_->register_buffer(base, bytes); }
  void unregister_buffer(int handle) override { inner_->unregister_buffer(handle); }
  int register_owned_buffer(void* base, size_t bytes, std::shared_ptr<const void> owner) override {
    return inner_->register_owned_buffer(base, bytes, std::move(owner));
  }
  int registered_buffer(const void* p, size_t bytes) const override {
    return inner_->registered_buffer(p, bytes);
  }
  std::string describe() const override { return inner_->describe(); }
  // A failed ring is the inner backend's (backend.hpp).
  int failed_errno() const override { return inner_->failed_errno(); }
  Status failure() const override { return inner_->failure(); }

 protected:
  // `members[i]`: member i's device (null: missing), as the inner backend has them.
  ForwardingBackend(std::unique_ptr<Backend> inner, std::span<MemberDevice* const> members)
      : inner_(std::move(inner)), members_(members.begin(), members.end()) {
    set_members_version(inner_->members_version());
  }
  // The device member `index` of a queued I/O is on (null: none).
  MemberDevice* device(int index) const { return member_device(members_, index); }

  std::unique_ptr<Backend> inner_;

 private:
  std::vector<MemberDevice*> members_;
};

}  // namespace rs::io
