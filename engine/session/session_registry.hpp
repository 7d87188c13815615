// The process-wide table of open sessions (private to engine/session): one
// owner per array per process. Members are compared by identity
// (discovery::same_storage), so a loop device and the file behind it, or a
// symlink and its target, are the same member.
#pragma once
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "discovery/identity.hpp"
#include "session/pending.hpp"

namespace rs::session {

class ArraySession;

// What a lookup found.
struct Lookup {
  std::shared_ptr<ArraySession> session;   // the open session of exactly these members
  std::optional<Pending<Status>> closing;  // one of them is closing: wait for this, then look again
};

class SessionRegistry {
 public:
  static SessionRegistry& instance();

  // Held by an open or create from its lookup until its session is added,
  // so two threads opening the same members do not both assemble.
  std::unique_lock<std::mutex> lock_opens() { return std::unique_lock(opens_); }
  // The session whose members are exactly `paths` (by identity); empty
  // when none of them is open here; Errc::busy naming the open array when
  // some are open with other members.
  Result<Lookup> find(const std::vector<std::string>& paths);
  void add(const std::shared_ptr<ArraySession>& session);
  void remove(const ArraySession* session);
  std::vector<std::shared_ptr<ArraySession>> open_sessions();

 private:
  struct Entry {
    std::weak_ptr<ArraySession> session;
    const ArraySession* raw = nullptr;
    Pending<Status> closed;
  };
  std::vector<Entry> entries();  // a copy, taken under the lock
  std::mutex opens_;
  std::mutex entries_mutex_;
  std::vector<Entry> entries_;
};

}  // namespace rs::session
