#include "session/client.hpp"

#include "session/array_session.hpp"

namespace rs::session {

const char* client_kind_name(ClientKind kind) {
  switch (kind) {
    case ClientKind::cli:
      return "cli";
    case ClientKind::gui:
      return "gui";
    case ClientKind::bench:
      return "bench";
    case ClientKind::task:
      return "task";
    case ClientKind::export_:
      return "export";
  }
  return "?";
}

Client& Client::operator=(Client&& o) noexcept {
  if (this != &o) {
    detach();
    session_ = std::move(o.session_);
    record_ = std::move(o.record_);
  }
  return *this;
}

raid::Array& Client::array() const {
  // Attached clients keep the close from releasing the array.
  return *session_->array_;
}

void Client::detach() {
  if (!record_) return;
  session_->detach(record_);
  record_.reset();
  session_.reset();  // may be the last reference: the session closes here
}

}  // namespace rs::session
