#include "io/ring_fault_backend.hpp"

#include <cstring>

namespace rs::io {

void RingFaultBackend::fail(int err) {
  if (err_ || err <= 0) return;
  err_ = err;
  // What it still holds never reached the "kernel": it fails now.
  for (MemberIo* io : held_) refused_.push_back(io);
  held_.clear();
}

void RingFaultBackend::fail_after_submits(unsigned submits, int err) {
  submits_left_ = submits;
  armed_err_ = err;
}

void RingFaultBackend::queue(MemberIo& io) {
  if (err_) {
    refused_.push_back(&io);
    return;
  }
  held_.push_back(&io);
}

void RingFaultBackend::submit() {
  if (!err_ && !held_.empty() && submits_left_ && --submits_left_ == 0) fail(armed_err_);
  if (err_) return;
  for (MemberIo* io : held_) inner_->queue(*io);
  held_.clear();
  inner_->submit();
}

unsigned RingFaultBackend::deliver_refused() {
  // Taken out first: a callback may queue more, which is refused too.
  std::vector<MemberIo*> batch;
  batch.swap(refused_);
  for (MemberIo* io : batch) {
    ++refused_count_;
    io->ring_failed = true;
    io->done(*io, -err_);
  }
  return unsigned(batch.size());
}

unsigned RingFaultBackend::reap_until(unsigned min_complete, uint64_t deadline_ns) {
  // A healthy wrapper submits what it holds before waiting, as a ring does.
  if (!err_ && !held_.empty()) submit();
  unsigned done = deliver_refused();
  if (err_ && !inner_->virtual_time()) {  // a failed ring never waits: what the inner backend has is polled
    for (unsigned n; (n = deliver_refused() + inner_->reap(0)) > 0;) done += n;
    return done;
  }
  return done + inner_->reap_until(done >= min_complete ? 0 : min_complete - done, deadline_ns);
}

Status RingFaultBackend::failure() const {
  if (!err_) return {};
  return make_error(Errc::io_error, std::string("io_uring wait failed: ") + std::strerror(err_) + " (errno " +
                                        std::to_string(err_) + ", injected)");
}

}  // namespace rs::io
