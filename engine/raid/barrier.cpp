#include "raid/barrier.hpp"

#include <algorithm>

namespace rs::raid {

namespace {
constexpr uint64_t kSector = 512;
}

bool ResyncBarrier::overlaps(const ArrayIo& io, uint64_t lo, uint64_t hi) {
  const uint64_t wlo = io.offset / kSector, whi = wlo + io.length / kSector;
  return wlo < hi && lo < whi;
}

bool ResyncBarrier::enter(ArrayIo& io) {
  io.barrier = ArrayIo::Gate::none;
  if (users_.load(std::memory_order_seq_cst) == 0) {
    // Count first, then look again: a task that starts in between either
    // sees this count (and waits for it) or is seen here.
    unregistered_.fetch_add(1, std::memory_order_seq_cst);
    if (users_.load(std::memory_order_seq_cst) == 0) {
      io.barrier = ArrayIo::Gate::counted;
      return true;
    }
    io.barrier = ArrayIo::Gate::counted;
    leave(io);  // a task started meanwhile: register instead
  }
  std::lock_guard lock(mutex_);
  if (lo_ != hi_ && overlaps(io, lo_, hi_)) {
    parked_.push_back(&io);
    return false;
  }
  io.barrier = ArrayIo::Gate::registered;
  registered_.push_back(&io);
  return true;
}

void ResyncBarrier::leave(ArrayIo& io) {
  if (io.barrier == ArrayIo::Gate::counted) {
    // The last unregistered write wakes a Scope waiting for them to drain.
    if (unregistered_.fetch_sub(1, std::memory_order_seq_cst) == 1 &&
        users_.load(std::memory_order_seq_cst) > 0) {
      std::lock_guard lock(mutex_);
      cv_.notify_all();
    }
  } else if (io.barrier == ArrayIo::Gate::registered) {
    std::lock_guard lock(mutex_);
    std::erase(registered_, &io);
    cv_.notify_all();
  }
  io.barrier = ArrayIo::Gate::none;
}

ResyncBarrier::Scope::Scope(ResyncBarrier& b) : b_(b) {
  b_.users_.fetch_add(1, std::memory_order_seq_cst);
  std::unique_lock lock(b_.mutex_);
  b_.cv_.wait(lock, [&] { return b_.unregistered_.load(std::memory_order_seq_cst) == 0; });
}

ResyncBarrier::Scope::~Scope() {
  b_.users_.fetch_sub(1, std::memory_order_seq_cst);
}

ResyncBarrier::Piece::Piece(ResyncBarrier& b, uint64_t lo, uint64_t hi) : b_(b) {
  std::unique_lock lock(b_.mutex_);
  b_.cv_.wait(lock, [&] { return b_.lo_ == b_.hi_; });
  b_.lo_ = lo;
  b_.hi_ = hi;
  b_.cv_.wait(lock, [&] {
    return std::none_of(b_.registered_.begin(), b_.registered_.end(),
                        [&](const ArrayIo* w) { return overlaps(*w, lo, hi); });
  });
}

ResyncBarrier::Piece::~Piece() {
  std::vector<ArrayIo*> parked;
  {
    std::lock_guard lock(b_.mutex_);
    b_.lo_ = b_.hi_ = 0;
    parked.swap(b_.parked_);
    b_.cv_.notify_all();
  }
  for (ArrayIo* io : parked) b_.resume_(*io);
}

}  // namespace rs::raid
