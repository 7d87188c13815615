// md's resync barrier, in user space: while a maintenance task (rebuild,
// resync, check/repair) copies or compares a piece of the array, writes to
// that piece are held off, and the piece waits for the writes already
// running over it.
//
// Writes never block their thread (it must keep reaping its own
// completions): a write to the piece being worked on is parked and handed
// back through `resume` when the piece is lowered. Outside maintenance a
// write costs one shared atomic counter; while a task runs, writes register
// their range under a mutex so the task can wait for overlapping ones.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

#include "raid/array_io.hpp"

namespace rs::raid {

class ResyncBarrier {
 public:
  // Called (on the maintenance thread, without the barrier's lock) for each
  // write parked at a piece that is now lowered.
  void set_resume(std::function<void(ArrayIo&)> resume) { resume_ = std::move(resume); }

  // ---- write side (I/O path) ----
  // Returns false when the write was parked.
  bool enter(ArrayIo& io);
  void leave(ArrayIo& io);

  // ---- maintenance side ----
  // Writes take part in the barrier while a Scope lives; its constructor
  // waits for the writes that started outside it.
  class Scope {
   public:
    explicit Scope(ResyncBarrier& b);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    ResyncBarrier& b_;
  };
  // Holds writes to array sectors [lo, hi) for its lifetime, after waiting
  // for registered writes there to finish. One piece at a time (a rebuild
  // and a check running together take turns).
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
  static bool overlaps(const ArrayIo& io, uint64_t lo, uint64_t hi);

  std::function<void(ArrayIo&)> resume_;
  std::atomic<int> users_{0};
  std::atomic<int64_t> unregistered_{0};
  std::mutex mutex_;
  std::condition_variable cv_;
  uint64_t lo_ = 0, hi_ = 0;  // held range; empty when equal
  std::vector<ArrayIo*> registered_;
  std::vector<ArrayIo*> parked_;
};

}  // namespace rs::raid
