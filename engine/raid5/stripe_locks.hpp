// Exclusive locks on stripes (rows of one chunk per member), so that two
// array I/Os never compute parity from each other's half-written stripe:
// a write holds its stripes from its pre-reads to its last member write, a
// read that reconstructs a missing member's data holds them while it reads
// the rest of the stripe. An I/O takes all its stripes at once or none
// (no lock order, so no deadlock); one that finds a stripe busy waits on
// it, not blocking its thread: when that stripe is released, its waiter is
// handed back to the releaser, who resumes it on the waiter's own I/O
// context (at once when that is the releaser's: the simulator has one
// context and runs nothing posted; posted otherwise).
#pragma once
#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <unordered_map>
#include <vector>

#include "io/context.hpp"

namespace rs::raid5 {

class StripeLocks {
 public:
  struct Waiter {
    io::IoContext* context = nullptr;  // where `resume` must run
    std::function<void()> resume;
  };
  // True: every stripe in `stripes` is now held by the caller. False: one
  // was busy; `waiter` is handed out when it is released (then call again).
  bool try_lock_all(std::span<const uint64_t> stripes, Waiter waiter);
  // Releases stripes held by try_lock_all; returns their waiters.
  [[nodiscard]] std::vector<Waiter> unlock_all(std::span<const uint64_t> stripes);
  // Resumes `woken` on their contexts: inline when it is `here`, else posted.
  static void resume(std::vector<Waiter>& woken, io::IoContext* here);
  size_t held() const;

 private:
  struct Entry {
    std::vector<Waiter> waiters;
  };
  mutable std::mutex mutex_;
  std::unordered_map<uint64_t, Entry> held_;
};

}  // namespace rs::raid5
