// Cancellable long operations (rebuild, check, repair, resync, a benchmark
// run) with progress and a result.
//
// The engine starts the work (usually on a ContextThread) and hands the
// caller a TaskHandle; the work reports through a TaskControl. Both sides
// share one TaskState, so any thread may read progress, ask for cancel or
// wait for the result, and the work may finish on any thread.
//
// Cancel is cooperative: cancel() sets a flag the work checks between
// pieces (a rebuild piece is at most a few MiB, so it stops within a small
// fraction of a second); the work then records where it got (a rebuild
// checkpoint) and finishes with Errc::cancelled.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "base/result.hpp"

namespace rs::io {

struct TaskProgress {
  uint64_t done = 0, total = 0;  // in `unit`s
  const char* unit = "bytes";
};

// Shared by the handle and the work.
class TaskState {
 public:
  explicit TaskState(std::string name) : name_(std::move(name)) {}
  const std::string& name() const { return name_; }

  // Work side.
  void set_total(uint64_t total) { total_.store(total, std::memory_order_relaxed); }
  void set_done(uint64_t done) { done_.store(done, std::memory_order_relaxed); }
  bool cancel_requested() const { return cancel_.load(std::memory_order_relaxed); }
  // Finishes the task and wakes every waiter. Exactly once: a later call
  // is ignored and the first result stands.
  void finish(Status result);

  // Any side.
  void cancel() { cancel_.store(true, std::memory_order_relaxed); }
  TaskProgress progress() const {
    return {done_.load(std::memory_order_relaxed), total_.load(std::memory_order_relaxed)};
  }
  bool finished() const { return finished_.load(std::memory_order_acquire); }
  // Blocks until finished; returns its result.
  Status wait();
  // Waits at most `timeout`; nullopt when still running.
  std::optional<Status> wait_for(std::chrono::milliseconds timeout);

 private:
  std::string name_;
  std::atomic<uint64_t> done_{0}, total_{0};
  std::atomic<bool> cancel_{false};
  std::atomic<bool> finished_{false};
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  Status result_;
};

using TaskHandle = std::shared_ptr<TaskState>;

inline TaskHandle make_task(std::string name) {
  return std::make_shared<TaskState>(std::move(name));
}

}  // namespace rs::io
