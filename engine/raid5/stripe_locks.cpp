#include "raid5/stripe_locks.hpp"

namespace rs::raid5 {

bool StripeLocks::try_lock_all(std::span<const uint64_t> stripes, Resume resume) {
  std::lock_guard lock(mutex_);
  for (uint64_t s : stripes) {
    auto it = held_.find(s);
    if (it != held_.end()) {
      it->second.waiters.push_back(std::move(resume));
      return false;
    }
  }
  for (uint64_t s : stripes) held_.emplace(s, Entry{});
  return true;
}

void StripeLocks::unlock_all(std::span<const uint64_t> stripes) {
  std::vector<Resume> wake;
  {
    std::lock_guard lock(mutex_);
    for (uint64_t s : stripes) {
      auto it = held_.find(s);
      if (it == held_.end()) continue;
      for (auto& w : it->second.waiters) wake.push_back(std::move(w));
      held_.erase(it);
    }
  }
  for (auto& w : wake) w();
}

size_t StripeLocks::held() const {
  std::lock_guard lock(mutex_);
  return held_.size();
}

}  // namespace rs::raid5
