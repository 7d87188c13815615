// ArraySession::command, the one way a command is queued (private to
// engine/session: the .cpp files that define commands include it).
#pragma once
#include "session/array_session.hpp"

namespace rs::session {

template <class R>
Pending<R> ArraySession::command(const std::string& name, std::function<R(raid::Array&)> body) {
  Pending<R> reply;
  if (!is_open()) {
    reply.set(closed_error(name));
    return reply;
  }
  std::weak_ptr<ArraySession> self = weak_from_this();
  // The closure holds the session only while it runs; queued behind a
  // close, it finds the array gone and says so. The reply comes once it let
  // go: if that was the last reference, the session has closed by then.
  const bool queued = queue_.post([self, reply, name, body = std::move(body)] {
    auto s = self.lock();
    if (!s || !s->array_) return reply.set(closed_error(name));
    R result = body(*s->array_);
    s.reset();
    reply.set(std::move(result));
  });
  if (!queued) reply.set(closed_error(name));
  return reply;
}

}  // namespace rs::session
