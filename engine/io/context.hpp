// I/O contexts: one Backend, the thread that drives it, and a queue any
// thread may post work to.
//
// A Backend is single-threaded (io_uring rings are set up single-issuer), so
// everything that touches one runs on the thread that owns it. Other threads
// reach that thread by posting: post() appends a closure to the context's
// queue and wakes the owner if it is blocked waiting for completions (an
// eventfd read armed in the ring for io_uring; a poll() on the eventfd for
// backends that cannot wait inside the kernel).
//
// Two ways to own a context:
//  - IoContext alone: the creating thread drives it by calling run_once()
//    (a job's loop, the CLI's blocking read/write helpers, the simulator's
//    single thread where the backend is the virtual-time one).
//  - ContextThread: a thread of its own that makes the backend on itself,
//    runs run_once() until stopped, and executes tasks posted to it (raid5d,
//    a rebuild, a benchmark job).
//
// Nothing here sleeps on the I/O path: waiting happens only inside
// run_once(), in the kernel (io_uring_enter) or in poll() on the eventfd.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "io/backend.hpp"

namespace rs::io {

inline constexpr uint64_t kNoDeadline = ~uint64_t{0};

class IoContext {
 public:
  // Takes the backend; must be called on the thread that will drive it
  // (the thread that made the backend).
  explicit IoContext(std::unique_ptr<Backend> backend, std::string name = "io");
  ~IoContext();
  IoContext(const IoContext&) = delete;
  IoContext& operator=(const IoContext&) = delete;

  // Owning thread only.
  Backend& backend() { return *backend_; }
  const std::string& name() const { return name_; }

  // Any thread: runs `fn` on the owning thread at its next run_once(), after
  // everything posted before it. Wakes a run_once() blocked in the kernel or
  // in poll(). Never blocks on I/O; allocation aside it cannot fail.
  void post(std::function<void()> fn);

  // Owning thread only. One turn of the loop: runs the posted work, then
  // reaps completions (their callbacks run here):
  //  - with I/O in flight, waits until at least `min_complete` completions
  //    ran, a post arrived, or `deadline_ns` (backend clock) passed;
  //  - with nothing in flight, waits for a post or the deadline;
  //  - min_complete 0 or a past deadline: does not wait.
  // Returns the number of completions and posted closures it ran.
  unsigned run_once(unsigned min_complete, uint64_t deadline_ns = kNoDeadline);

  // Posted closures waiting to run (approximate, any thread).
  size_t posted_pending() const { return posted_count_.load(std::memory_order_relaxed); }

 private:
  unsigned run_posted();
  void wait_idle(uint64_t deadline_ns);

  std::unique_ptr<Backend> backend_;
  std::string name_;
  int event_fd_ = -1;
  bool kernel_wakeup_ = false;  // the backend wakes its own reap() on the eventfd
  std::mutex mutex_;
  std::vector<std::function<void()>> posted_, running_;
  std::atomic<size_t> posted_count_{0};
};

// A thread that owns an IoContext. The backend is made on the new thread by
// `make_backend` (io_uring's single-issuer rule); the constructor returns
// once it exists. The thread runs run_once(1) until stop(), then drains:
// posted work still runs, and I/O in flight completes before the backend
// goes.
class ContextThread {
 public:
  using BackendFactory = std::function<std::unique_ptr<Backend>()>;
  ContextThread(std::string name, BackendFactory make_backend);
  ~ContextThread();  // stop() and join
  ContextThread(const ContextThread&) = delete;
  ContextThread& operator=(const ContextThread&) = delete;

  // Any thread.
  void post(std::function<void()> fn);
  void stop();
  bool on_thread() const { return std::this_thread::get_id() == thread_.get_id(); }
  // The context, for code already running on this thread (posted work).
  IoContext& context();

 private:
  void run(BackendFactory make_backend);

  std::string name_;
  std::unique_ptr<IoContext> ctx_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

}  // namespace rs::io
