#include "workload/aio_engine.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>

#include "io/clock.hpp"

namespace rs::workload {
namespace {

long io_setup(unsigned nr, aio_context_t* ctx) {
  return ::syscall(SYS_io_setup, nr, ctx);
}
long io_destroy(aio_context_t ctx) {
  return ::syscall(SYS_io_destroy, ctx);
}
long io_submit(aio_context_t ctx, long n, iocb** iocbs) {
  return ::syscall(SYS_io_submit, ctx, n, iocbs);
}
long io_getevents(aio_context_t ctx, long min_nr, long max_nr, io_event* events, timespec* timeout) {
  return ::syscall(SYS_io_getevents, ctx, min_nr, max_nr, events, timeout);
}

}  // namespace

Result<std::unique_ptr<AioBackend>> AioBackend::make(std::vector<io::MemberDevice*> devs, unsigned depth,
                                                     unsigned max_per_reap) {
  for (io::MemberDevice* d : devs)
    if (d && d->model()) return make_error(Errc::unsupported, "Linux AIO has no emulated-disk model");
  std::unique_ptr<AioBackend> b(new AioBackend());
  const unsigned nr = std::max(depth, 1u);
  if (io_setup(nr, &b->ctx_) < 0) {
    const int err = errno;
    b->ctx_ = 0;
    return make_error(Errc::unsupported, std::string("io_setup failed: ") + std::strerror(err));
  }
  b->devs_ = std::move(devs);
  b->reap_limit_ = max_per_reap ? max_per_reap : ~0u;
  b->events_.resize(nr);
  b->pool_.grow(nr);
  b->pending_.reserve(nr);
  return b;
}

AioBackend::~AioBackend() {
  // io_destroy waits for what is still in flight: the kernel then writes
  // into no buffer of ours.
  if (ctx_) io_destroy(ctx_);
}

void AioBackend::queue(io::MemberIo& io) {
  io.model = nullptr;
  io::MemberDevice* dev = io::member_device(devs_, io.member);
  if (!dev) {
    timers_.add(0, io, -ENODEV);
    return;
  }
  iocb* c = pool_.take();
  std::memset(c, 0, sizeof *c);
  c->aio_data = reinterpret_cast<uint64_t>(&io);
  c->aio_lio_opcode = io.write ? IOCB_CMD_PWRITE : IOCB_CMD_PREAD;
  c->aio_fildes = uint32_t(dev->fd());
  c->aio_buf = reinterpret_cast<uint64_t>(io.buffer);
  c->aio_nbytes = io.length;
  c->aio_offset = int64_t(io.offset);
  if (io.ioprio) {
    c->aio_flags |= IOCB_FLAG_IOPRIO;
    c->aio_reqprio = io.ioprio;
  }
  pending_.push_back(c);
}

void AioBackend::submit() {
  size_t at = 0;
  while (at < pending_.size()) {
    const long n = io_submit(ctx_, long(pending_.size() - at), pending_.data() + at);
    if (n > 0) {
      submitted_ += unsigned(n);
      at += size_t(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN && submitted_ > 0) break;  // the ring is full: after the next reap
    // The first iocb was refused: it completes with the error.
    iocb* c = pending_[at++];
    auto* io = reinterpret_cast<io::MemberIo*>(c->aio_data);
    pool_.give(c);
    timers_.add(0, *io, n < 0 ? -errno : -EIO);
  }
  pending_.erase(pending_.begin(), pending_.begin() + long(at));
}

void AioBackend::queue_timer(io::MemberIo& io, uint64_t delay_ns) {
  io.model = nullptr;
  timers_.add(io::monotonic_ns() + delay_ns, io, -EAGAIN);
}

unsigned AioBackend::reap_until(unsigned min_complete, uint64_t deadline_ns) {
  submit();
  unsigned got = timers_.empty() ? 0 : timers_.release(io::monotonic_ns());
  for (;;) {
    const unsigned room =
        std::min<unsigned>(reap_limit_ - std::min(reap_limit_, got), unsigned(events_.size()));
    if (room == 0) break;
    if (submitted_ == 0) {
      // Only timers left: sleep to the first one due (or the deadline).
      if (got >= min_complete || timers_.empty()) break;
      const timespec ts = io::timespec_until(timers_.first_due(deadline_ns));
      ::nanosleep(&ts, nullptr);
      got += timers_.release(io::monotonic_ns());
      break;
    }
    long min_nr = got < min_complete ? long(std::min(min_complete - got, std::min(submitted_, room))) : 0;
    // Wait no later than the deadline or the next timer.
    const uint64_t until = timers_.first_due(deadline_ns);
    timespec ts{}, *timeout = nullptr;
    if (min_nr > 0 && until != io::kNoDeadline) ts = io::timespec_until(until), timeout = &ts;
    const long n = io_getevents(ctx_, min_nr, long(room), events_.data(), timeout);
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    batch_now_ = io::monotonic_ns();
    submitted_ -= unsigned(n);
    // A callback may queue and submit more I/O but never reaps, so events_
    // is not written while this walks it; each iocb is free again first.
    for (long i = 0; i < n; ++i) {
      pool_.give(reinterpret_cast<iocb*>(events_[size_t(i)].obj));
      auto* io = reinterpret_cast<io::MemberIo*>(events_[size_t(i)].data);
      io->done(*io, int(events_[size_t(i)].res));
    }
    got += unsigned(n);
    if (!timers_.empty()) got += timers_.release(batch_now_);
    if (got >= min_complete || n < min_nr || min_nr == 0) break;
  }
  return got;
}

}  // namespace rs::workload
