// Who uses an open array: a client attaches to its session and detaches
// without closing it (see array_session.hpp). The handle is RAII: dropping it
// detaches. While a client is attached the session does not finish closing,
// so the array it reaches through the handle stays valid.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "telemetry/member_counters.hpp"

namespace rs::raid {
class Array;
}

namespace rs::session {

class ArraySession;

enum class ClientKind {
  cli,     // a raidscope-cli command (a session that lives for one command)
  gui,     // the desktop app showing the array
  bench,   // a workload run
  task,    // a long operation: resync, rebuild, check, repair
  export_  // a connection of an export to other programs (NBD)
};
const char* client_kind_name(ClientKind kind);  // "cli", "gui", "bench", "task", "export"

// What clients() lists.
struct ClientInfo {
  uint64_t id = 0;
  ClientKind kind = ClientKind::cli;
  std::string name;       // "check", "bench job seqread", "nbd 127.0.0.1:40312"
  uint64_t since_ns = 0;  // CLOCK_MONOTONIC when it attached
  // The client's own array I/O, counted by clients that submit their own
  // (an export counts per connection through Client::io()); the array's
  // counters and the sampler count every client's I/O together.
  telemetry::MemberCountersSnapshot io;
};

// The session's record of one client (shared by the handle and the session).
struct ClientRecord {
  uint64_t id = 0;
  ClientKind kind = ClientKind::cli;
  std::string name;
  uint64_t since_ns = 0;
  telemetry::MemberCounters io;
  std::function<void()> on_stop;  // asks the client to finish (the session is closing)
  std::atomic<bool> stop_requested{false};
};

class Client {
 public:
  Client() = default;
  Client(Client&& o) noexcept = default;
  Client& operator=(Client&& o) noexcept;
  ~Client() { detach(); }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  explicit operator bool() const { return record_ != nullptr; }
  uint64_t id() const { return record_ ? record_->id : 0; }
  ArraySession& session() const { return *session_; }
  const std::shared_ptr<ArraySession>& session_ptr() const { return session_; }
  // The open array: valid while this client is attached. Array I/O goes
  // through an ArrayPort on the client's own I/O context (array.hpp).
  raid::Array& array() const;
  // The client's own counts (ClientInfo::io); relaxed atomics, any thread.
  telemetry::MemberCounters& io() { return record_->io; }
  // The session is closing: finish what is in flight and detach.
  bool stop_requested() const { return record_ && record_->stop_requested.load(std::memory_order_acquire); }
  // Leaves the session (idempotent). The last client leaving closes it
  // unless it is kept open (ArraySession::keep_open).
  void detach();

 private:
  friend class ArraySession;
  Client(std::shared_ptr<ArraySession> session, std::shared_ptr<ClientRecord> record)
      : session_(std::move(session)), record_(std::move(record)) {}
  std::shared_ptr<ArraySession> session_;
  std::shared_ptr<ClientRecord> record_;
};

}  // namespace rs::session
