// A command's array: an engine ArraySession that lives for one command,
// with the command as its one client (session/array_session.hpp). Closing
// it (close_or_throw) writes md's clean mark and records the resync point,
// as every array command ends.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "raid/array.hpp"
#include "session/array_session.hpp"

namespace rs::cli {

struct OpenArray {
  std::shared_ptr<session::ArraySession> session;
  session::Client client;  // the command, attached until close_or_throw
  raid::Array& array() { return client.array(); }
  raid::Array* operator->() { return &client.array(); }

  OpenArray() = default;
  OpenArray(OpenArray&&) = default;
  OpenArray& operator=(OpenArray&&) = default;
  // A command that ends early (an error thrown) still closes the array,
  // and the process never exits while its close runs on another thread.
  ~OpenArray();
};

// Opens the members' array for `command` (warns about members not used and
// members whose storage is not locked); UsageError without members, the
// engine's error otherwise.
OpenArray open_or_throw(const std::vector<std::string>& members, const raid::AssembleOptions& options,
                        const std::string& command);

// Leaves and closes the array (clean mark, resync point recorded); then, if
// a signal stopped the command, says so (`how_far`: what it had done) and
// exits 128 + signal.
void close_or_throw(OpenArray& array, const std::string& how_far = "");

// A task that ends cancelled because of a signal stops the command cleanly.
void task_outcome(OpenArray& array, const Status& s);

}  // namespace rs::cli
