#include "raid/barrier.hpp"

#include <algorithm>

namespace rs::raid {

namespace {
constexpr uint64_t kSector = 512;
constexpr auto kSeq = std::memory_order_seq_cst;
}  // namespace

std::pair<uint64_t, uint64_t> ResyncBarrier::sectors_of(const ArrayIo& io) {
  const uint64_t lo = io.offset / kSector;
  return {lo, lo + io.length / kSector};
}

template <class Fn>
void ResyncBarrier::for_each_bucket(uint64_t lo, uint64_t hi, Fn&& fn) {
  if (hi <= lo) return;
  for (uint64_t unit = lo >> kUnitSectorBits; unit <= (hi - 1) >> kUnitSectorBits; ++unit)
    fn(bucket_of(unit << kUnitSectorBits));
}

bool ResyncBarrier::try_count(uint64_t lo, uint64_t hi) {
  // Count first, then look (md's wait_barrier): a piece raised meanwhile
  // either sees this count and waits for it, or is seen here.
  bool raised = false;
  for_each_bucket(lo, hi, [&](size_t b) {
    nr_pending_[b].fetch_add(1, kSeq);
    if (barrier_[b].load(kSeq)) raised = true;
  });
  if (raised) uncount(lo, hi);
  return !raised;
}

void ResyncBarrier::uncount(uint64_t lo, uint64_t hi) {
  bool wake = false;
  for_each_bucket(lo, hi, [&](size_t b) {
    // The last write of a bucket whose barrier is up wakes the piece.
    if (nr_pending_[b].fetch_sub(1, kSeq) == 1 && barrier_[b].load(kSeq)) wake = true;
  });
  if (wake) {
    std::lock_guard lock(mutex_);
    cv_.notify_all();
  }
}

bool ResyncBarrier::any_raised(uint64_t lo, uint64_t hi) const {
  bool raised = false;
  for_each_bucket(lo, hi, [&](size_t b) { raised |= barrier_[b].load(kSeq) != 0; });
  return raised;
}

bool ResyncBarrier::enter(ArrayIo& io) {
  const auto [lo, hi] = sectors_of(io);
  io.barrier = ArrayIo::Gate::none;
  for (;;) {
    if (try_count(lo, hi)) {
      io.barrier = ArrayIo::Gate::counted;
      return true;
    }
    // Raising and lowering happen under the lock: a barrier seen up here
    // is lowered only after this write is on the parked list.
    std::lock_guard lock(mutex_);
    if (any_raised(lo, hi)) {
      parked_.push_back(&io);
      return false;
    }
  }
}

void ResyncBarrier::leave(ArrayIo& io) {
  if (io.barrier == ArrayIo::Gate::counted) {
    const auto [lo, hi] = sectors_of(io);
    uncount(lo, hi);
  }
  io.barrier = ArrayIo::Gate::none;
}

ResyncBarrier::Piece::Piece(ResyncBarrier& b, uint64_t lo, uint64_t hi) : b_(b) {
  std::unique_lock lock(b_.mutex_);
  b_.cv_.wait(lock, [&] { return !b_.raised_; });
  b_.raised_ = true;
  b_.lo_ = lo;
  b_.hi_ = hi;
  for_each_bucket(lo, hi, [&](size_t k) { b_.barrier_[k].fetch_add(1, kSeq); });
  b_.cv_.wait(lock, [&] {
    bool drained = true;
    for_each_bucket(lo, hi, [&](size_t k) { drained &= b_.nr_pending_[k].load(kSeq) == 0; });
    return drained;
  });
}

ResyncBarrier::Piece::~Piece() {
  std::vector<ArrayIo*> parked;
  {
    std::lock_guard lock(b_.mutex_);
    for_each_bucket(b_.lo_, b_.hi_, [&](size_t k) { b_.barrier_[k].fetch_sub(1, kSeq); });
    b_.raised_ = false;
    parked.swap(b_.parked_);
    b_.cv_.notify_all();
  }
  for (ArrayIo* io : parked) b_.resume_(*io);
}

}  // namespace rs::raid
