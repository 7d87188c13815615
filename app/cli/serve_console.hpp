// What an admin types into a running `serve` (one command a line on its
// standard input): the CLI is one process per command, and the array's
// members are locked by the serving process, so failing, adding and
// rebuilding members while clients run goes through here.
//   fail PATH    mark PATH faulty (mdadm --fail); serving goes on degraded
//   add PATH     put PATH in the missing or failed slot and rebuild onto it
//   status       the array's state and the connected clients
//   stop         stop serving (as Ctrl-C)
#pragma once
#include <memory>
#include <string>

#include "session/array_session.hpp"

namespace rs::cli {

class ServeConsole {
 public:
  explicit ServeConsole(std::shared_ptr<session::ArraySession> session) : session_(std::move(session)) {}
  // Waits up to `timeout_ms` for input on stdin and runs the complete
  // lines that came. Returns false once `stop` was typed.
  bool poll(int timeout_ms);

 private:
  bool run(const std::string& line);
  void status() const;

  std::shared_ptr<session::ArraySession> session_;
  std::string pending_;
  bool eof_ = false;
};

// "12.3 MiB" style sizes for the serve output.
std::string serve_human(uint64_t bytes);

}  // namespace rs::cli
