// A minimal blocking NBD client for the server tests: fixed newstyle, GO
// with or without structured replies, requests and their replies.
#pragma once
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "export/nbd_proto.hpp"
#include "export/socket_io.hpp"

namespace rs::nbd::test {

using Bytes = std::vector<uint8_t>;

// An option as a client sends it: magic, option, length, data.
inline Bytes client_option(uint32_t opt, const Bytes& data = {}) {
  Bytes b;
  put64(b, kOptionMagic);
  put32(b, opt);
  put32(b, uint32_t(data.size()));
  b.insert(b.end(), data.begin(), data.end());
  return b;
}

// -1 when it cannot connect. No Catch2 here: threads of a test use it
// (Catch2's assertions are not thread-safe).
inline int try_connect_unix(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) return fd;
  ::close(fd);
  return -1;
}

inline int connect_unix(const std::string& path) {
  const int fd = try_connect_unix(path);
  REQUIRE(fd >= 0);
  return fd;
}

struct ReplyMsg {
  uint32_t error = 0;
  uint64_t cookie = 0;
  Bytes data;
  bool ok = false;  // a well-formed reply arrived
};

class TestClient {
 public:
  explicit TestClient(const std::string& socket) : fd_(connect_unix(socket)) {}
  // For a test's own threads: no Catch2 assertion (go() fails if not connected).
  struct InThread {};
  TestClient(const std::string& socket, InThread) : fd_(try_connect_unix(socket)) {}
  ~TestClient() {
    if (fd_ >= 0) ::close(fd_);
  }
  int fd() const { return fd_; }
  void close_now() {
    ::close(fd_);
    fd_ = -1;
  }

  // Handshake and GO; false if the server refused.
  bool go(const std::string& name = "", bool structured = true) {
    uint8_t greeting[kGreetingBytes];
    if (!read_exact(fd_, greeting, sizeof greeting)) return false;
    Bytes out;
    put32(out, kClientFixedNewstyle | kClientNoZeroes);
    if (structured) option(out, kOptStructuredReply, {});
    Bytes go;
    put32(go, uint32_t(name.size()));
    go.insert(go.end(), name.begin(), name.end());
    put16(go, 1);
    put16(go, kInfoBlockSize);
    option(out, kOptGo, go);
    if (!write_all(fd_, out.data(), out.size())) return false;
    for (;;) {
      uint8_t h[20];
      if (!read_exact(fd_, h, 20)) return false;
      Bytes d(get32(h + 16));
      if (!d.empty() && !read_exact(fd_, d.data(), d.size())) return false;
      const uint32_t type = get32(h + 12);
      if (type & 0x80000000u) return false;
      if (get32(h + 8) == kOptGo && type == kRepInfo && get16(d.data()) == kInfoExport) {
        size = get64(d.data() + 2);
        flags = get16(d.data() + 10);
      }
      if (type == kRepInfo && get16(d.data()) == kInfoBlockSize) {
        minimum = get32(d.data() + 2);
        preferred = get32(d.data() + 6);
        maximum = get32(d.data() + 10);
      }
      if (get32(h + 8) == kOptGo && type == kRepAck) break;
    }
    structured_ = structured;
    return true;
  }

  bool send_request(uint16_t type, uint64_t offset, uint32_t length, uint16_t f = 0,
                    const Bytes& payload = {}, uint64_t cookie = 0) {
    Bytes out;
    encode_request(out, Request{f, type, cookie ? cookie : ++cookie_, offset, length});
    out.insert(out.end(), payload.begin(), payload.end());
    return write_all(fd_, out.data(), out.size());
  }

  // One reply; for READ, `read_length` is the data a simple reply carries.
  ReplyMsg reply(uint32_t read_length = 0) {
    ReplyMsg m;
    uint8_t h[4];
    if (!read_exact(fd_, h, 4)) return m;
    if (get32(h) == kSimpleReplyMagic) {
      uint8_t rest[12];
      if (!read_exact(fd_, rest, 12)) return m;
      m.error = get32(rest);
      m.cookie = get64(rest + 4);
      if (!m.error && read_length) {
        m.data.resize(read_length);
        if (!read_exact(fd_, m.data.data(), read_length)) return m;
      }
      m.ok = true;
      return m;
    }
    if (get32(h) != kStructuredReplyMagic) return m;
    uint8_t rest[16];
    if (!read_exact(fd_, rest, 16)) return m;
    const uint16_t type = get16(rest + 2);
    m.cookie = get64(rest + 4);
    Bytes payload(get32(rest + 12));
    if (!payload.empty() && !read_exact(fd_, payload.data(), payload.size())) return m;
    if (type == kReplyTypeError) m.error = get32(payload.data());
    if (type == kReplyTypeOffsetData) m.data.assign(payload.begin() + 8, payload.end());
    m.ok = (get16(rest) & kReplyFlagDone) != 0;
    return m;
  }

  ReplyMsg call(uint16_t type, uint64_t offset, uint32_t length, uint16_t f = 0, const Bytes& payload = {}) {
    if (!send_request(type, offset, length, f, payload)) return {};
    return reply(type == kCmdRead ? length : 0);
  }

  uint64_t size = 0;
  uint16_t flags = 0;
  uint32_t minimum = 0, preferred = 0, maximum = 0;

 private:
  // Structured reply's ACK is read with the GO replies (it comes first).
  static void option(Bytes& out, uint32_t opt, const Bytes& data) {
    const Bytes o = client_option(opt, data);
    out.insert(out.end(), o.begin(), o.end());
  }
  int fd_ = -1;
  bool structured_ = false;
  uint64_t cookie_ = 0;
};

}  // namespace rs::nbd::test
