// The reply to a session command: the caller may wait for it (with or
// without a time limit) or hand it a callback that runs when it is there.
//
// A command runs on the session's command thread; its result is a Status or
// a Result<T>, set exactly once. Every command the session accepts is
// answered, also when the session closes before it ran (Errc::cancelled), so
// a wait never hangs on a dropped command and nothing throws (std::future
// would throw broken_promise across the thread).
#pragma once
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace rs::session {

template <class R>  // Status or Result<T>
class Pending {
 public:
  using Callback = std::function<void(const R&)>;

  // A reply nobody has answered yet.
  Pending() : state_(std::make_shared<State>()) {}
  // One answered already (a command refused before it was queued).
  static Pending ready_with(R value) {
    Pending p;
    p.set(std::move(value));
    return p;
  }

  // Blocks until answered; returns the result.
  R wait() const {
    std::unique_lock lock(state_->mutex);
    state_->cv.wait(lock, [&] { return state_->value.has_value(); });
    return *state_->value;
  }
  // Waits at most `timeout`; nullopt when not answered yet.
  std::optional<R> wait_for(std::chrono::milliseconds timeout) const {
    std::unique_lock lock(state_->mutex);
    if (!state_->cv.wait_for(lock, timeout, [&] { return state_->value.has_value(); })) return std::nullopt;
    return *state_->value;
  }
  bool ready() const {
    std::lock_guard lock(state_->mutex);
    return state_->value.has_value();
  }
  // Runs `done` with the result: at once on the caller's thread when it is
  // already answered, else on the thread that answers (the command thread).
  // `done` must not block on the session's commands.
  void on_done(Callback done) const {
    std::unique_lock lock(state_->mutex);
    if (!state_->value) {
      state_->callbacks.push_back(std::move(done));
      return;
    }
    R value = *state_->value;
    lock.unlock();
    done(value);
  }

  // The answering side (the session): the first answer stands.
  void set(R value) const {
    std::vector<Callback> callbacks;
    {
      std::lock_guard lock(state_->mutex);
      if (state_->value) return;
      state_->value.emplace(std::move(value));
      callbacks.swap(state_->callbacks);
    }
    state_->cv.notify_all();
    for (auto& c : callbacks) c(*state_->value);  // the value never changes once set
  }

 private:
  struct State {
    mutable std::mutex mutex;
    std::condition_variable cv;
    std::optional<R> value;
    std::vector<Callback> callbacks;
  };
  std::shared_ptr<State> state_;
};

}  // namespace rs::session
