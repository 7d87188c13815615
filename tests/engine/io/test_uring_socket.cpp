// The io_uring backend's socket send (Backend::queue_send): the iovecs'
// bytes reach the peer in order, in the same submission as other I/O, and a
// socket without room completes at once with -EAGAIN instead of holding the
// send inside the ring (the NBD export hands what is left to a thread that
// may wait, and a client that stops reading must not pin a connection).
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <vector>

#include "base/unique_fd.hpp"
#include "io/clock.hpp"
#include "real_files.hpp"

using namespace rs::io;
using namespace rs::io::test;

namespace {

struct Sent {
  int result = 1;  // 1: not completed yet
  unsigned calls = 0;
};

void on_sent(MemberIo& io, int result) {
  auto& s = *static_cast<Sent*>(io.owner);
  s.result = result;
  ++s.calls;
}

struct Pair {
  rs::UniqueFd a, b;
  Pair() {
    int fds[2];
    REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
    a.reset(fds[0]);
    b.reset(fds[1]);
  }
};

// A send of `iov` to `fd` queued and submitted; its completion lands in `s`.
struct QueuedSend {
  Sent s;
  MemberIo io;
  msghdr msg{};
  QueuedSend(UringBackend& backend, int fd, iovec* iov, size_t n) {
    msg.msg_iov = iov;
    msg.msg_iovlen = n;
    io.owner = &s;
    io.done = on_sent;
    REQUIRE(backend.queue_send(io, fd, &msg));
    CHECK(backend.in_flight() == 1);
    backend.submit();
  }
};

// Reaps until `s` completed or 5 s passed (a send held inside the ring
// would never complete: the test fails instead of hanging).
void reap_for(UringBackend& backend, const Sent& s) {
  const uint64_t deadline = monotonic_ns() + 5'000'000'000ull;
  while (s.calls == 0 && monotonic_ns() < deadline) backend.reap_until(1, backend.now_ns() + 100'000'000ull);
}

}  // namespace

TEST_CASE("io_uring backend: a queued send puts its iovecs on the socket in order", "[uring][needs-uring]") {
  require_uring();
  auto backend = uring({}, 8);
  Pair p;
  std::vector<uint8_t> head = {1, 2, 3, 4, 5}, body(4096);
  for (size_t i = 0; i < body.size(); ++i) body[i] = uint8_t(i * 7);
  iovec iov[] = {{head.data(), head.size()}, {body.data(), body.size()}};
  QueuedSend q(*backend, p.a.get(), iov, 2);
  const Sent& s = q.s;
  reap_for(*backend, s);
  REQUIRE(s.calls == 1);
  CHECK(s.result == int(head.size() + body.size()));
  CHECK(backend->in_flight() == 0);
  std::vector<uint8_t> got(head.size() + body.size());
  size_t have = 0;
  while (have < got.size()) {
    const ssize_t n = ::read(p.b.get(), got.data() + have, got.size() - have);
    REQUIRE(n > 0);
    have += size_t(n);
  }
  CHECK(std::memcmp(got.data(), head.data(), head.size()) == 0);
  CHECK(std::memcmp(got.data() + head.size(), body.data(), body.size()) == 0);
}

TEST_CASE("io_uring backend: a send to a socket without room completes at once, it is not held",
          "[uring][needs-uring]") {
  require_uring();
  auto backend = uring({}, 8);
  Pair p;
  const int small = 4096;
  REQUIRE(::setsockopt(p.a.get(), SOL_SOCKET, SO_SNDBUF, &small, sizeof small) == 0);
  // Fill the socket: the peer reads nothing.
  std::vector<uint8_t> chunk(4096, 0x5a);
  while (::send(p.a.get(), chunk.data(), chunk.size(), MSG_DONTWAIT) > 0) {
  }
  REQUIRE((errno == EAGAIN || errno == EWOULDBLOCK));
  iovec iov{chunk.data(), chunk.size()};
  QueuedSend q(*backend, p.a.get(), &iov, 1);
  const Sent& s = q.s;
  reap_for(*backend, s);
  REQUIRE(s.calls == 1);
  CHECK(s.result == -EAGAIN);
  CHECK(backend->in_flight() == 0);
}
