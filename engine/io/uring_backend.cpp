#include "io/uring_backend.hpp"

#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <bitset>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <functional>
#include <utility>

namespace rs::io {

Result<std::unique_ptr<UringBackend>> UringBackend::create(std::span<MemberDevice* const> members,
                                                           unsigned depth) {
  auto b = std::unique_ptr<UringBackend>(new UringBackend(members));
  if (const int rc = b->setup(depth); rc < 0)
    return make_error(Errc::unsupported,
                      std::string("io_uring is unavailable here (") + std::strerror(-rc) +
                          "); it may be disabled by the kernel.io_uring_disabled sysctl or a seccomp filter");
  return b;
}

int UringBackend::setup(unsigned depth) {
  unsigned entries = 1;
  while (entries < std::max(depth, 8u)) entries <<= 1;
  // The cheapest completion path the kernel offers (fio 3.33 does the same);
  // older kernels reject the flags, so step down until one is accepted.
  const unsigned tries[] = {IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
                            IORING_SETUP_COOP_TASKRUN, 0};
  int rc = -EINVAL;
  for (unsigned flags : tries) {
    io_uring_params p{};
    p.flags = flags;
    p.flags |= IORING_SETUP_CQSIZE;
    p.cq_entries = entries * 2;
    rc = io_uring_queue_init_params(entries, &ring_, &p);
    if (rc == 0) {
      setup_flags_ = flags;
      break;
    }
    if (rc != -EINVAL) break;
  }
  if (rc < 0) return rc;
  ring_ready_ = true;
  // The ring's fd registered with the thread: each io_uring_enter then
  // skips the fd lookup (fget/fput). Only a single-issuer ring, whose
  // one thread is the one that made it, as the registration is per thread.
  if (setup_flags_ & IORING_SETUP_SINGLE_ISSUER) ring_fd_registered_ = io_uring_register_ring_fd(&ring_) == 1;
  std::vector<int> fds;
  for (auto* m : members_) fds.push_back(m ? m->fd() : -1);
  fixed_files_ = !fds.empty() && io_uring_register_files(&ring_, fds.data(), unsigned(fds.size())) == 0;
  held_.reserve(entries * 2);
  return 0;
}

UringBackend::~UringBackend() {
  if (!ring_ready_) return;
  // Never leave the kernel writing into buffers we are about to free.
  disarm_wakeup();
  while (in_flight_ > 0) {
    if (reap(1) > 0) continue;
    if (!failed_errno_) break;
    // A failed ring is only polled: what the kernel still has may write
    // into its buffers until it completes, so wait for it.
    ::usleep(1000);
  }
  // Registered files hold references to the member files; the ring itself
  // is torn down asynchronously by the kernel, so without this the members'
  // OFD locks could outlive the process by a moment. Unregistering waits.
  if (fixed_files_) io_uring_unregister_files(&ring_);
  io_uring_queue_exit(&ring_);
}

void UringBackend::replace_member(int index, MemberDevice* dev) {
  if (index < 0 || size_t(index) >= members_.size()) return;
  members_[size_t(index)] = dev;
  if (fixed_files_) {
    // The kernel keeps the old file for requests still in flight.
    int fd = dev ? dev->fd() : -1;
    if (io_uring_register_files_update(&ring_, unsigned(index), &fd, 1) != 1) {
      // Stop using fixed files rather than send I/O to the wrong file.
      io_uring_unregister_files(&ring_);
      fixed_files_ = false;
    }
  }
}

int UringBackend::register_buffer(void* base, size_t bytes) {
  return register_owned_buffer(base, bytes, nullptr);
}

int UringBackend::register_owned_buffer(void* base, size_t bytes, std::shared_ptr<const void> owner) {
  // The kernel takes at most 1 GiB per buffer, and pins it: a user over
  // RLIMIT_MEMLOCK gets a refusal, and the region is used the usual way.
  if (!base || bytes == 0 || bytes > (size_t{1} << 30) || bytes >= refused_bytes_) return -1;
  if (buffer_table_ == BufferTable::untried)
    buffer_table_ = io_uring_register_buffers_sparse(&ring_, kBufferTableSize) == 0
                        ? BufferTable::registered
                        : BufferTable::unavailable;
  if (buffer_table_ != BufferTable::registered) return -1;
  std::bitset<kBufferTableSize> used;
  for (const BufferRegion& r : buffers_) used.set(size_t(r.index));
  int index = 0;
  while (index < int(kBufferTableSize) && used[size_t(index)]) ++index;
  if (index == int(kBufferTableSize)) return -1;
  iovec iov{base, bytes};
  if (io_uring_register_buffers_update_tag(&ring_, unsigned(index), &iov, nullptr, 1) != 1) {
    refused_bytes_ = bytes;
    return -1;
  }
  const auto begin = reinterpret_cast<uintptr_t>(base);
  buffers_.push_back({begin, begin + bytes, index, std::move(owner)});
  return index;
}

void UringBackend::unregister_buffer(int handle) {
  auto it = std::find_if(buffers_.begin(), buffers_.end(),
                         [&](const BufferRegion& r) { return r.index == handle; });
  if (it == buffers_.end()) return;
  // An empty entry clears the slot; requests still in flight keep the old
  // mapping until they complete.
  iovec none{nullptr, 0};
  io_uring_register_buffers_update_tag(&ring_, unsigned(handle), &none, nullptr, 1);
  buffers_.erase(it);
}

std::string UringBackend::describe() const {
  std::string s = "io_uring";
  if (setup_flags_ & IORING_SETUP_DEFER_TASKRUN)
    s += " (single issuer, deferred task run)";
  else if (setup_flags_ & IORING_SETUP_COOP_TASKRUN)
    s += " (cooperative task run)";
  if (fixed_files_) s += ", fixed files";
  if (!buffers_.empty()) s += ", registered buffers";
  return s;
}

io_uring_sqe* UringBackend::next_sqe() {
  io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
  if (!sqe) {
    flush();
    sqe = io_uring_get_sqe(&ring_);
  }
  return sqe;
}

void UringBackend::hold(MemberIo& io, uint64_t due_ns, int result) {
  held_.push_back({due_ns, &io, result});
  std::push_heap(held_.begin(), held_.end(), std::greater<>());
}

void UringBackend::refuse(MemberIo& io, int err) {
  io.model = nullptr;
  io.ring_failed = true;
  hold(io, 0, -err);
}

void UringBackend::queue(MemberIo& io) {
  ++in_flight_;
  if (failed_errno_) {  // never to the kernel again: completed at the next reap
    refuse(io, failed_errno_);
    return;
  }
  MemberDevice* dev = member_device(members_, io.member);
  if (!dev) {
    // Completed with an error at the next reap, never inline, so callers
    // see one completion path.
    io.model = nullptr;
    hold(io, 0, -ENODEV);
    return;
  }
  io_uring_sqe* sqe = next_sqe();
  int fd = fixed_files_ ? io.member : dev->fd();
  const int buffer_index = fixed_buffer_index(io.buffer, io.length);
  if (buffer_index >= 0) {
    ++fixed_ios_;
    if (io.write)
      io_uring_prep_write_fixed(sqe, fd, io.buffer, io.length, io.offset, buffer_index);
    else
      io_uring_prep_read_fixed(sqe, fd, io.buffer, io.length, io.offset, buffer_index);
  } else if (io.write) {
    io_uring_prep_write(sqe, fd, io.buffer, io.length, io.offset);
  } else {
    io_uring_prep_read(sqe, fd, io.buffer, io.length, io.offset);
  }
  if (fixed_files_) sqe->flags |= IOSQE_FIXED_FILE;
  if (io.write && io.dsync) sqe->rw_flags |= RWF_DSYNC;
  sqe->ioprio = io.ioprio;
  io_uring_sqe_set_data(sqe, &io);
  // Taken now, not at completion: replace_member() may change the table
  // while this I/O is in flight.
  io.model = io.emulated ? io.emulated : dev->model();
  if (io.model) {
    // The model is fed in submission order; the completion is held until
    // due_ns, when the emulated disk would be done.
    io.due_ns = io.model->schedule(monotonic_ns(), io.write, io.offset, io.length);
  }
  ++unsubmitted_;
}

void UringBackend::queue_timer(MemberIo& io, uint64_t delay_ns) {
  // A held completion like an emulated disk's, with no device behind it.
  ++in_flight_;
  io.model = nullptr;
  hold(io, monotonic_ns() + delay_ns, -EAGAIN);
}

bool UringBackend::arm_wakeup(int event_fd) {
  if (wakeup_fd_ >= 0 || event_fd < 0) return false;
  wakeup_fd_ = event_fd;
  queue_wakeup_read();
  flush();
  return true;
}

void UringBackend::queue_wakeup_read() {
  if (failed_errno_) return;  // the context waits in poll() from now on
  io_uring_sqe* sqe = next_sqe();
  io_uring_prep_read(sqe, wakeup_fd_, &wakeup_value_, sizeof wakeup_value_, 0);
  io_uring_sqe_set_data(sqe, &wakeup_value_);
  ++unsubmitted_;
  wakeup_pending_ = true;
}

void UringBackend::disarm_wakeup() {
  wakeup_stopping_ = true;
  // A failed ring takes no cancel; the read stays in it until the ring is
  // torn down (nothing writes the eventfd any more), which cancels it.
  if (!wakeup_pending_ || failed_errno_) return;
  io_uring_sqe* sqe = next_sqe();
  io_uring_prep_cancel(sqe, &wakeup_value_, 0);
  io_uring_sqe_set_data(sqe, &wakeup_fd_);
  ++unsubmitted_;
  cancel_pending_ = true;
  // Member I/O that completes meanwhile is delivered as usual.
  while ((wakeup_pending_ || cancel_pending_) && !failed_errno_) {
    enter_kernel(true, kNoDeadline);
    collect(~0u);
  }
}

void UringBackend::submit() {
  // From a completion callback: what the reap's callbacks queue goes to
  // the kernel in one enter when the reap is done with its batch, not in
  // one enter per I/O (fio's batch per commit; the virtio disk also gets
  // one notify for the batch).
  if (unsubmitted_ && !failed_errno_ && !delivering_) flush();
}

void UringBackend::flush() {
  if (injected_errno_) {  // a test's ring failure, as if the submit had hit it
    ring_failed(std::exchange(injected_errno_, 0), "io_uring submit");
    return;
  }
  // With deferred task run the kernel posts completions only when the
  // submitter enters with GETEVENTS. A plain submit leaves finished I/O
  // unposted until the next reap, which then has to enter again: 32k
  // direct writes at depth 8 took 37.5k io_uring_enter calls, and take
  // 32.8k with GETEVENTS on the submit, as fio's (perf trace).
  const int rc = (setup_flags_ & IORING_SETUP_DEFER_TASKRUN) ? io_uring_submit_and_get_events(&ring_)
                                                             : io_uring_submit(&ring_);
  count_enter(rc);
  unsubmitted_ = 0;
  if (rc < 0 && rc != -EINTR && rc != -EAGAIN && rc != -EBUSY) ring_failed(-rc, "io_uring submit");
}

void UringBackend::deliver(MemberIo& io, int result) {
  --in_flight_;
  io.done(io, result);
}

unsigned UringBackend::release_due(uint64_t now, unsigned limit) {
  unsigned n = 0;
  while (n < limit && !held_.empty() && held_.front().due_ns <= now) {
    std::pop_heap(held_.begin(), held_.end(), std::greater<>());
    Held h = held_.back();
    held_.pop_back();
    if (h.result >= 0 && h.io->model) h.io->model->complete(h.io->offset, h.io->length);
    deliver(*h.io, h.result);
    ++n;
  }
  return n;
}

unsigned UringBackend::drain_cqes(uint64_t now, unsigned limit) {
  io_uring_cqe* cqes[64];
  unsigned total = 0;
  while (total < limit) {
    unsigned got = io_uring_peek_batch_cqe(&ring_, cqes, std::min(64u, limit - total));
    if (got == 0) break;
    // Copy out first: callbacks may queue new I/O into the same ring.
    std::pair<void*, int> batch[64];
    for (unsigned i = 0; i < got; ++i) batch[i] = {io_uring_cqe_get_data(cqes[i]), cqes[i]->res};
    io_uring_cq_advance(&ring_, got);
    for (unsigned i = 0; i < got; ++i) {
      if (batch[i].first == &wakeup_value_) {  // not an I/O: not counted, re-armed
        wakeup_pending_ = false;
        woken_ = true;
        if (!wakeup_stopping_) queue_wakeup_read();
        continue;
      }
      if (batch[i].first == &wakeup_fd_) {  // the wakeup read's cancel
        cancel_pending_ = false;
        continue;
      }
      MemberIo* io = static_cast<MemberIo*>(batch[i].first);
      if (io->model && io->due_ns > now) {
        hold(*io, io->due_ns, batch[i].second);
        continue;
      }
      if (io->model && batch[i].second >= 0) io->model->complete(io->offset, io->length);
      deliver(*io, batch[i].second);
      ++total;
    }
  }
  return total;
}

unsigned UringBackend::collect(unsigned limit) {
  const uint64_t now = monotonic_ns();
  batch_now_ = now;
  const bool outer = std::exchange(delivering_, true);
  unsigned n = release_due(now, limit);
  n += drain_cqes(now, limit - n);
  delivering_ = outer;
  return n;
}

void UringBackend::enter_kernel(bool wait, uint64_t deadline_ns) {
  if (failed_errno_) {
    // Only what the kernel took is left to reap: post its completions,
    // submit nothing, never block (the context waits in poll()).
    (void)io_uring_enter(unsigned(ring_.ring_fd), 0, 0, IORING_ENTER_GETEVENTS, nullptr);
    return;
  }
  if (injected_errno_) {  // a test's ring failure, as if io_uring_enter had returned it
    ring_failed(std::exchange(injected_errno_, 0), "io_uring wait");
    return;
  }
  // Wait for a real completion, or until the next held one is due, or the
  // caller's deadline.
  const uint64_t until = held_.empty() ? deadline_ns : std::min(deadline_ns, held_.front().due_ns);
  int rc = 0;
  if (!wait) {
    rc = io_uring_submit_and_get_events(&ring_);
  } else if (until == kNoDeadline) {
    rc = io_uring_submit_and_wait(&ring_, 1);
  } else {
    const uint64_t now = monotonic_ns();
    const uint64_t wait_ns = until > now ? until - now : 0;
    __kernel_timespec ts{int64_t(wait_ns / 1000000000ull), int64_t(wait_ns % 1000000000ull)};
    io_uring_cqe* cqe = nullptr;
    rc = io_uring_submit_and_wait_timeout(&ring_, &cqe, 1, &ts, nullptr);
  }
  count_enter(rc);
  unsubmitted_ = 0;
  if (rc < 0 && rc != -EINTR && rc != -ETIME && rc != -EAGAIN && rc != -EBUSY)
    ring_failed(-rc, "io_uring wait");
}

void UringBackend::ring_failed(int err, const char* call) {
  if (failed_errno_) return;
  failed_errno_ = err;
  failed_call_ = call;
  reclaim_unsubmitted(err);
}

// liburing keeps the submissions between the kernel's head and its own
// tail (sq.khead .. sq.sqe_tail; those past sq.ktail are not even
// published). A failed io_uring_enter took none of them, and with no
// SQPOLL thread the kernel takes submissions only inside io_uring_enter
// with to_submit > 0, which a failed backend never makes: so they are
// completed here, and the queue is emptied so that nothing could submit
// them later.
void UringBackend::reclaim_unsubmitted(int err) {
  io_uring_sq& sq = ring_.sq;
  const unsigned head = io_uring_smp_load_acquire(sq.khead);
  for (unsigned i = head; i != sq.sqe_tail; ++i) {
    void* data = reinterpret_cast<void*>(sq.sqes[i & sq.ring_mask].user_data);
    if (data == &wakeup_value_) {
      wakeup_pending_ = false;  // the read never reached the kernel
    } else if (data == &wakeup_fd_) {
      cancel_pending_ = false;
    } else if (data) {
      refuse(*static_cast<MemberIo*>(data), err);  // still counted in flight
    }
  }
  io_uring_smp_store_release(sq.ktail, head);
  sq.sqe_head = sq.sqe_tail = head;
  unsubmitted_ = 0;
}

Status UringBackend::failure() const {
  if (!failed_errno_) return {};
  return make_error(Errc::io_error,
                    std::string(failed_call_) + " failed: " + std::strerror(failed_errno_) + " (errno " +
                        std::to_string(failed_errno_) +
                        "); the ring takes no more I/O: what it had not started failed with "
                        "that error, what it had started completes as the kernel finishes it");
}

unsigned UringBackend::reap(unsigned min_complete) {
  return reap_impl(min_complete, kNoDeadline, false);
}

unsigned UringBackend::reap_until(unsigned min_complete, uint64_t deadline_ns) {
  return reap_impl(min_complete, deadline_ns, true);
}

unsigned UringBackend::reap_impl(unsigned min_complete, uint64_t deadline_ns, bool idle_wait) {
  const unsigned limit = ~0u;  // every completion there is
  woken_ = false;
  // What is already posted costs no syscall.
  unsigned done = collect(limit);
  bool asked_kernel = false;
  while (done < limit && !woken_) {
    const bool want = done < min_complete;
    // With nothing in flight only the wakeup can end a wait.
    if (in_flight_ == 0 && !(idle_wait && want && wakeup_pending_)) break;
    const bool wait = want && (deadline_ns == kNoDeadline || monotonic_ns() < deadline_ns);
    if (!wait && asked_kernel) break;
    enter_kernel(wait, deadline_ns);
    asked_kernel = true;
    done += collect(limit - done);
    if (failed_errno_) break;  // never waits in the kernel: the context polls
    if (wait && deadline_ns != kNoDeadline && monotonic_ns() >= deadline_ns) break;
  }
  // What the last batch's callbacks queued, in one enter.
  if (unsubmitted_ && !failed_errno_) flush();
  return done;
}

SyncBackend::SyncBackend(std::span<MemberDevice* const> members) : members_(members.begin(), members.end()) {}

void SyncBackend::replace_member(int index, MemberDevice* dev) {
  if (index >= 0 && size_t(index) < members_.size()) members_[size_t(index)] = dev;
}

void SyncBackend::queue(MemberIo& io) {
  MemberDevice* dev = member_device(members_, io.member);
  io.model = nullptr;  // no emulated disks here
  queued_.push_back({&io, dev ? dev->fd() : -1});
}

void SyncBackend::submit() {
  for (auto [io, fd] : queued_) {
    int res = -ENODEV;
    if (fd >= 0) {
      iovec v{io->buffer, io->length};
      ssize_t n = io->write ? ::pwritev2(fd, &v, 1, off_t(io->offset), io->dsync ? RWF_DSYNC : 0)
                            : ::pread(fd, io->buffer, io->length, off_t(io->offset));
      res = n < 0 ? -errno : int(n);
    }
    done_.push_back({io, res});
  }
  queued_.clear();
}

unsigned SyncBackend::reap(unsigned) {
  submit();
  // Take the batch out first: callbacks queue the next I/O.
  std::vector<std::pair<MemberIo*, int>> batch = std::move(done_);
  done_.clear();
  const size_t n = batch.size();
  for (auto& [io, res] : batch) io->done(*io, res);
  return unsigned(n);
}

RealBackend make_real_backend(std::span<MemberDevice* const> members, unsigned depth) {
  auto uring = UringBackend::create(members, depth);
  if (uring) return {std::move(*uring), {}};
  return {std::make_unique<SyncBackend>(members), uring.error().message + "; falling back to pread/pwrite"};
}

}  // namespace rs::io
