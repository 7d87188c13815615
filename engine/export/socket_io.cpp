#include "export/socket_io.hpp"

#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>

#include <cerrno>

namespace rs::nbd {

bool read_exact(int fd, void* buf, size_t n) {
  auto* p = static_cast<uint8_t*>(buf);
  while (n) {
    const ssize_t got = ::recv(fd, p, n, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    p += got;
    n -= size_t(got);
  }
  return true;
}

namespace {

// Sends a then b from offset `done` with `flags`; returns the bytes written
// by this call, stopping at EAGAIN (false in *failed) or an error (true).
size_t send_from(int fd, const void* a, size_t an, const void* b, size_t bn, size_t done, int flags,
                 bool* failed) {
  *failed = false;
  const size_t total = an + bn;
  size_t at = done;
  while (at < total) {
    iovec iov[2];
    int n = 0;
    if (at < an) iov[n++] = {static_cast<uint8_t*>(const_cast<void*>(a)) + at, an - at};
    if (bn) {
      const size_t from = at > an ? at - an : 0;
      iov[n++] = {static_cast<uint8_t*>(const_cast<void*>(b)) + from, bn - from};
    }
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = size_t(n);
    const ssize_t sent = ::sendmsg(fd, &msg, flags | MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent < 0 && (flags & MSG_DONTWAIT) && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (sent <= 0) {
      *failed = true;
      break;
    }
    at += size_t(sent);
  }
  return at - done;
}

}  // namespace

bool write_all(int fd, const void* a, size_t an, const void* b, size_t bn, size_t from) {
  bool failed = false;
  return send_from(fd, a, an, b, bn, from, 0, &failed) == an + bn - from && !failed;
}

size_t write_now(int fd, const void* a, size_t an, const void* b, size_t bn, bool* failed) {
  return send_from(fd, a, an, b, bn, 0, MSG_DONTWAIT, failed);
}

void set_send_timeout(int fd, unsigned seconds) {
  timeval tv{};
  tv.tv_sec = seconds;
  (void)::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

}  // namespace rs::nbd
