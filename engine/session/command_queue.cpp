#include "session/command_queue.hpp"

#include <pthread.h>

#include <condition_variable>
#include <deque>
#include <mutex>

namespace rs::session {

struct CommandQueue::State {
  std::mutex mutex;
  std::condition_variable cv;
  std::deque<std::function<void()>> queue;
  bool stopping = false;
};

CommandQueue::CommandQueue(std::string name) : state_(std::make_shared<State>()) {
  thread_ = std::thread([state = state_, name = std::move(name)] {
    ::pthread_setname_np(::pthread_self(), name.substr(0, 15).c_str());  // for top -H and debuggers
    std::unique_lock lock(state->mutex);
    for (;;) {
      state->cv.wait(lock, [&] { return state->stopping || !state->queue.empty(); });
      if (state->queue.empty()) return;
      auto work = std::move(state->queue.front());
      state->queue.pop_front();
      lock.unlock();
      work();
      work = nullptr;  // what it captured goes before the next one runs
      lock.lock();
    }
  });
  thread_id_ = thread_.get_id();
}

CommandQueue::~CommandQueue() {
  stop();
  if (thread_.joinable()) thread_.detach();  // destroyed from its own closure: it ends on its own state
}

bool CommandQueue::post(std::function<void()> work) {
  {
    std::lock_guard lock(state_->mutex);
    if (state_->stopping) return false;
    state_->queue.push_back(std::move(work));
  }
  state_->cv.notify_one();
  return true;
}

void CommandQueue::stop() {
  {
    std::lock_guard lock(state_->mutex);
    state_->stopping = true;
  }
  state_->cv.notify_all();
  if (!on_thread() && thread_.joinable()) thread_.join();
}

}  // namespace rs::session
