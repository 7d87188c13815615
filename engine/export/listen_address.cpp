#include "export/listen_address.hpp"

#include <arpa/inet.h>

#include <cstring>

namespace rs::nbd {

namespace {

Result<uint16_t> parse_port(const std::string& text, const std::string& spec) {
  if (text.empty() || text.size() > 5 || text.find_first_not_of("0123456789") != std::string::npos)
    return make_error(Errc::invalid_argument, "'" + spec + "': the port must be a number from 0 to 65535");
  const unsigned long v = std::stoul(text);
  if (v > 65535) return make_error(Errc::invalid_argument, "'" + spec + "': the port must be at most 65535");
  return uint16_t(v);
}

// Whether a numeric address or "localhost" is loopback; error when it is
// neither a numeric address nor "localhost".
Result<bool> is_loopback(const std::string& host, const std::string& spec) {
  if (host == "localhost") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) return std::memcmp(&v6, &in6addr_loopback, sizeof v6) == 0;
  return make_error(Errc::invalid_argument,
                    "'" + spec + "': the host must be a numeric address (127.0.0.1, ::1) or localhost");
}

}  // namespace

std::string ListenAddress::text() const {
  if (kind == Kind::unix_socket) return "unix:" + path;
  const bool v6 = host.find(':') != std::string::npos;
  return "tcp:" + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

Result<ListenAddress> parse_listen_address(const std::string& spec) {
  ListenAddress a;
  if (spec.rfind("unix:", 0) == 0) {
    a.path = spec.substr(5);
    if (a.path.empty())
      return make_error(Errc::invalid_argument, "'" + spec + "': no socket path after unix:");
    // sockaddr_un holds 107 bytes and a NUL.
    if (a.path.size() > 107)
      return make_error(Errc::invalid_argument, "'" + spec + "': a unix socket path is at most 107 bytes");
    return a;
  }
  if (spec.rfind("tcp:", 0) != 0)
    return make_error(Errc::invalid_argument, "'" + spec + "': expected unix:PATH or tcp:HOST:PORT");
  a.kind = ListenAddress::Kind::tcp;
  std::string rest = spec.substr(4), port;
  if (!rest.empty() && rest[0] == '[') {  // [v6]:port
    const size_t close = rest.find("]:");
    if (close == std::string::npos)
      return make_error(Errc::invalid_argument, "'" + spec + "': expected tcp:[V6]:PORT");
    a.host = rest.substr(1, close - 1);
    port = rest.substr(close + 2);
  } else {
    const size_t colon = rest.rfind(':');
    if (colon == std::string::npos)
      return make_error(Errc::invalid_argument, "'" + spec + "': expected tcp:HOST:PORT");
    a.host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
  }
  auto p = parse_port(port, spec);
  if (!p) return p.error();
  a.port = *p;
  auto lo = is_loopback(a.host, spec);
  if (!lo) return lo.error();
  a.loopback = *lo;
  return a;
}

Status check_exposure(const ListenAddress& a, bool any) {
  if (a.loopback || any) return {};
  return make_error(Errc::refused,
                    a.text() +
                        " is reachable from other machines, and NBD has no authentication: anyone "
                        "who reaches it reads and writes the array. Give --listen-any to serve there "
                        "anyway, or listen on 127.0.0.1 or a unix socket");
}

std::string nbd_uri(const ListenAddress& a, const std::string& name) {
  if (a.kind == ListenAddress::Kind::unix_socket) return "nbd+unix:///" + name + "?socket=" + a.path;
  const bool v6 = a.host.find(':') != std::string::npos;
  return "nbd://" + (v6 ? "[" + a.host + "]" : a.host) + ":" + std::to_string(a.port) + "/" + name;
}

}  // namespace rs::nbd
