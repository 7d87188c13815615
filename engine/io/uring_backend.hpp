// The real backend: member I/O through one io_uring ring per submitting
// context. Member files are registered (fixed files); submissions are
// batched (queue() fills SQEs, submit() is one syscall); completions are
// reaped in batches with the clock read once per batch, and a reap that has
// to wait submits and waits in one syscall.
//
// When a member has a DeviceModel, its completions are held back until the
// model's completion time, so members sharing one host disk behave like
// independent emulated disks.
//
// A wait in the kernel that fails (not EINTR, ETIME, EAGAIN or EBUSY) fails
// the backend as backend.hpp says: the submissions still in the ring's
// submission queue (the kernel never took them) complete with the errno,
// later I/O is refused with it, and what the kernel took is reaped as it
// completes, with GETEVENTS-only enters that submit nothing.
#pragma once
#include <liburing.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "io/backend.hpp"
#include "io/clock.hpp"
#include "io/member_device.hpp"

namespace rs::io {

class UringBackend final : public Backend {
 public:
  // `members[i]` may be null (a missing member): I/O to it fails with -ENODEV.
  // Errc::unsupported with a plain message when io_uring is unusable here.
  static Result<std::unique_ptr<UringBackend>> create(std::span<MemberDevice* const> members, unsigned depth);
  ~UringBackend() override;

  void queue(MemberIo& io) override;
  void submit() override;
  void queue_timer(MemberIo& io, uint64_t delay_ns) override;
  unsigned reap(unsigned min_complete) override;
  void replace_member(int index, MemberDevice* dev) override;
  uint64_t now_ns() override { return monotonic_ns(); }
  uint64_t batch_now_ns() override { return batch_now_; }
  unsigned in_flight() const override { return in_flight_; }
  std::string describe() const override;
  // The eventfd must be blocking: a read of a non-blocking file in io_uring
  // fails with -EAGAIN instead of waiting for data.
  bool arm_wakeup(int event_fd) override;
  unsigned reap_until(unsigned min_complete, uint64_t deadline_ns) override;
  bool queue_recv(MemberIo& io, int fd) override;  // in uring_socket.cpp
  int register_buffer(void* base, size_t bytes) override;
  void unregister_buffer(int handle) override;
  int register_owned_buffer(void* base, size_t bytes, std::shared_ptr<const void> owner) override;
  int registered_buffer(const void* p, size_t bytes) const override {
    return fixed_buffer_index(p, uint32_t(std::min<size_t>(bytes, UINT32_MAX)));
  }
  // I/Os queued as READ_FIXED / WRITE_FIXED (into a registered buffer).
  uint64_t fixed_ios() const { return fixed_ios_; }
  int failed_errno() const override { return failed_errno_; }
  Status failure() const override;
  // For tests: the next wait in the kernel fails with `err` as if
  // io_uring_enter had returned it (the syscall is not made).
  void inject_enter_error(int err) { injected_errno_ = err; }
  // io_uring_enter calls made so far, and the submissions queued for them.
  uint64_t enters() const { return enters_; }
  uint64_t submitted() const { return submitted_; }
  // The ring's fd is registered (enters skip the fd lookup).
  bool ring_fd_registered() const { return ring_fd_registered_; }

 private:
  explicit UringBackend(std::span<MemberDevice* const> members) : members_(members.begin(), members.end()) {}
  // io_uring_queue_init with the cheapest setup flags the kernel takes;
  // 0 or -errno.
  int setup(unsigned depth);
  struct Held {  // a completion waiting for its emulated disk
    uint64_t due_ns;
    MemberIo* io;
    int result;
    bool operator>(const Held& o) const { return due_ns > o.due_ns; }
  };
  void deliver(MemberIo& io, int result);
  // Runs up to `limit` completions the kernel has already posted (and held
  // ones now due); no syscall.
  unsigned collect(unsigned limit);
  unsigned release_due(uint64_t now, unsigned limit);
  // reap() and reap_until(); `idle_wait`: with nothing in flight, wait for
  // the wakeup (or the deadline) when one is armed.
  unsigned reap_impl(unsigned min_complete, uint64_t deadline_ns, bool idle_wait);
  unsigned drain_cqes(uint64_t now, unsigned limit);
  // Submits what is queued and has the kernel post finished completions;
  // with `wait`, blocks until one is posted, a held one is due or
  // `deadline_ns` passes. After a failure: only posts completions.
  void enter_kernel(bool wait, uint64_t deadline_ns);
  // The ring failed with `err` in `call`: the backend fails (backend.hpp).
  void ring_failed(int err, const char* call);
  // Completes every submission still in the submission queue with -err
  // and takes them out of it: the kernel never saw them.
  void reclaim_unsubmitted(int err);
  // Completes `io` at the next reap with -err, as a failure of the ring.
  void refuse(MemberIo& io, int err);
  io_uring_sqe* next_sqe();
  void flush();  // submits what is queued (with GETEVENTS under deferred task run)
  void queue_wakeup_read();
  // Cancels the wakeup read and waits for it: the kernel must not write
  // into wakeup_value_ once the backend is gone.
  void disarm_wakeup();
  void hold(MemberIo& io, uint64_t due_ns, int result);
  void count_enter(int rc) {
    ++enters_;
    if (rc >= 0) submitted_ += unsubmitted_;
  }
  // The registered buffer holding all of [p, p + length), or -1.
  int fixed_buffer_index(const void* p, uint32_t length) const {
    const auto b = reinterpret_cast<uintptr_t>(p);
    for (const BufferRegion& r : buffers_)
      if (b >= r.begin && b + length <= r.end) return r.index;
    return -1;
  }

