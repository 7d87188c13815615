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
// A post costs no syscall unless the owner is (about to be) asleep: the
// owner raises a "sleeping" flag, then looks at the queue once more before
// it waits, and a poster that finds the flag raised clears it and writes
// the eventfd (Dekker's handshake, both sides sequentially consistent), so
// a post is never lost between the owner's last look and its sleep. At most
// one write per owner wait.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/result.hpp"
#include "base/unique_fd.hpp"
#include "io/backend.hpp"

namespace rs::io {

class SimBackend;

class IoContext {
 public:
  // Takes the backend; must be called on the thread that will drive it
  // (the thread that made the backend). Arms the backend's wakeup
  // (Backend::arm_wakeup) on the context's eventfd.
  explicit IoContext(std::unique_ptr<Backend> backend, std::string name = "io");
  // Owning thread. Closures still posted are dropped without running; the
  // backend's destructor completes I/O still in flight.
  ~IoContext();
  IoContext(const IoContext&) = delete;
  IoContext& operator=(const IoContext&) = delete;

  // Owning thread only.
  Backend& backend() { return *backend_; }
  const std::string& name() const { return name_; }
  // The context's ring failed (Backend::failed()): its I/O fails with the
  // ring's errno from then on, and run_once() waits in poll() rather than
  // in the kernel. failure() names the context and the error.
  bool failed() const { return backend_->failed(); }
  Status failure() const;

  // Any thread: runs `fn` on the owning thread at its next run_once(), after
  // everything posted before it. Wakes a run_once() blocked in the kernel or
  // in poll(). Never blocks on I/O; allocation aside it cannot fail. `fn`
  // must not throw.
  void post(std::function<void()> fn);

  // Owning thread only. One turn of the loop: runs the posted work, then
  // reaps completions (their callbacks run here):
  //  - with I/O in flight, waits until at least `min_complete` completions
  //    ran, a post arrived, or `deadline_ns` (backend clock) passed;
  //  - with nothing in flight, waits for a post or the deadline;
  //  - min_complete 0 or a past deadline: does not wait; nor when posted
  //    work ran at the start of the turn (that is the progress it reports).
  // Posted work that arrives during the wait runs before it returns.
  // A virtual-time backend (SimBackend) never waits on the wall clock: it
  // runs what is due, then, when fewer than min_complete ran and a deadline
  // is given, lets virtual time pass up to the deadline (running the
  // completions due by then); without a deadline it reaps like
  // reap(min_complete).
  // Returns the number of completions and posted closures it ran.
  unsigned run_once(unsigned min_complete, uint64_t deadline_ns = kNoDeadline);

  // Posted closures waiting to run (approximate, any thread).
  size_t posted_pending() const { return posted_count_.load(std::memory_order_relaxed); }

 private:
  friend class ContextThread;
  unsigned run_posted();
  unsigned run_virtual(unsigned min_complete, uint64_t deadline_ns);
  unsigned run_failed(unsigned min_complete, uint64_t deadline_ns);
  // Raises the sleeping flag; false (flag lowered again) when a post came.
  bool begin_sleep();
  void end_sleep() { sleeping_.store(false, std::memory_order_relaxed); }
  // Waits in poll() on the eventfd for a post or the deadline (call between
  // begin_sleep() and end_sleep()).
  void wait_idle(uint64_t deadline_ns);
  // For ContextThread: the backend goes (on the owning thread) while the
  // queue stays, so late posts from other threads touch live memory.
  void destroy_backend() { backend_.reset(); }

  std::unique_ptr<Backend> backend_;
  SimBackend* sim_ = nullptr;  // the backend, when it is the virtual-time one
  std::string name_;
  UniqueFd event_fd_;
  bool kernel_wakeup_ = false;  // the backend wakes its own reap() on the eventfd
  std::atomic<bool> sleeping_{false};
  std::mutex mutex_;
  std::vector<std::function<void()>> posted_, running_;
  std::atomic<size_t> posted_count_{0};
};

// A thread that owns an IoContext. The backend is made on the new thread by
// `make_backend` (io_uring's single-issuer rule); the constructor returns
// once it exists. The thread runs run_once(1) until stop(), then drains:
// posted work still runs, and I/O in flight completes before the backend
// goes (on the thread). If `make_backend` returns null (or throws: caught
// on the thread), status() says so,
// the thread has ended and posted work is dropped. A context whose ring
// fails later keeps running (IoContext::failed()): posted work still runs
// and its I/O fails with the ring's errno.
class ContextThread {
 public:
  using BackendFactory = std::function<std::unique_ptr<Backend>()>;
  ContextThread(std::string name, BackendFactory make_backend);
  ~ContextThread();  // stop() and join
  ContextThread(const ContextThread&) = delete;
  ContextThread& operator=(const ContextThread&) = delete;

  // Any thread.
  const Status& status() const { return status_; }
  void post(std::function<void()> fn);
  // Stops the loop, drains, and (called from another thread) joins: when
  // it returns, everything posted before it ran and all I/O completed.
  // From posted work on the thread itself it only asks; the thread drains
  // after that closure and the destructor joins. Work posted after stop()
  // returned never runs.
  void stop();
  bool on_thread() const { return std::this_thread::get_id() == thread_id_; }
  // The context, for code already running on this thread (posted work).
  IoContext& context();

 private:
  void run(BackendFactory make_backend);
  void drain();

  std::string name_;
  Status status_;
  std::unique_ptr<IoContext> ctx_;  // lives until the destructor
  std::atomic<bool> stopping_{false};
  std::thread::id thread_id_;
  std::mutex start_mutex_, stop_mutex_;
  std::condition_variable started_cv_;
  bool started_ = false;
  std::thread thread_;
};

}  // namespace rs::io
