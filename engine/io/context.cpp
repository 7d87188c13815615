#include "io/context.hpp"

#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <ctime>
#include <exception>

#include "io/sim_backend.hpp"

namespace rs::io {

namespace {

// Without an eventfd (the process ran out of descriptors) posts cannot
// wake the owner, so it never sleeps longer than this and picks them up.
constexpr uint64_t kNoWakeupTick_ns = 1'000'000;
// A failed backend is polled for what the kernel still completes, and its
// ring may still hold the eventfd read that swallows a post's wakeup: the
// owner looks again at least this often.
constexpr uint64_t kFailedPollTick_ns = 1'000'000;

uint64_t min_deadline(uint64_t a, uint64_t b) {
  return a < b ? a : b;
}

}  // namespace

IoContext::IoContext(std::unique_ptr<Backend> backend, std::string name)
    : backend_(std::move(backend)), name_(std::move(name)) {
  if (backend_->virtual_time()) sim_ = dynamic_cast<SimBackend*>(backend_.get());
  // Blocking on purpose: io_uring fails a read of a non-blocking file with
  // -EAGAIN instead of waiting for it, and the poll() path reads only after
  // poll() said there is something to read.
  event_fd_.reset(::eventfd(0, EFD_CLOEXEC));
  if (event_fd_ && !backend_->virtual_time()) kernel_wakeup_ = backend_->arm_wakeup(event_fd_.get());
}

IoContext::~IoContext() {
  // The backend first: its armed read of the eventfd must be gone before
  // the descriptor is closed (and its number reused).
  backend_.reset();
}

Status IoContext::failure() const {
  const Status s = backend_->failure();
  if (s) return s;
  return make_error(s.error().code, "context '" + name_ + "': " + s.error().message);
}

void IoContext::post(std::function<void()> fn) {
  // All of it under the lock, the eventfd write included: the owner takes
  // the lock to collect the closure, so once it can run it (and, say,
  // complete the last I/O and destroy this context) the poster is done
  // touching the context.
  std::lock_guard lock(mutex_);
  posted_.push_back(std::move(fn));
  posted_count_.fetch_add(1, std::memory_order_seq_cst);
  // The load keeps a busy owner's flag line shared; only a poster that
  // sees the owner asleep pays for the exchange and the write.
  if (sleeping_.load(std::memory_order_seq_cst) && sleeping_.exchange(false, std::memory_order_seq_cst) &&
      event_fd_) {
    const uint64_t one = 1;
    ssize_t rc;
    do {
      rc = ::write(event_fd_.get(), &one, sizeof one);
    } while (rc < 0 && errno == EINTR);
  }
}

unsigned IoContext::run_posted() {
  if (posted_count_.load(std::memory_order_relaxed) == 0) return 0;
  // `running_` is a spare whose capacity is reused; moving it out first
  // keeps a nested run_once() (a closure driving the loop) safe.
  std::vector<std::function<void()>> batch = std::move(running_);
  running_.clear();
  {
    std::lock_guard lock(mutex_);
    batch.swap(posted_);
    posted_count_.store(0, std::memory_order_relaxed);
  }
  for (auto& fn : batch) fn();
  const auto n = unsigned(batch.size());
  batch.clear();
  if (running_.capacity() < batch.capacity()) running_ = std::move(batch);
  return n;
}

bool IoContext::begin_sleep() {
  sleeping_.store(true, std::memory_order_seq_cst);
  if (posted_count_.load(std::memory_order_seq_cst) == 0) return true;
  end_sleep();
  return false;
}

void IoContext::wait_idle(uint64_t deadline_ns) {
  uint64_t wait_ns = kNoDeadline;
  if (deadline_ns != kNoDeadline) {
    const uint64_t now = backend_->now_ns();
    wait_ns = deadline_ns > now ? deadline_ns - now : 0;
  }
  if (!event_fd_) wait_ns = std::min(wait_ns, kNoWakeupTick_ns);
  timespec ts{};
  timespec* timeout = nullptr;
  if (wait_ns != kNoDeadline) {
    ts = {time_t(wait_ns / 1'000'000'000ull), long(wait_ns % 1'000'000'000ull)};
    timeout = &ts;
  }
  pollfd pfd{event_fd_.get(), POLLIN, 0};
  const int rc = ::ppoll(&pfd, event_fd_ ? 1 : 0, timeout, nullptr);
  if (rc > 0 && (pfd.revents & POLLIN)) {
    // Cannot block: the counter is non-zero and only the owner reads it.
    uint64_t value;
    (void)!::read(event_fd_.get(), &value, sizeof value);
  }
}

unsigned IoContext::run_virtual(unsigned min_complete, uint64_t deadline_ns) {
  Backend& b = *backend_;
  unsigned got = b.reap(0);  // what is due now
  if (got >= min_complete) return got;
  if (deadline_ns == kNoDeadline || !sim_) return got + (b.in_flight() > 0 ? b.reap(min_complete - got) : 0);
  // Time passes completion by completion up to the deadline, as a real
  // owner would have waited for it.
  while (got < min_complete && sim_->next_completion_ns() <= deadline_ns)
    got += sim_->advance_to(sim_->next_completion_ns());
  if (got < min_complete) sim_->advance_to(deadline_ns);
  return got;
}

// A failed backend never waits in the kernel: what it has is reaped without
// waiting, and the owner waits in poll() for a post, the deadline, or the
// next look at the ring.
unsigned IoContext::run_failed(unsigned min_complete, uint64_t deadline_ns) {
  Backend& b = *backend_;
  const unsigned got = b.reap(0);
  if (got >= min_complete || (deadline_ns != kNoDeadline && b.now_ns() >= deadline_ns)) return got;
  if (!begin_sleep()) return got + run_posted() + b.reap(0);
  wait_idle(min_deadline(deadline_ns, b.now_ns() + kFailedPollTick_ns));
  end_sleep();
  return got + run_posted() + b.reap(0);
}

unsigned IoContext::run_once(unsigned min_complete, uint64_t deadline_ns) {
  Backend& b = *backend_;
  const unsigned ran = run_posted();
  if (ran > 0 || min_complete == 0) return ran + b.reap(0);
  if (b.virtual_time()) return run_virtual(min_complete, deadline_ns);
  if (b.failed()) return run_failed(min_complete, deadline_ns);
  if (!event_fd_) deadline_ns = min_deadline(deadline_ns, b.now_ns() + kNoWakeupTick_ns);
  if (deadline_ns != kNoDeadline && b.now_ns() >= deadline_ns) return b.reap(0);
  if (!begin_sleep()) return run_posted() + b.reap(0);
  unsigned got = 0;
  if (kernel_wakeup_ || b.in_flight() > 0)
    got = b.reap_until(min_complete, deadline_ns);
  else
    wait_idle(deadline_ns);
  end_sleep();
  return got + run_posted();
}

ContextThread::ContextThread(std::string name, BackendFactory make_backend) : name_(std::move(name)) {
  thread_ = std::thread([this, f = std::move(make_backend)]() mutable { run(std::move(f)); });
  std::unique_lock lock(start_mutex_);
  started_cv_.wait(lock, [this] { return started_; });
}

ContextThread::~ContextThread() {
  stop();
  // A stop() asked from the thread itself left the join to us.
  if (thread_.joinable()) thread_.join();
}

void ContextThread::post(std::function<void()> fn) {
  if (ctx_) ctx_->post(std::move(fn));
}

void ContextThread::stop() {
  stopping_.store(true, std::memory_order_release);
  if (on_thread()) return;  // the loop sees the flag when this closure returns
  std::lock_guard lock(stop_mutex_);
  if (!thread_.joinable()) return;
  if (ctx_) ctx_->post([] {});  // wakes the loop so it sees the flag
  thread_.join();
}

IoContext& ContextThread::context() {
  return *ctx_;
}

void ContextThread::run(BackendFactory make_backend) {
  // Linux names are at most 15 characters; a longer one is cut, not refused.
  pthread_setname_np(pthread_self(), name_.substr(0, 15).c_str());
  // The engine's factories never throw; a caller's might (a test's, a
  // library's), and nothing above this thread could catch it.
  std::unique_ptr<Backend> backend;
  try {
    backend = make_backend();
    if (!backend) status_ = make_error(Errc::unsupported, "context '" + name_ + "': it has no backend");
  } catch (const std::exception& e) {
    status_ = make_error(Errc::unsupported, "context '" + name_ + "': cannot make its backend: " + e.what());
  }
  if (backend) ctx_ = std::make_unique<IoContext>(std::move(backend), name_);
  {
    std::lock_guard lock(start_mutex_);
    thread_id_ = std::this_thread::get_id();
    started_ = true;
  }
  started_cv_.notify_all();
  if (!ctx_) return;
  while (!stopping_.load(std::memory_order_acquire)) {
    IoContext& ctx = *ctx_;
    if (ctx.backend().virtual_time() && ctx.backend().in_flight() == 0 && ctx.posted_pending() == 0) {
      // Virtual time never waits, and with nothing in flight nothing can
      // happen until a post: sleep on the eventfd rather than spin.
      if (ctx.begin_sleep()) {
        ctx.wait_idle(kNoDeadline);
        ctx.end_sleep();
      }
      continue;
    }
    ctx.run_once(1);
  }
  drain();
  ctx_->destroy_backend();
}

void ContextThread::drain() {
  IoContext& ctx = *ctx_;
  for (;;) {
    const bool io = ctx.backend().in_flight() > 0;
    if (!io && ctx.posted_pending() == 0) break;
    ctx.run_once(io ? 1 : 0);
  }
}

}  // namespace rs::io
