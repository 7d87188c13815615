#include "cli_support.hpp"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>

#include "io/member_device.hpp"
#include "raid/array.hpp"

namespace rs::cli {

namespace {
// Lock-free, so async-signal-safe to store, and safe to read from any thread.
std::atomic<int> g_signal{0};
static_assert(std::atomic<int>::is_always_lock_free);

// Every signal whose default action ends the process, and that a user, a
// terminal or a pipe sends to stop a command: each would otherwise leave
// the array marked active (a full resync on the next start without a
// bitmap).
constexpr int kStopSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGUSR1, SIGUSR2, SIGALRM};

void on_signal(int sig) {
  const int saved = errno;  // the interrupted code may be about to read it
  int expected = 0;
  g_signal.compare_exchange_strong(expected, sig, std::memory_order_relaxed);  // the first one names the stop
  if (sig == SIGINT || sig == SIGTERM) {
    // A second Ctrl-C or SIGTERM is the user insisting: not ours to soften.
    std::signal(sig, SIG_DFL);
  } else {
    // A closed terminal or pipe signals again on every later write (the
    // progress line, the final message): ignored, so the close goes on.
    std::signal(sig, SIG_IGN);
  }
  errno = saved;
}
}  // namespace

[[noreturn]] void raise(const Error& e) {
  if (e.is_usage()) throw UsageError(e.message);
  switch (e.consent) {
    case Consent::overwrite:
      throw RuntimeError(e.message + " (use --force to overwrite)");
    case Consent::start_degraded:
      throw RuntimeError(e.message + " (use --run to start it degraded)");
    case Consent::start_dirty_degraded:
      throw RuntimeError(e.message + " (use --force-dirty-degraded to start it anyway)");
    case Consent::none:
      break;
  }
  throw RuntimeError(e.message);
}

void allow_unprotected_members(bool force) {
  io::MemberDevice::allow_unprotected_storage(force);
}

void warn_unprotected_members(const raid::Array& array, const char* command) {
  const raid::TableRef t = array.table();
  for (const raid::Member& m : t->members)
    if (m.dev && !m.dev->info().lock_note.empty())
      std::fprintf(stderr, "raidscope-cli %s: warning: %s\n", command, m.dev->info().lock_note.c_str());
}

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  // No SA_RESTART: a blocking read of standard input returns EINTR, so a
  // command waiting for input sees the signal at once.
  for (int sig : kStopSignals) sigaction(sig, &sa, nullptr);
}

int interrupted_signal() {
  return g_signal.load(std::memory_order_relaxed);
}

Status wait_for_task(const io::TaskHandle& task, const std::string& what) {
  ProgressPrinter printer(what);
  bool cancelled = false;
  for (;;) {
    if (auto r = task->wait_for(std::chrono::milliseconds(100))) {
      if (r->ok()) {
        const auto p = task->progress();
        printer.update(p.total, p.total);  // the last line says 100% even for a quick task
        printer.finish();
      }
      return *r;
    }
    const auto p = task->progress();
    printer.update(p.done, p.total);
    if (!cancelled && interrupted_signal()) {
      task->cancel();
      cancelled = true;
    }
  }
}

}  // namespace rs::cli