  struct BufferRegion {
    uintptr_t begin, end;
    int index;                          // in the ring's buffer table
    std::shared_ptr<const void> owner;  // keeps the memory mapped while registered (may be null)
  };
  // The table is registered sparse on first use; a few jobs share a ring at
  // most, each with one region.
  static constexpr unsigned kBufferTableSize = 16;
  enum class BufferTable { untried, registered, unavailable };
  BufferTable buffer_table_ = BufferTable::untried;
  std::vector<BufferRegion> buffers_;
  // The smallest size the kernel refused to register (RLIMIT_MEMLOCK counts
  // every ring's pinned pages): no size from there up is asked again, so a
  // caller that tries per batch does not pay a refused syscall each time.
  size_t refused_bytes_ = SIZE_MAX;
  uint64_t fixed_ios_ = 0;

  io_uring ring_{};
  std::vector<MemberDevice*> members_;
  std::vector<Held> held_;  // min-heap, capacity reserved up front
  unsigned in_flight_ = 0;
  unsigned unsubmitted_ = 0;
  uint64_t batch_now_ = 0;
  unsigned setup_flags_ = 0;
  bool fixed_files_ = false;
  // The wakeup: a read of wakeup_fd_ kept pending in the ring. Its CQE and
  // its cancel's are told apart from MemberIo ones by these addresses.
  int wakeup_fd_ = -1;
  uint64_t wakeup_value_ = 0;
  bool wakeup_pending_ = false;  // the read is in the ring, its CQE not seen
  bool wakeup_stopping_ = false;
  bool cancel_pending_ = false;
  bool woken_ = false;    // the wakeup fired during this reap
  int failed_errno_ = 0;  // the ring's error once it failed
  const char* failed_call_ = "";
  int injected_errno_ = 0;
  bool ring_ready_ = false;  // io_uring_queue_init succeeded: the destructor tears it down
  bool ring_fd_registered_ = false;
  // Completion callbacks are running (collect()): submit() leaves what they
  // queue to the end of the batch.
  bool delivering_ = false;
  uint64_t enters_ = 0, submitted_ = 0;
};

// Fallback when io_uring is disabled (sysctl kernel.io_uring_disabled,
// seccomp): executes each I/O with pread/pwrite at submit() and completes it
// at the next reap(). Same interface, no queue depth.
class SyncBackend final : public Backend {
 public:
  explicit SyncBackend(std::span<MemberDevice* const> members);
  void queue(MemberIo& io) override;
  void submit() override;
  void queue_timer(MemberIo& io, uint64_t) override { done_.push_back({&io, -EAGAIN}); }
  unsigned reap(unsigned min_complete) override;
  void replace_member(int index, MemberDevice* dev) override;
  uint64_t now_ns() override { return monotonic_ns(); }
  unsigned in_flight() const override { return unsigned(queued_.size() + done_.size()); }
  std::string describe() const override { return "pread/pwrite (io_uring unavailable)"; }

 private:
  std::vector<MemberDevice*> members_;
  // With the member's fd taken at queue(): a member replaced before submit()
  // still gets the I/O queued to it (-1: missing member).
  std::vector<std::pair<MemberIo*, int>> queued_;
  std::vector<std::pair<MemberIo*, int>> done_;
};

// io_uring when the kernel allows it, else SyncBackend, saying why.
RealBackend make_real_backend(std::span<MemberDevice* const> members, unsigned depth);

}  // namespace rs::io
