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

#include "io/forwarding_backend.hpp"
#include "io/member_device.hpp"

namespace rs::io {

class RecordingBackend final : public ForwardingBackend {
 public:
  // `members[i]`: member i's device (null: missing), as the inner backend has them.
  RecordingBackend(std::unique_ptr<Backend> inner, std::span<MemberDevice* const> members)
      : ForwardingBackend(std::move(inner), members) {}

  void queue(MemberIo& io) override;
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

  std::unordered_map<MemberIo*, Pending> pending_;
};

}  // namespace rs::io
