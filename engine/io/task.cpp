#include "io/task.hpp"

namespace rs::io {

void TaskState::finish(Status result) {
  {
    std::lock_guard lock(mutex_);
    if (finished_.load(std::memory_order_relaxed)) return;  // the first result stands
    result_ = std::move(result);
    finished_.store(true, std::memory_order_release);
  }
  cv_.notify_all();
}

Status TaskState::wait() {
  std::unique_lock lock(mutex_);
  cv_.wait(lock, [this] { return finished_.load(std::memory_order_relaxed); });
  return result_;
}

std::optional<Status> TaskState::wait_for(std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  if (!cv_.wait_for(lock, timeout, [this] { return finished_.load(std::memory_order_relaxed); }))
    return std::nullopt;
  return result_;
}

}  // namespace rs::io
