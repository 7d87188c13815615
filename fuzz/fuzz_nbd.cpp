// libFuzzer target: the NBD server's handshake and request checks on what
// a client sends. The input is the client's byte stream: the handshake
// (fed need() bytes at a time, as the connection does), then requests
// (28-byte headers, a WRITE's payload skipped). Nothing may crash, read
// out of bounds or loop; every request gets a verdict.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "export/nbd_proto.hpp"
#include "export/negotiation.hpp"

using namespace rs::nbd;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ExportInfo e;
  e.name = "arr";
  e.size = 64ull << 20;
  e.minimum = 4096;
  e.flags = kHasFlags | kSendFlush | kSendFua | kSendTrim | kSendWriteZeroes | kCanMultiConn;
  Negotiation n(e);
  std::vector<uint8_t> out;
  size_t at = 0;
  while (n.need() && at + n.need() <= size) {
    const size_t k = n.need();
    n.feed(data + at, k, out);
    at += k;
  }
  (void)decode_go(data, size);  // GO's data parser on the raw input as well
  if (n.phase() != Negotiation::Phase::transmission) return 0;
  while (at + kRequestBytes <= size) {
    const auto r = decode_request(data + at);
    at += kRequestBytes;
    if (!r) break;
    const Verdict v = check_request(*r, e, n.structured());
    if (v.disconnect || r->type == kCmdDisc) break;
    if (v.error) {
      out.clear();
      encode_structured_error(out, r->cookie, v.error, v.message);
    }
    if (r->type == kCmdWrite) at += r->length;
  }
  return 0;
}
