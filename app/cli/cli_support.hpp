// What every raidscope-cli command shares: engine errors turned into the
// CLI's exit status, stop signals caught so a command stops cleanly, and
// waiting for an engine task with a progress line.
#pragma once
#include <string>

#include "args.hpp"
#include "base/result.hpp"
#include "io/task.hpp"

namespace rs::raid {
class Array;
}

namespace rs::cli {

// A command's --force, for members whose underlying storage cannot be
// identified or locked: used anyway (io::MemberDevice::allow_unprotected_storage)
// instead of refused.
void allow_unprotected_members(bool force);
// One warning on stderr for each member `array` uses although its storage
// is not locked (forced past that), saying why and what it risks.
void warn_unprotected_members(const raid::Array& array, const char* command);

// Throws UsageError (exit 2) for Errc::invalid_argument, RuntimeError
// (exit 1) otherwise, with the engine's message.
[[noreturn]] void raise(const Error& e);
inline void check(const Status& s) {
  if (!s) raise(s.error());
}
template <class T>
T check(Result<T> r) {
  if (!r) raise(r.error());
  return std::move(*r);
}

// Thrown when a command stopped because of a signal; main() exits with
// 128 + the signal (130 for SIGINT) after the message.
struct Interrupted : std::runtime_error {
  int signal;
  Interrupted(int sig, const std::string& what) : std::runtime_error(what), signal(sig) {}
};

// SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGUSR1, SIGUSR2 and SIGALRM only set a
// flag; commands poll it and stop cleanly, closing the array (a second
// SIGINT or SIGTERM kills the process as usual; the others are ignored
// after the first).
void install_interrupt_handlers();
int interrupted_signal();  // 0 when none arrived

// Waits for `task`, printing its progress as `what`; on a stop signal
// cancels it and waits for it to record where it got. Returns the task's
// result (Errc::cancelled when interrupted).
Status wait_for_task(const io::TaskHandle& task, const std::string& what);

}  // namespace rs::cli
