#include "export/socket_io.hpp"

#include <sys/socket.h>
#include <sys/time.h>

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

constexpr size_t kIovPerCall = 64;  // well under IOV_MAX

// Sends the `n` buffers of `iov` from byte `done` on with `flags`; returns
// the bytes written by this call, stopping at EAGAIN (false in *failed) or
// an error (true).
size_t send_from(int fd, const iovec* iov, size_t n, size_t done, int flags, bool* failed) {
  *failed = false;
  size_t first = 0, skip = done;  // where byte `done` is: iov[first], `skip` bytes in
  while (first < n && skip >= iov[first].iov_len) skip -= iov[first++].iov_len;
  size_t wrote = 0;
  while (first < n) {
    iovec part[kIovPerCall];
    size_t k = 0;
    for (size_t i = first; i < n && k < kIovPerCall; ++i, ++k) part[k] = iov[i];
    part[0].iov_base = static_cast<uint8_t*>(part[0].iov_base) + skip;
    part[0].iov_len -= skip;
    msghdr msg{};
    msg.msg_iov = part;
    msg.msg_iovlen = k;
    const ssize_t sent = ::sendmsg(fd, &msg, flags | MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent < 0 && (flags & MSG_DONTWAIT) && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
    if (sent <= 0) {
      *failed = true;
      break;
    }
    wrote += size_t(sent);
    skip += size_t(sent);
    while (first < n && skip >= iov[first].iov_len) skip -= iov[first++].iov_len;
  }
  return wrote;
}

}  // namespace

bool write_all(int fd, const void* a, size_t an, const void* b, size_t bn, size_t from) {
  const iovec iov[2] = {{const_cast<void*>(a), an}, {const_cast<void*>(b), bn}};
  bool failed = false;
  return send_from(fd, iov, 2, from, 0, &failed) == an + bn - from && !failed;
}

size_t write_now(int fd, const iovec* iov, size_t n, bool* failed) {
  return send_from(fd, iov, n, 0, MSG_DONTWAIT, failed);
}

void set_send_timeout(int fd, unsigned seconds) {
  timeval tv{};
  tv.tv_sec = seconds;
  (void)::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

void set_buffer_sizes(int fd, int bytes) {
  (void)::setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
  (void)::setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
}

}  // namespace rs::nbd
