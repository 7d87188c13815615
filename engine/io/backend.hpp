// The backend interface: personalities, policies and the load generator are
// written against it, so they run unchanged on real devices (io_uring, with
// or without a device model holding completions back) and on the simulator.
//
// A backend is single-threaded: one submitting context (a job thread, the
// rebuild loop, the simulator loop) owns it, queues I/O and reaps
// completions, and it must be that same thread that created it (io_uring
// rings are set up single-issuer). Member devices may be shared by several
// backends.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "base/result.hpp"
#include "io/member_io.hpp"

namespace rs::io {

class MemberDevice;

// "No deadline" for reap_until() and IoContext::run_once().
inline constexpr uint64_t kNoDeadline = ~uint64_t{0};

// The device of a member index in a backend's member table; null for an
// index outside it (the I/O then fails with -ENODEV) or an empty slot.
inline MemberDevice* member_device(std::span<MemberDevice* const> table, int index) {
  return index >= 0 && size_t(index) < table.size() ? table[size_t(index)] : nullptr;
}

class Backend {
 public:
  virtual ~Backend() = default;
  // Queue one I/O; it may wait in a batch until submit().
  virtual void queue(MemberIo& io) = 0;
  // Push every queued I/O to the devices (one syscall for the batch).
  virtual void submit() = 0;
  // Completes `io` with -EAGAIN about `delay_ns` from now, touching no
  // device: a way for the owning thread to try something again later
  // without blocking (the array's resync barrier defers writes with it).
  // Counts as in flight until then.
  virtual void queue_timer(MemberIo& io, uint64_t delay_ns) = 0;
  // Wait until at least `min_complete` completions are available (0: do not
  // wait), run their callbacks and return how many ran. Also submits what is
  // queued when it has to ask the kernel anyway.
  virtual unsigned reap(unsigned min_complete) = 0;
  // Member `index` (one of the members the backend was made with) is now
  // `dev` (the array replaced a member, e.g. add_member put a new device in
  // a failed slot). Called by the owning thread; I/O already in flight
  // finishes on the old device. Simulated backends, which
  // have no devices, ignore it.
  virtual void replace_member(int index, MemberDevice* dev) {
    (void)index;
    (void)dev;
  }
  // Which member table this backend has: the array's count of member
  // replacements when it was made or last brought up to date.
  uint64_t members_version() const { return members_version_; }
  void set_members_version(uint64_t v) { members_version_ = v; }
  // Monotonic time in ns: CLOCK_MONOTONIC for real backends, virtual time
  // for the simulator.
  virtual uint64_t now_ns() = 0;
  // The time to stamp a completion with, from inside a completion callback:
  // real backends read the clock once per reaped batch and return that
  // (cheaper than a clock read per I/O); the simulator's is exact.
  virtual uint64_t batch_now_ns() { return now_ns(); }
  // I/O queued or in flight that has not completed yet.
  virtual unsigned in_flight() const = 0;
  // Takes no more I/O until the next reap (fio's FIO_Q_BUSY): a backend
  // that completes its I/O at submit() (the null target, as fio's null
  // engine) holds the next until those completions are reaped, so that
  // a completion's latency is the submitter's own cost, not a wait behind
  // the rest of a queue nothing serves. Submitters look before queue().
  virtual bool busy() const { return false; }

