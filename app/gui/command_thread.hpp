// One thread that runs the GUI's engine commands (a tunable set, a member
// failed, a task started) in order, so the GUI thread never waits on the
// engine: a device-profile switch reads a JSON file, a fail writes
// superblocks. Results come back through QMetaObject::invokeMethod on the
// GUI thread (the caller's lambda does that).
#pragma once
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

namespace rs::gui {

class CommandThread {
 public:
  CommandThread() : thread_([this] { loop(); }) {}
  ~CommandThread() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    cv_.notify_all();
    thread_.join();  // runs what was queued first
  }
  CommandThread(const CommandThread&) = delete;
  CommandThread& operator=(const CommandThread&) = delete;

  void post(std::function<void()> work) {
    {
      std::lock_guard lock(mutex_);
      queue_.push_back(std::move(work));
    }
    cv_.notify_one();
  }

 private:
  void loop() {
    std::unique_lock lock(mutex_);
    for (;;) {
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      auto work = std::move(queue_.front());
      queue_.pop_front();
      lock.unlock();
      work();
      lock.lock();
    }
  }
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::thread thread_;  // last: started once the rest exists
};

}  // namespace rs::gui
