// Where an export listens, as the user writes it: "unix:PATH" or
// "tcp:HOST:PORT". Only loopback (127.0.0.0/8, ::1, localhost) and unix
// sockets are served unless the caller allows any address: NBD has no
// authentication, so whoever reaches the port reads and writes the array.
#pragma once
#include <cstdint>
#include <string>

#include "base/result.hpp"

namespace rs::nbd {

struct ListenAddress {
  enum class Kind { unix_socket, tcp } kind = Kind::unix_socket;
  std::string path;      // unix
  std::string host;      // tcp: a numeric address or "localhost"
  uint16_t port = 0;     // tcp: 0 picks a free port (the bound one is reported)
  bool loopback = true;  // reachable from this machine only

  std::string text() const;  // "unix:/run/x.sock", "tcp:127.0.0.1:10809"
};

// Errc::invalid_argument naming what is wrong with `spec`.
Result<ListenAddress> parse_listen_address(const std::string& spec);
// Errc::refused for an address other machines can reach, unless `any`.
Status check_exposure(const ListenAddress& a, bool any);
// The URI NBD clients take: nbd+unix:///NAME?socket=PATH, nbd://HOST:PORT/NAME.
std::string nbd_uri(const ListenAddress& a, const std::string& name);

}  // namespace rs::nbd
