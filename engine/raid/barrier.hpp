// md's resync barrier in buckets (raid1.c's barrier[] / nr_pending[]), in
// user space: while a maintenance task (rebuild, resync, check/repair, a
// read-error fix) copies or compares a piece of the array, writes to the
// piece's barrier units are held off, and the piece waits for the writes
// already running there. Writes elsewhere never wait and never take a lock.
//
// The array is cut into barrier units of 64 MiB (md's
// BARRIER_UNIT_SECTOR_BITS) hashed onto 1024 buckets (md's
// BARRIER_BUCKETS_NR, one page of counters); a write counts itself pending
// in the buckets of the units it touches (md splits a bio at a unit's end;
// here a write that crosses one counts in both) and looks at their
// barrier, and a piece raises the barrier of its units' buckets and waits
// for their pending counts to drain: the two sides pass each other through
// sequentially consistent atomics, as wait_barrier/raise_barrier do.
//
// Writes never block their thread (it must keep reaping its own
// completions): a write that meets a raised barrier is parked and handed
// back through `resume` when the piece is lowered.
#pragma once
#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <utility>
#include <vector>

#include "raid/array_io.hpp"

namespace rs::raid {

class ResyncBarrier {
 public:
  static constexpr unsigned kUnitSectorBits = 17;  // 64 MiB of array sectors
  static constexpr unsigned kBucketBits = 10;
  static constexpr size_t kBuckets = size_t(1) << kBucketBits;
  // The bucket of array sector `sector` (md's sector_to_idx).
  static size_t bucket_of(uint64_t sector) {
    return size_t(((sector >> kUnitSectorBits) * 0x61C8864680B583EBull) >> (64 - kBucketBits));
  }

  // Called (on the maintenance thread, without the barrier's lock) for each
  // write parked at a piece that is now lowered.
  void set_resume(std::function<void(ArrayIo&)> resume) { resume_ = std::move(resume); }

  // ---- write side (I/O path) ----
  // Returns false when the write was parked.
  bool enter(ArrayIo& io);
  void leave(ArrayIo& io);

  // ---- maintenance side ----
  // Holds writes to the barrier units of array sectors [lo, hi) for its
  // lifetime, after waiting for the writes running there to finish. One
  // piece at a time (a rebuild and a check running together take turns).
  class Piece {
   public:
    Piece(ResyncBarrier& b, uint64_t lo, uint64_t hi);
    ~Piece();
    Piece(const Piece&) = delete;
    Piece& operator=(const Piece&) = delete;

   private:
    ResyncBarrier& b_;
  };

 private:
  // The array sectors [lo, hi) a write covers: it counts in the buckets of
  // their barrier units (enter and leave must agree on them).
  static std::pair<uint64_t, uint64_t> sectors_of(const ArrayIo& io);
  // Calls fn(bucket) for the bucket of each barrier unit of sectors [lo, hi).
  template <class Fn>
  static void for_each_bucket(uint64_t lo, uint64_t hi, Fn&& fn);
  // Counts io pending in its buckets; false (and nothing counted) when one
  // of them has its barrier raised.
  bool try_count(uint64_t lo, uint64_t hi);
  void uncount(uint64_t lo, uint64_t hi);
  bool any_raised(uint64_t lo, uint64_t hi) const;

  std::function<void(ArrayIo&)> resume_;
  std::array<std::atomic<int>, kBuckets> nr_pending_{};
  std::array<std::atomic<int>, kBuckets> barrier_{};
  std::mutex mutex_;  // raising and lowering, parking, a piece's waiting
  std::condition_variable cv_;
  bool raised_ = false;       // a piece is up
  uint64_t lo_ = 0, hi_ = 0;  // its sectors
  std::vector<ArrayIo*> parked_;
};

}  // namespace rs::raid
