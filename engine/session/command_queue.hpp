// The session's command thread: management commands (fail, add, check,
// tunables, profiles, close) run on it one at a time, in the order they
// were posted, so they never race each other and no client's thread waits
// on superblock writes or profile files.
//
// Posted work must not throw. stop() runs what was posted before it and
// joins; work posted after stop() is refused (post() returns false and the
// caller answers it). The queue may be destroyed from one of its own
// closures (the session's last reference dropped there): the thread then
// finishes on state of its own and is detached.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <thread>

namespace rs::session {

class CommandQueue {
 public:
  explicit CommandQueue(std::string name);
  ~CommandQueue();  // stop()
  CommandQueue(const CommandQueue&) = delete;
  CommandQueue& operator=(const CommandQueue&) = delete;

  // Any thread: queues `work`; false (nothing queued) once stopping.
  bool post(std::function<void()> work);
  // Runs what is queued, then ends the thread. Called on the thread itself
  // (from posted work) it only asks; the thread ends after that closure.
  void stop();
  bool on_thread() const { return std::this_thread::get_id() == thread_id_; }

 private:
  struct State;
  std::shared_ptr<State> state_;  // shared with the thread
  std::thread thread_;
  std::thread::id thread_id_;
};

}  // namespace rs::session