  // For IoContext, which lets other threads wake the owner. A backend that
  // waits inside the kernel arms a read of `event_fd` there (an internal
  // request, not counted in in_flight(), re-armed each time it fires) and
  // returns true: from then on a write to `event_fd` makes a waiting reap()
  // or reap_until() return, even below min_complete. At most once per
  // backend; `event_fd` must stay open until the backend is destroyed.
  // Backends that never wait long in reap() keep the default (false).
  virtual bool arm_wakeup(int event_fd) {
    (void)event_fd;
    return false;
  }
  // reap() that waits no later than `deadline_ns` (now_ns() clock) and, with
  // a wakeup armed, also until a wakeup when nothing is in flight: returns
  // once `min_complete` completions ran, the wakeup fired or the deadline
  // passed. The default, for backends that never block long, is reap(); a
  // virtual-time backend's deadline is IoContext's business.
  virtual unsigned reap_until(unsigned min_complete, uint64_t deadline_ns) {
    (void)deadline_ns;
    return reap(min_complete);
  }
  // Time is virtual (the simulator): nothing ever waits, time moves only
  // when the owner advances it.
  virtual bool virtual_time() const { return false; }
  // Lets the kernel map `bytes` at `base` once instead of on every request
  // (io_uring's registered buffers): for memory many I/Os will use again
  // and again (a client's long-lived I/O buffers). Returns a handle for unregister_buffer(), or -1
  // when this backend does not do it; I/O into the memory works either way.
  // The memory must stay allocated until it is unregistered.
  virtual int register_buffer(void* base, size_t bytes) {
    (void)base;
    (void)bytes;
    return -1;
  }
  virtual void unregister_buffer(int handle) { (void)handle; }
  // register_buffer() for memory `owner` keeps mapped (an array's stripe
  // cache, which every context of the array reads into): the backend holds
  // `owner` until the buffer is unregistered or the backend goes, so no
  // address it maps can outlive the memory behind it (the kernel would go
  // on filling the old pages while the address served something else).
  virtual int register_owned_buffer(void* base, size_t bytes, std::shared_ptr<const void> owner) {
    (void)owner;
    return register_buffer(base, bytes);
  }
  // The handle of the registered buffer that holds all of [p, p + bytes),
  // or -1 (none, or a backend that does not register).
  virtual int registered_buffer(const void* p, size_t bytes) const {
    (void)p;
    (void)bytes;
    return -1;
  }
  // ---- a socket on the owner's loop (a server's connection) ----
  // Queues a recv() of up to io.length bytes from the socket `fd` into
  // io.buffer, done by the backend: io_uring waits for the data inside the
  // ring, so a client's requests arrive in the same loop (the same wait)
  // as the member I/O they start, with no thread between. io.done gets the
  // bytes received, 0 at EOF or after shutdown(SHUT_RD), or -errno; the recv
  // counts in in_flight() until then, so the owner's drain waits for it:
  // shut the socket down (or let it end) before the context stops. Returns
  // false, queueing nothing, when the backend cannot (the caller reads the
  // socket itself). io.member, offset and write are not used.
  virtual bool queue_recv(MemberIo& io, int fd) {
    (void)io;
    (void)fd;
    return false;
  }
  // Short description for `detail` and reports ("io_uring", "sim", ...).
  virtual std::string describe() const = 0;

  // ---- a backend that can no longer drive its ring ----
  // When waiting in the kernel fails with an error that is not a retry
  // (EINTR, ETIME, EAGAIN, EBUSY), the backend has failed, for good:
  //  - I/O the kernel never took (queued, not yet submitted) and every I/O
  //    queued from then on completes at the next reap with -errno and
  //    MemberIo::ring_failed set;
  //  - I/O the kernel took completes only with its own completion (its
  //    real result), reaped without submitting anything: the kernel may
  //    still write into its buffer, so it is never handed back before;
  //  - reap() and reap_until() no longer block in the kernel (the context
  //    waits in poll() instead) and queue_timer() works as before.
  // Owning thread only. The errno the ring failed with; 0 while healthy.
  virtual int failed_errno() const { return 0; }
  bool failed() const { return failed_errno() != 0; }
  // Why, naming the call and the errno (ok while not failed).
  virtual Status failure() const { return {}; }

 private:
  uint64_t members_version_ = 0;
};

// A backend for real devices and, when it is not io_uring, why not.
struct RealBackend {
  std::unique_ptr<Backend> backend;
  std::string fallback_note;  // empty with io_uring; why it is pread/pwrite otherwise
};

}  // namespace rs::io
