#include "workload/posix_aio_engine.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>

namespace rs::workload {

Result<std::unique_ptr<PosixAioBackend>> PosixAioBackend::make(std::vector<io::MemberDevice*> devs,
                                                               unsigned depth, unsigned max_per_reap) {
  for (io::MemberDevice* d : devs)
    if (d && d->model()) return make_error(Errc::unsupported, "POSIX AIO has no emulated-disk model");
  std::unique_ptr<PosixAioBackend> b(new PosixAioBackend());
  b->devs_ = std::move(devs);
  b->reap_limit_ = max_per_reap ? max_per_reap : ~0u;
  const unsigned nr = std::max(depth, 1u);
  b->pool_.grow(nr);
  b->pending_.reserve(nr);
  b->running_.reserve(nr);
  b->finished_.reserve(nr);
  b->suspend_list_.reserve(nr);
  return b;
}

PosixAioBackend::~PosixAioBackend() {
  // glibc's threads still hold the aiocbs of requests in flight: wait for
  // them, so nothing writes into a buffer or aiocb that is gone.
  for (Request* r : running_) {
    const aiocb* list[1] = {&r->cb};
    while (aio_error(&r->cb) == EINPROGRESS) aio_suspend(list, 1, nullptr);
    aio_return(&r->cb);
  }
}

void PosixAioBackend::queue(io::MemberIo& io) {
  io.model = nullptr;
  io::MemberDevice* dev = io::member_device(devs_, io.member);
  if (!dev) {
    timers_.add(0, io, -ENODEV);
    return;
  }
  Request* r = pool_.take();
  std::memset(&r->cb, 0, sizeof r->cb);
  r->cb.aio_fildes = dev->fd();
  r->cb.aio_buf = io.buffer;
  r->cb.aio_nbytes = io.length;
  r->cb.aio_offset = off_t(io.offset);
  r->cb.aio_sigevent.sigev_notify = SIGEV_NONE;
  r->io = &io;
  pending_.push_back(r);
}

void PosixAioBackend::submit() {
  size_t at = 0;
  for (; at < pending_.size(); ++at) {
    Request* r = pending_[at];
    const int rc = r->io->write ? aio_write(&r->cb) : aio_read(&r->cb);
    if (rc == 0) {
      running_.push_back(r);
      continue;
    }
    // glibc out of room for now: try the rest after the next reap.
    if (errno == EAGAIN && !running_.empty()) break;
    timers_.add(0, *r->io, -errno);
    pool_.give(r);
  }
  pending_.erase(pending_.begin(), pending_.begin() + long(at));
}

void PosixAioBackend::queue_timer(io::MemberIo& io, uint64_t delay_ns) {
  io.model = nullptr;
  timers_.add(io::monotonic_ns() + delay_ns, io, -EAGAIN);
}

unsigned PosixAioBackend::collect(unsigned room) {
  unsigned n = 0;
  for (size_t i = 0; i < running_.size() && n < room;) {
    Request* r = running_[i];
    const int err = aio_error(&r->cb);
    if (err == EINPROGRESS) {
      ++i;
      continue;
    }
    const ssize_t bytes = aio_return(&r->cb);
    finished_.push_back({r->io, err ? -err : int(bytes)});
    pool_.give(r);
    running_.erase(running_.begin() + long(i));
    ++n;
  }
  return n;
}

unsigned PosixAioBackend::reap_until(unsigned min_complete, uint64_t deadline_ns) {
  submit();
  unsigned got = timers_.empty() ? 0 : timers_.release(io::monotonic_ns());
  for (;;) {
    const unsigned room = reap_limit_ - std::min(reap_limit_, got);
    if (room == 0) break;
    collect(room);
    if (!finished_.empty()) {
      batch_now_ = io::monotonic_ns();
      // A callback may queue and submit more I/O but never reaps, so
      // finished_ does not change while this walks it.
      for (auto& [io, result] : finished_) io->done(*io, result);
      got += unsigned(finished_.size());
      finished_.clear();
    }
    if (!timers_.empty()) got += timers_.release(io::monotonic_ns());
    if (got >= min_complete) break;
    const uint64_t until = timers_.first_due(deadline_ns);
    if (running_.empty()) {
      // Only timers left: sleep to the first one due (or the deadline).
      if (timers_.empty() || until == io::kNoDeadline) break;
      timespec ts = io::timespec_until(until);
      ::nanosleep(&ts, nullptr);
      got += timers_.release(io::monotonic_ns());
      break;
    }
    if (until != io::kNoDeadline && io::monotonic_ns() >= until) break;
    suspend_list_.clear();
    for (Request* r : running_) suspend_list_.push_back(&r->cb);
    timespec ts{};
    if (until != io::kNoDeadline) ts = io::timespec_until(until);
    aio_suspend(suspend_list_.data(), int(suspend_list_.size()), until != io::kNoDeadline ? &ts : nullptr);
  }
  return got;
}

}  // namespace rs::workload
