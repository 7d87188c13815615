// The NBD handshake (fixed newstyle) as a pure state machine: the server
// sends greeting(), then reads exactly need() bytes at a time and hands
// them to feed(), sending whatever feed() appends, until the phase is
// transmission (the client chose the export) or closed (it aborted, or
// broke a rule that ends the connection). No I/O here: the connection
// drives it over its socket, the tests and the fuzz target over bytes.
//
// Options answered: EXPORT_NAME (its reply, or the connection closes for
// an unknown name, as the protocol says), GO and INFO (the export's size
// and flags, its block sizes always, its name and description when asked;
// NBD_REP_ERR_UNKNOWN for another name), LIST (the one export), ABORT
// (ACK, then closed), STRUCTURED_REPLY (ACK). Anything else gets
// NBD_REP_ERR_UNSUP (STARTTLS too: the server offers no TLS). Malformed
// option data gets NBD_REP_ERR_INVALID and negotiation goes on.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "export/nbd_proto.hpp"

namespace rs::nbd {

class Negotiation {
 public:
  enum class Phase { client_flags, option_header, option_data, transmission, closed };
  // Option data above this is not read: the connection closes.
  static constexpr uint32_t kMaxOptionBytes = 64 * 1024;
  // A client that sends more options than this without choosing an export
  // is closed (negotiation must end).
  static constexpr unsigned kMaxOptions = 1024;

  explicit Negotiation(ExportInfo info) : info_(std::move(info)) {}

  std::vector<uint8_t> greeting() const { return encode_greeting(); }
  Phase phase() const { return phase_; }
  // Bytes the next feed() takes; 0 once in transmission or closed.
  size_t need() const;
  // Consumes exactly need() bytes and appends the replies to `out`.
  void feed(const uint8_t* data, size_t n, std::vector<uint8_t>& out);

  // Once in transmission: what the client negotiated.
  bool structured() const { return structured_; }
  bool no_zeroes() const { return no_zeroes_; }
  // Once closed: why ("the client aborted", "bad option magic", ...).
  const std::string& why_closed() const { return why_; }
  const ExportInfo& info() const { return info_; }

 private:
  void close(std::string why) {
    phase_ = Phase::closed;
    why_ = std::move(why);
  }
  void option(const uint8_t* data, std::vector<uint8_t>& out);
  void go(bool go, const uint8_t* data, std::vector<uint8_t>& out);
  bool names_export(const std::string& name) const { return name.empty() || name == info_.name; }

  ExportInfo info_;
  Phase phase_ = Phase::client_flags;
  OptionHeader current_;
  unsigned options_ = 0;
  bool structured_ = false, no_zeroes_ = false;
  std::string why_;
};

}  // namespace rs::nbd
