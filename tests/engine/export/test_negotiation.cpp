// The handshake state machine, driven with byte sequences a client sends.
#include <catch2/catch.hpp>
#include <vector>

#include "export/negotiation.hpp"
#include "nbd_test_client.hpp"

using namespace rs::nbd;
using rs::nbd::test::Bytes;
using rs::nbd::test::client_option;

namespace {

ExportInfo test_export() {
  ExportInfo e;
  e.name = "arr";
  e.description = "raid1 of 2 members";
  e.size = 8 << 20;
  e.flags = kHasFlags | kSendFlush;
  e.minimum = 512;
  return e;
}

Bytes go_data(const std::string& name, std::vector<uint16_t> infos) {
  Bytes b;
  put32(b, uint32_t(name.size()));
  b.insert(b.end(), name.begin(), name.end());
  put16(b, uint16_t(infos.size()));
  for (auto i : infos) put16(b, i);
  return b;
}

// Feeds `in` need() bytes at a time; returns everything the server sent.
Bytes drive(Negotiation& n, const Bytes& in) {
  Bytes out;
  size_t at = 0;
  while (n.need() && at + n.need() <= in.size()) {
    const size_t k = n.need();
    n.feed(in.data() + at, k, out);
    at += k;
  }
  return out;
}

struct Reply {
  uint32_t option, type;
  Bytes data;
};

std::vector<Reply> replies(const Bytes& out) {
  std::vector<Reply> r;
  size_t at = 0;
  while (at + 20 <= out.size()) {
    REQUIRE(get64(out.data() + at) == kOptionReplyMagic);
    const uint32_t len = get32(out.data() + at + 16);
    r.push_back({get32(out.data() + at + 8), get32(out.data() + at + 12),
                 Bytes(out.begin() + long(at + 20), out.begin() + long(at + 20 + len))});
    at += 20 + len;
  }
  CHECK(at == out.size());
  return r;
}

Bytes flags(uint32_t f) {
  Bytes b;
  put32(b, f);
  return b;
}

}  // namespace

TEST_CASE("GO with structured replies: info export, block size, name, ACK, then transmission", "[nbd]") {
  Negotiation n(test_export());
  Bytes in = flags(kClientFixedNewstyle | kClientNoZeroes);
  for (auto b : client_option(kOptStructuredReply)) in.push_back(b);
  for (auto b : client_option(kOptGo, go_data("arr", {kInfoName, kInfoBlockSize}))) in.push_back(b);
  const auto r = replies(drive(n, in));
  REQUIRE(r.size() == 5);
  CHECK(r[0].type == kRepAck);
  CHECK(r[0].option == kOptStructuredReply);
  CHECK(r[1].type == kRepInfo);
  CHECK(get16(r[1].data.data()) == kInfoExport);
  CHECK(get64(r[1].data.data() + 2) == (8u << 20));
  CHECK(get16(r[1].data.data() + 10) == (kHasFlags | kSendFlush));
  CHECK(get16(r[2].data.data()) == kInfoBlockSize);
  CHECK(get32(r[2].data.data() + 2) == 512);
  CHECK(get16(r[3].data.data()) == kInfoName);
  CHECK(std::string(r[3].data.begin() + 2, r[3].data.end()) == "arr");
  CHECK(r[4].type == kRepAck);
  CHECK(n.phase() == Negotiation::Phase::transmission);
  CHECK(n.structured());
  CHECK(n.no_zeroes());
}

TEST_CASE("INFO stays in negotiation; the default name is the export; unknown names get ERR_UNKNOWN",
          "[nbd]") {
  Negotiation n(test_export());
  Bytes in = flags(kClientFixedNewstyle);
  for (auto b : client_option(kOptInfo, go_data("", {}))) in.push_back(b);
  for (auto b : client_option(kOptGo, go_data("other", {}))) in.push_back(b);
  for (auto b : client_option(kOptList)) in.push_back(b);
  const auto r = replies(drive(n, in));
  REQUIRE(r.size() == 6);
  CHECK(r[0].type == kRepInfo);
  CHECK(r[2].type == kRepAck);
  CHECK(r[3].type == kRepErrUnknown);
  CHECK(r[4].type == kRepServer);
  CHECK(get32(r[4].data.data()) == 3);
  CHECK(r[5].type == kRepAck);
  CHECK(n.phase() == Negotiation::Phase::option_header);
  CHECK_FALSE(n.structured());
}

TEST_CASE("EXPORT_NAME: size, flags and 124 zeroes unless NO_ZEROES", "[nbd]") {
  for (bool no_zeroes : {false, true}) {
    Negotiation n(test_export());
    Bytes in = flags(kClientFixedNewstyle | (no_zeroes ? kClientNoZeroes : 0));
    for (auto b : client_option(kOptExportName, {'a', 'r', 'r'})) in.push_back(b);
    const Bytes out = drive(n, in);
    CHECK(out.size() == (no_zeroes ? 10u : 134u));
    CHECK(get64(out.data()) == (8u << 20));
    CHECK(n.phase() == Negotiation::Phase::transmission);
  }
  Negotiation n(test_export());
  Bytes in = flags(kClientFixedNewstyle);
  for (auto b : client_option(kOptExportName, {'x'})) in.push_back(b);
  CHECK(drive(n, in).empty());
  CHECK(n.phase() == Negotiation::Phase::closed);  // no error reply exists for EXPORT_NAME
}

TEST_CASE("bad handshakes: unknown client flags, bad magic, huge option, malformed data, abort", "[nbd]") {
  {
    Negotiation n(test_export());
    drive(n, flags(1u << 7));
    CHECK(n.phase() == Negotiation::Phase::closed);
  }
  {
    Negotiation n(test_export());
    Bytes in = flags(kClientFixedNewstyle);
    Bytes o = client_option(kOptList);
    o[0] ^= 0xff;
    in.insert(in.end(), o.begin(), o.end());
    drive(n, in);
    CHECK(n.phase() == Negotiation::Phase::closed);
  }
  {
    Negotiation n(test_export());
    Bytes in = flags(kClientFixedNewstyle);
    Bytes o;
    put64(o, kOptionMagic);
    put32(o, kOptGo);
    put32(o, 0xffffffff);
    in.insert(in.end(), o.begin(), o.end());
    drive(n, in);
    CHECK(n.phase() == Negotiation::Phase::closed);  // 4 GiB of option data is never read
  }
  {
    Negotiation n(test_export());
    Bytes in = flags(kClientFixedNewstyle);
    for (auto b : client_option(kOptGo, {0, 0, 0, 200, 'a'})) in.push_back(b);  // name longer than the data
    for (auto b : client_option(kOptStructuredReply, {1})) in.push_back(b);     // takes no data
    for (auto b : client_option(kOptStartTls)) in.push_back(b);                 // no TLS here
    for (auto b : client_option(99)) in.push_back(b);                           // unknown option
    for (auto b : client_option(kOptAbort)) in.push_back(b);
    const auto r = replies(drive(n, in));
    REQUIRE(r.size() == 5);
    CHECK(r[0].type == kRepErrInvalid);
    CHECK(r[1].type == kRepErrInvalid);
    CHECK(r[2].type == kRepErrUnsup);
    CHECK(r[3].type == kRepErrUnsup);
    CHECK(r[4].type == kRepAck);
    CHECK(n.phase() == Negotiation::Phase::closed);
    CHECK_FALSE(n.structured());
  }
}
