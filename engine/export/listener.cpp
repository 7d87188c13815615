#include "export/listener.hpp"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/unique_fd.hpp"

namespace rs::nbd {

namespace {

Error sys_error(const std::string& what) {
  return make_error(Errc::io_error, what + ": " + std::strerror(errno));
}

// Whether a server answers on the unix socket at `path`.
bool someone_listens(const sockaddr_un& addr) {
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return false;
  return ::connect(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
}

Result<int> open_unix(const ListenAddress& a) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, a.path.c_str(), a.path.size() + 1);
  struct stat st {};
  if (::lstat(a.path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode))
      return make_error(Errc::refused, a.path + " exists and is not a socket; nothing was replaced");
    if (someone_listens(addr)) return make_error(Errc::busy, "a server already listens on " + a.path);
    ::unlink(a.path.c_str());  // stale: its server is gone
  }
  UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return sys_error("socket");
  if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&addr), sizeof addr) != 0)
    return sys_error("cannot listen on " + a.path);
  ::chmod(a.path.c_str(), 0600);
  if (::listen(fd.get(), 128) != 0) {
    Error e = sys_error("listen on " + a.path);
    ::unlink(a.path.c_str());
    return e;
  }
  return fd.release();
}

Result<int> open_tcp(ListenAddress& a) {
  addrinfo hints{}, *res = nullptr;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  const std::string port = std::to_string(a.port);
  if (int rc = ::getaddrinfo(a.host.c_str(), port.c_str(), &hints, &res); rc != 0 || !res)
    return make_error(Errc::invalid_argument, "cannot resolve " + a.host + ": " + ::gai_strerror(rc));
  UniqueFd fd(::socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) {
    ::freeaddrinfo(res);
    return sys_error("socket");
  }
  const int one = 1;
  (void)::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  const bool bound = ::bind(fd.get(), res->ai_addr, res->ai_addrlen) == 0;
  ::freeaddrinfo(res);
  if (!bound || ::listen(fd.get(), 128) != 0) {
    Error e = errno == EADDRINUSE ? make_error(Errc::busy, a.text() + " is in use by another program")
                                  : sys_error("cannot listen on " + a.text());
    return e;
  }
  sockaddr_storage ss{};
  socklen_t len = sizeof ss;
  if (::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&ss), &len) == 0)
    a.port = ntohs(ss.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&ss)->sin6_port
                                            : reinterpret_cast<sockaddr_in*>(&ss)->sin_port);
  return fd.release();
}

}  // namespace

Result<int> open_listener(ListenAddress& a) {
  return a.kind == ListenAddress::Kind::unix_socket ? open_unix(a) : open_tcp(a);
}

}  // namespace rs::nbd
