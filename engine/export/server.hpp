// An NBD export of an open array: a listener (a unix socket, or TCP on
// loopback unless any address is allowed) and its connections, each one a
// client of the array session (connection.hpp).
//
// What the export offers (export_info): the array's size; the minimum
// block size is the array's I/O unit (512 bytes on RAID1/10, 4096 on RAID5,
// more with members of larger logical blocks), and a request off it is
// refused with EINVAL; the preferred size is the array's optimal write
// (a RAID5 full stripe, its largest power-of-two part when the stripe is
// not a power of two) or 4096; the maximum is 32 MiB per READ/WRITE.
// FLUSH and FUA are md's flush of the array; WRITE_ZEROES writes zeros;
// TRIM is accepted and changes nothing (the array has no discard).
// NBD_FLAG_CAN_MULTI_CONN is offered: every connection writes straight to
// the same array (no per-connection cache), and raid::Array::flush makes
// every write that completed before it durable on every member, whichever
// connection sent it, so a FLUSH on one connection covers the writes the
// others had answered.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/result.hpp"
#include "base/unique_fd.hpp"
#include "export/connection.hpp"
#include "export/listen_address.hpp"
#include "export/nbd_proto.hpp"
#include "session/array_session.hpp"

namespace rs::nbd {

struct ServerOptions {
  ListenAddress address;
  std::string name = "raidscope";  // the export's name
  bool read_only = false;
  bool listen_any = false;  // serve on addresses other machines reach
  unsigned max_connections = 128;
  Log log;  // connections coming and going, refused requests (any thread)
  // Requests are received on each connection's I/O context (its io_uring
  // ring waits for the socket: one loop, no reader thread) when the
  // context's backend can; false, or a backend that cannot (pread/pwrite
  // where io_uring is unavailable): a reader thread receives them.
  bool receive_on_ring = true;
};

// Errc::invalid_argument unless `name` is 1 to 64 letters, digits, '-',
// '_' or '.' (it goes into URIs and socket names unquoted).
Status check_export_name(const std::string& name);

// What an export of `array` offers (see the top of this file).
ExportInfo export_info(const raid::Array& array, const std::string& name, bool read_only);

class Server {
 public:
  // Listens and starts accepting. Errc::refused for an exposed address
  // without listen_any, Errc::busy when another server holds the socket.
  static Result<std::unique_ptr<Server>> start(std::shared_ptr<session::ArraySession> session,
                                               ServerOptions options);
  ~Server();  // stop()
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Stops accepting and ends every connection (what they read completes
  // on the array first); removes the unix socket. Idempotent.
  void stop();

  const ExportInfo& info() const { return info_; }
  // As bound: the port the system chose for tcp:HOST:0.
  const ListenAddress& address() const { return options_.address; }
  std::string uri() const { return nbd_uri(options_.address, info_.name); }
  size_t connections() const;
  // Replies handed to the connections' sender threads since the server
  // started (Connection::replies_to_sender; for tests).
  uint64_t replies_to_sender() const;

 private:
  Server(std::shared_ptr<session::ArraySession> session, ServerOptions options, ExportInfo info, int fd);
  void accept_loop();
  void reap(bool all);

  std::shared_ptr<session::ArraySession> session_;
  ServerOptions options_;
  ExportInfo info_;
  UniqueFd listen_fd_;
  UniqueFd wake_fd_;  // eventfd: stop() wakes the accept loop
  std::atomic<bool> stopping_{false};
  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<Connection>> connections_;
  uint64_t reaped_replies_to_sender_ = 0;  // of the connections reaped (under mutex_)
  uint64_t next_peer_ = 0;
  std::thread acceptor_;
  std::once_flag stopped_;
};

}  // namespace rs::nbd
