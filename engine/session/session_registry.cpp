#include "session/session_registry.hpp"

#include <algorithm>

#include "session/array_session.hpp"

namespace rs::session {

namespace {

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v)
    if (!x.empty()) s += (s.empty() ? "" : ", ") + x;
  return s;
}

bool same_as_any(const discovery::Identity& id, const std::vector<discovery::Identity>& ids) {
  return std::any_of(ids.begin(), ids.end(), [&](const auto& o) { return discovery::same_storage(id, o); });
}

}  // namespace

SessionRegistry& SessionRegistry::instance() {
  // Never destroyed: a session may still be closing on its own thread when
  // the process exits, and its close leaves the registry last.
  static SessionRegistry* registry = new SessionRegistry;
  return *registry;
}

Result<Lookup> SessionRegistry::find(const std::vector<std::string>& paths) {
  // What the given paths are; one that cannot be identified (a new file)
  // matches no open member.
  std::vector<discovery::Identity> given;
  for (const auto& p : paths)
    if (auto id = discovery::identify(p)) given.push_back(std::move(*id));
  // Looked at outside the lock: dropping the last reference to a session
  // closes it, and its close takes this registry's lock.
  for (const Entry& e : entries()) {
    auto s = e.session.lock();
    if (!s) return Lookup{nullptr, e.closed};  // being destroyed: wait until its members are free
    const auto ids = s->member_identities();
    size_t matched = 0;
    for (const auto& g : given) matched += same_as_any(g, ids) ? 1 : 0;
    if (matched == 0) continue;
    if (!s->is_open()) return Lookup{nullptr, e.closed};
    const bool all_open_given =
        std::all_of(ids.begin(), ids.end(), [&](const auto& id) { return same_as_any(id, given); });
    if (matched == paths.size() && all_open_given) return Lookup{s, std::nullopt};
    return make_error(Errc::busy, "the array of " + joined(s->member_paths()) +
                                      " is open in this program; open it with exactly those members "
                                      "(given: " +
                                      joined(paths) + ")");
  }
  return Lookup{};
}

std::vector<SessionRegistry::Entry> SessionRegistry::entries() {
  std::lock_guard lock(entries_mutex_);
  return entries_;
}

void SessionRegistry::add(const std::shared_ptr<ArraySession>& session) {
  std::lock_guard lock(entries_mutex_);
  entries_.push_back({session, session.get(), session->closed_});
}

void SessionRegistry::remove(const ArraySession* session) {
  std::lock_guard lock(entries_mutex_);
  entries_.erase(
      std::remove_if(entries_.begin(), entries_.end(), [&](const Entry& e) { return e.raw == session; }),
      entries_.end());
}

std::vector<std::shared_ptr<ArraySession>> SessionRegistry::open_sessions() {
  std::vector<std::shared_ptr<ArraySession>> out;
  for (const Entry& e : entries())
    if (auto s = e.session.lock(); s && s->is_open()) out.push_back(std::move(s));
  return out;
}

}  // namespace rs::session
