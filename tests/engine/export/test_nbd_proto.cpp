// The NBD wire format against the byte layouts of NBD's proto.md, written
// out by hand here (big-endian fields at the offsets the document gives).
#include <catch2/catch.hpp>
#include <vector>

#include "export/listen_address.hpp"
#include "export/nbd_proto.hpp"

using namespace rs::nbd;
using Bytes = std::vector<uint8_t>;

TEST_CASE("greeting: NBDMAGIC, IHAVEOPT, fixed newstyle and no zeroes", "[nbd]") {
  const Bytes g = encode_greeting();
  const Bytes want = {'N', 'B', 'D', 'M', 'A', 'G', 'I', 'C',  'I',
                      'H', 'A', 'V', 'E', 'O', 'P', 'T', 0x00, 0x03};
  CHECK(g == want);
}

TEST_CASE("a request decodes from proto.md's layout; a wrong magic is refused", "[nbd]") {
  const Bytes raw = {0x25, 0x60, 0x95, 0x13,                    // magic
                     0x00, 0x01,                                // flags: FUA
                     0x00, 0x01,                                // type: WRITE
                     1,    2,    3,    4,    5, 6, 7,    8,     // cookie
                     0,    0,    0,    0,    0, 0, 0x10, 0x00,  // offset 4096
                     0,    0,    0x02, 0x00};                   // length 512
  const auto r = decode_request(raw.data());
  REQUIRE(r);
  CHECK(r->flags == kCmdFlagFua);
  CHECK(r->type == kCmdWrite);
  CHECK(r->cookie == 0x0102030405060708ull);
  CHECK(r->offset == 4096);
  CHECK(r->length == 512);
  Bytes again;
  encode_request(again, *r);
  CHECK(again == raw);
  Bytes bad = raw;
  bad[0] = 0x26;
  CHECK_FALSE(decode_request(bad.data()));
}

TEST_CASE("replies: simple, read chunk, error chunk", "[nbd]") {
  Bytes s;
  encode_simple_reply(s, kEinval, 0x1122334455667788ull);
  CHECK(s == Bytes{0x67, 0x44, 0x66, 0x98, 0, 0, 0, 22, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88});

  Bytes d;
  encode_read_chunk_header(d, 7, 4096, 512);
  // magic, flags DONE, type OFFSET_DATA (1), cookie, length 512 + 8, offset
  CHECK(d == Bytes{0x66, 0x8e, 0x33, 0xef, 0,    1,    0, 1, 0, 0, 0, 0, 0,    0,
                   0,    7,    0,    0,    0x02, 0x08, 0, 0, 0, 0, 0, 0, 0x10, 0});

  Bytes e;
  encode_structured_error(e, 9, kEnospc, "no");
  // type 0x8001, length 6 + 2, error 28, message length 2, "no"
  CHECK(e == Bytes{0x66, 0x8e, 0x33, 0xef, 0, 1, 0x80, 0x01, 0, 0,  0, 0, 0,   0,
                   0,    9,    0,    0,    0, 8, 0,    0,    0, 28, 0, 2, 'n', 'o'});
}

TEST_CASE("GO data: name and info requests, lengths checked", "[nbd]") {
  // name "ab", 2 requests: NAME (1), BLOCK_SIZE (3)
  const Bytes go = {0, 0, 0, 2, 'a', 'b', 0, 2, 0, 1, 0, 3};
  auto g = decode_go(go.data(), go.size());
  REQUIRE(g);
  CHECK(g->name == "ab");
  CHECK(g->infos == std::vector<uint16_t>{1, 3});
  CHECK_FALSE(decode_go(go.data(), go.size() - 1));  // a request cut short
  const Bytes long_name = {0, 0, 0, 9, 'a', 'b', 0, 0};
  CHECK_FALSE(decode_go(long_name.data(), long_name.size()));  // name runs past the data
  CHECK_FALSE(decode_go(go.data(), 5));
}

TEST_CASE("info replies carry the export's size, flags and block sizes", "[nbd]") {
  ExportInfo e;
  e.size = 0x100000;
  e.flags = kHasFlags | kSendFlush;
  e.minimum = 4096;
  e.preferred = 65536;
  e.maximum = 1u << 25;
  Bytes out;
  encode_info_export(out, kOptGo, e);
  // option reply magic, option 7, NBD_REP_INFO (3), length 12, type 0, size, flags
  CHECK(out == Bytes{0, 0x03, 0xe8, 0x89, 0x04, 0x55, 0x65, 0xa9, 0, 0, 0, 7,    0, 0, 0, 3,
                     0, 0,    0,    12,   0,    0,    0,    0,    0, 0, 0, 0x10, 0, 0, 0, 5});
  out.clear();
  encode_info_block_size(out, kOptGo, e);
  CHECK(out.size() == 20 + 14);
  CHECK(get16(out.data() + 20) == kInfoBlockSize);
  CHECK(get32(out.data() + 22) == 4096);
  CHECK(get32(out.data() + 26) == 65536);
  CHECK(get32(out.data() + 30) == (1u << 25));
}

