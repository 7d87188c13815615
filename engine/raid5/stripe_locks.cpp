#include "raid5/stripe_locks.hpp"

namespace rs::raid5 {

bool StripeLocks::try_lock_all(std::span<const uint64_t> stripes, Waiter waiter) {
  std::lock_guard lock(mutex_);
  for (uint64_t s : stripes) {
    auto it = held_.find(s);
    if (it != held_.end()) {
      it->second.waiters.push_back(std::move(waiter));
      return false;
    }
  }
  for (uint64_t s : stripes) held_.emplace(s, Entry{});
  return true;
}

std::vector<StripeLocks::Waiter> StripeLocks::unlock_all(std::span<const uint64_t> stripes) {
  std::vector<Waiter> wake;
  {
    std::lock_guard lock(mutex_);
    for (uint64_t s : stripes) {
      auto it = held_.find(s);
      if (it == held_.end()) continue;
      for (auto& w : it->second.waiters) wake.push_back(std::move(w));
      held_.erase(it);
    }
  }
  return wake;
}

void StripeLocks::resume(std::vector<Waiter>& woken, io::IoContext* here) {
  for (auto& w : woken) {
    if (w.context == here)
      w.resume();
    else
      w.context->post(std::move(w.resume));
  }
}

size_t StripeLocks::held() const {
  std::lock_guard lock(mutex_);
  return held_.size();
}

}  // namespace rs::raid5
