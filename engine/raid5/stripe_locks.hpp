// Exclusive locks on stripes (rows of one chunk per member), so that two
// array I/Os never compute parity from each other's half-written stripe:
// a write holds its stripes from its pre-reads to its last member write, a
// read that reconstructs a missing member's data holds them while it reads
// the rest of the stripe. An I/O takes all its stripes at once or none
// (no lock order, so no deadlock); one that finds a stripe busy waits on
// it, not blocking its thread: its `resume` is called (from the releasing
// thread) when that stripe is released, and it tries again.
#pragma once
#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <unordered_map>
#include <vector>

namespace rs::raid5 {

class StripeLocks {
 public:
  using Resume = std::function<void()>;
  // True: every stripe in `stripes` is now held by the caller. False: one
  // was busy; `resume` runs once it is released (then call again).
  bool try_lock_all(std::span<const uint64_t> stripes, Resume resume);
  // Releases stripes held by try_lock_all; runs the waiters' resumes.
  void unlock_all(std::span<const uint64_t> stripes);
  size_t held() const;

 private:
  struct Entry {
    std::vector<Resume> waiters;
  };
  mutable std::mutex mutex_;
  std::unordered_map<uint64_t, Entry> held_;
};

}  // namespace rs::raid5