TEST_CASE("check_request: the protocol's errors", "[nbd]") {
  ExportInfo e;
  e.size = 1 << 20;
  e.minimum = 4096;
  e.maximum = 1 << 16;
  e.flags = kHasFlags | kSendFlush | kSendFua | kSendTrim | kSendWriteZeroes;
  auto verdict = [&](uint16_t type, uint64_t off, uint32_t len, uint16_t flags = 0) {
    return check_request(Request{flags, type, 1, off, len}, e, true);
  };
  CHECK(verdict(kCmdRead, 0, 4096).error == 0);
  CHECK(verdict(kCmdWrite, (1 << 20) - 4096, 4096, kCmdFlagFua).error == 0);
  CHECK(verdict(kCmdWriteZeroes, 0, 1 << 20, kCmdFlagNoHole).error == 0);  // no maximum for zeroes
  CHECK(verdict(kCmdFlush, 0, 0).error == 0);
  CHECK(verdict(kCmdDisc, 0, 0).error == 0);
  // Past the end: ENOSPC for writes, EINVAL for reads and trims.
  CHECK(verdict(kCmdWrite, 1 << 20, 4096).error == kEnospc);
  CHECK(verdict(kCmdWriteZeroes, (1 << 20) - 4096, 8192).error == kEnospc);
  CHECK(verdict(kCmdRead, (1 << 20) - 4096, 8192).error == kEinval);
  CHECK(verdict(kCmdTrim, ~0ull - 10, 4096).error == kEinval);  // no overflow past 2^64
  // Off the minimum block size.
  CHECK(verdict(kCmdRead, 512, 4096).error == kEinval);
  CHECK(verdict(kCmdWrite, 0, 1000).error == kEinval);
  // Unknown command, a flag the command may not carry, FLUSH with a range.
  CHECK(verdict(kCmdCache, 0, 4096).error == kEinval);
  CHECK(verdict(42, 0, 4096).error == kEinval);
  CHECK(verdict(kCmdRead, 0, 4096, kCmdFlagDf).error == kEinval);
  CHECK(verdict(kCmdWrite, 0, 4096, kCmdFlagNoHole).error == kEinval);
  CHECK(verdict(kCmdFlush, 0, 4096).error == kEinval);
  CHECK(verdict(kCmdRead, 0, 0).error == kEinval);
  // A READ above the maximum is refused; a WRITE's payload above it ends the stream.
  CHECK(verdict(kCmdRead, 0, 1 << 17).error == kEinval);
  const Verdict big = verdict(kCmdWrite, 0, 1 << 17);
  CHECK(big.error == kEinval);
  CHECK(big.disconnect);
  // Read-only: every write is EPERM; FUA not offered: refused.
  e.flags |= kReadOnly;
  CHECK(verdict(kCmdWrite, 0, 4096).error == kEperm);
  CHECK(verdict(kCmdTrim, 0, 4096).error == kEperm);
  CHECK(verdict(kCmdRead, 0, 4096).error == 0);
  e.flags = kHasFlags;
  CHECK(verdict(kCmdRead, 0, 4096, kCmdFlagFua).error == kEinval);
  CHECK(verdict(kCmdFlush, 0, 0).error == kEinval);  // FLUSH not offered
  CHECK(verdict(kCmdTrim, 0, 4096).error == kEinval);
}

TEST_CASE("listen addresses: unix, loopback tcp, exposed ones refused unless allowed", "[nbd]") {
  auto u = parse_listen_address("unix:/tmp/x.sock");
  REQUIRE(u);
  CHECK(u->path == "/tmp/x.sock");
  CHECK(nbd_uri(*u, "arr") == "nbd+unix:///arr?socket=/tmp/x.sock");
  CHECK(check_exposure(*u, false).ok());

  auto t = parse_listen_address("tcp:127.0.0.1:10809");
  REQUIRE(t);
  CHECK(t->loopback);
  CHECK(t->port == 10809);
  CHECK(nbd_uri(*t, "arr") == "nbd://127.0.0.1:10809/arr");
  auto lo2 = parse_listen_address("tcp:127.5.6.7:1");
  REQUIRE(lo2);
  CHECK(lo2->loopback);
  auto v6 = parse_listen_address("tcp:[::1]:2000");
  REQUIRE(v6);
  CHECK(v6->loopback);
  CHECK(v6->text() == "tcp:[::1]:2000");

  auto any = parse_listen_address("tcp:0.0.0.0:10809");
  REQUIRE(any);
  CHECK_FALSE(any->loopback);
  const auto refused = check_exposure(*any, false);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == rs::Errc::refused);
  CHECK(refused.error().message.find("--listen-any") != std::string::npos);
  CHECK(check_exposure(*any, true).ok());

  for (const char* bad : {"", "unix:", "tcp:127.0.0.1", "tcp:127.0.0.1:70000", "tcp:127.0.0.1:x",
                          "tcp:example.org:1", "udp:1.2.3.4:5", "tcp:[::1:5"}) {
    INFO(bad);
    auto r = parse_listen_address(bad);
    REQUIRE_FALSE(r);
    CHECK(r.error().code == rs::Errc::invalid_argument);
  }
}
