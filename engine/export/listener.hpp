// The listening socket of an export.
#pragma once
#include "base/result.hpp"
#include "export/listen_address.hpp"

namespace rs::nbd {

// A listening socket on `a` (close-on-exec); for tcp:HOST:0 sets a.port to
// the port bound. A unix socket is made mode 0600 (only its owner may
// connect). A stale socket file (nobody listening) is replaced;
// Errc::busy when a server listens there, Errc::refused when the path is
// something other than a socket.
Result<int> open_listener(ListenAddress& a);

}  // namespace rs::nbd
