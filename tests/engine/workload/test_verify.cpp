// verify=crc32c/md5 blocks: checksum known answers (RFC 1321, RFC 3720),
// the documented on-media layout, fill/check round trips, and one case per
// kind of damage, each caught with its own reason.
#include <isa-l/crc.h>

#include <catch2/catch.hpp>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>
#include <unordered_set>
#include <vector>

#include "workload/md5.hpp"
#include "workload/verify.hpp"

using namespace rs::workload;

namespace {

using Bytes = std::vector<unsigned char>;

// Not job_options' to_string: keeps this test independent of the parser.
std::string name(VerifyKind k) {
  return k == VerifyKind::crc32c ? "crc32c" : k == VerifyKind::md5 ? "md5" : "none";
}

std::string md5_hex(const void* p, size_t n) {
  const Md5Digest d = md5(p, n);
  std::string s;
  char buf[3];
  for (uint8_t b : d) {
    std::snprintf(buf, sizeof buf, "%02x", b);
    s += buf;
  }
  return s;
}

std::string md5_hex(const std::string& s) {
  return md5_hex(s.data(), s.size());
}

template <typename T>
T get(const Bytes& b, size_t off) {
  T v;
  std::memcpy(&v, b.data() + off, sizeof v);
  return v;
}

template <typename T>
void put(Bytes& b, size_t off, T v) {
  std::memcpy(b.data() + off, &v, sizeof v);
}

Bytes filled(VerifyKind kind, uint32_t len, uint64_t offset, uint64_t seed) {
  // Exactly len bytes, so ASan catches any access past the block; stale
  // 0xA5 content, so a field fill forgets to write does not pass as zero.
  Bytes b(len, 0xA5);
  verify_fill(kind, b.data(), len, offset, seed);
  return b;
}

std::string check(VerifyKind kind, const Bytes& b, uint64_t offset) {
  const VerifyResult r = verify_check(kind, b.data(), static_cast<uint32_t>(b.size()), offset);
  // ok and an empty reason go together.
  CHECK(r.ok == (r.reason[0] == '\0'));
  return r.ok ? std::string("ok") : std::string(r.reason);
}

// The header crc as verify.hpp documents it, computed independently of
// verify.cpp: crc32c over [0, 28) then [32, header_len).
uint32_t documented_header_crc(const Bytes& b, uint32_t hl) {
  Bytes h(b.begin(), b.begin() + 28);
  h.insert(h.end(), b.begin() + 32, b.begin() + hl);
  return crc32c(h.data(), h.size());
}

}  // namespace

TEST_CASE("crc32c: standard CRC-32C known answers", "[verify][crc32c]") {
  const char* s = "123456789";
  CHECK(crc32c(s, 9) == 0xE3069283u);
  CHECK(crc32c(nullptr, 0) == 0u);

  // RFC 3720 (iSCSI) appendix B.4 vectors.
  unsigned char v[32];
  std::memset(v, 0, sizeof v);
  CHECK(crc32c(v, 32) == 0x8A9136AAu);
  std::memset(v, 0xFF, sizeof v);
  CHECK(crc32c(v, 32) == 0x62A8AB43u);
  for (int i = 0; i < 32; ++i) v[i] = static_cast<unsigned char>(i);
  CHECK(crc32c(v, 32) == 0x46DD794Eu);
  for (int i = 0; i < 32; ++i) v[i] = static_cast<unsigned char>(31 - i);
  CHECK(crc32c(v, 32) == 0x113FDB5Cu);

  // ISA-L's convention, which crc32c() wraps: crc32_iscsi applies neither the
  // initial nor the final inversion, so the standard value needs init ~0 and
  // a final ~. Passing init 0, or forgetting the final ~, gives other values.
  auto* u = reinterpret_cast<unsigned char*>(const_cast<char*>(s));
  CHECK(~crc32_iscsi(u, 9, 0xFFFFFFFFu) == 0xE3069283u);
  CHECK(crc32_iscsi(u, 9, 0xFFFFFFFFu) != 0xE3069283u);
  CHECK(crc32_iscsi(u, 9, 0) != 0xE3069283u);
}

TEST_CASE("md5: RFC 1321 test suite", "[verify][md5]") {
  CHECK(md5_hex("") == "d41d8cd98f00b204e9800998ecf8427e");
  CHECK(md5_hex("a") == "0cc175b9c0f1b6a831c399e269772661");
  CHECK(md5_hex("abc") == "900150983cd24fb0d6963f7d28e17f72");
  CHECK(md5_hex("message digest") == "f96b697d7cb7938d525a2f31aaf161d0");
  CHECK(md5_hex("abcdefghijklmnopqrstuvwxyz") == "c3fcd3d76192e4007dfb496cca67e13b");
  CHECK(md5_hex("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") ==
        "d174ab98d277d9f5a5611c2c9f419d9f");
  CHECK(md5_hex("1234567890123456789012345678901234567890123456789012345678901234567890123456789"
                "0") == "57edf4a22be3c955ac49da2e2107b67a");
  CHECK(md5(nullptr, 0) == md5("", 0));
}

TEST_CASE("md5: padding boundaries, long and unaligned input", "[verify][md5]") {
  // Reference digests from Python's hashlib over bytes (7 * i + 3) mod 256:
  // lengths around the 56-byte padding limit and the 64-byte block size.
  const std::pair<size_t, const char*> kat[] = {
      {55, "52c0e574e1198de5fe3f8f11440dcb1b"},   {56, "46c9907fc908ee68b1e7b8e71286a518"},
      {57, "1c805dd236c35cab25fcb1bc73802c51"},   {63, "a62f6d59e837867693f042f5b8f5a236"},
      {64, "7160b8fb5e9e4023d549c3971fbaeead"},   {65, "70bd662e7aefbda85a0f7244167b7897"},
      {119, "e84905d4214f4d1ca56c2cdcc152b143"},  {120, "e3eb5a6c8669ea01a8c185b8abc8a5dc"},
      {127, "acce2474d6cc8302120d09c818d17ef7"},  {128, "10b2da1a82f16d99a81a7203fe9f02cb"},
      {1000, "10046f077f2082ac19676b8079f1cb1a"},
  };
  for (const auto& [n, want] : kat) {
    // One byte of slack in front so the data starts at an odd address.
    Bytes buf(n + 1);
    for (size_t i = 0; i < n; ++i) buf[i + 1] = static_cast<unsigned char>(7 * i + 3);
    INFO("length " << n);
    CHECK(md5_hex(buf.data() + 1, n) == want);
  }
  const std::string million(1000000, 'a');
  CHECK(md5_hex(million) == "7707d6ae4e027c70eea2a935c2296f21");
}

TEST_CASE("verify: fill then check round trip", "[verify]") {
  const VerifyKind kind = GENERATE(VerifyKind::crc32c, VerifyKind::md5);
  const uint32_t len = GENERATE(512u, 4096u, 1u << 20);
  const uint64_t offset =
      GENERATE(uint64_t{0}, uint64_t{4096}, (uint64_t{1} << 40) + 512, ~uint64_t{0} - 511);
  const uint64_t seed = GENERATE(uint64_t{0}, uint64_t{0x89}, ~uint64_t{0});
  INFO("kind " << name(kind) << " len " << len << " offset " << offset << " seed " << seed);

  const Bytes b = filled(kind, len, offset, seed);
  CHECK(check(kind, b, offset) == "ok");
  // Deterministic: the same arguments give the same bytes.
  CHECK(filled(kind, len, offset, seed) == b);
}

TEST_CASE("verify: header layout is the documented one", "[verify]") {
  const VerifyKind kind = GENERATE(VerifyKind::crc32c, VerifyKind::md5);
  const uint32_t hl = verify_header_len(kind);
  const uint32_t len = 4096;
  const uint64_t offset = 0x123456789000ULL, seed = 0xfeedfacecafebeefULL;
  const Bytes b = filled(kind, len, offset, seed);

  CHECK(hl == (kind == VerifyKind::crc32c ? 40u : 48u));
  CHECK(std::memcmp(b.data(), "RSVB", 4) == 0);
  CHECK(get<uint32_t>(b, 0) == kVerifyMagic);
  CHECK(get<uint16_t>(b, 4) == (kind == VerifyKind::crc32c ? 1 : 2));
  CHECK(get<uint16_t>(b, 6) == hl);
  CHECK(get<uint32_t>(b, 8) == len);
  CHECK(get<uint64_t>(b, 12) == offset);
  CHECK(get<uint64_t>(b, 20) == seed);
  CHECK(get<uint32_t>(b, 28) == documented_header_crc(b, hl));
  if (kind == VerifyKind::crc32c) {
    CHECK(get<uint32_t>(b, 32) == crc32c(b.data() + hl, len - hl));
    CHECK(get<uint32_t>(b, 36) == 0u);
  } else {
    const Md5Digest d = md5(b.data() + hl, len - hl);
    CHECK(std::memcmp(b.data() + 32, d.data(), 16) == 0);
  }
}

TEST_CASE("verify: payload depends on seed and offset, not on the checksum kind", "[verify]") {
  const uint32_t len = 1u << 20;
  const uint32_t hl = 48;  // compare past the longer header
  const Bytes a = filled(VerifyKind::crc32c, len, 8192, 1);

  auto differing_words = [&](const Bytes& x, const Bytes& y) {
    size_t n = 0;
    for (uint32_t pos = hl; pos < len; pos += 8) n += std::memcmp(x.data() + pos, y.data() + pos, 8) != 0;
    return n;
  };
  const size_t words = (len - hl) / 8;
  // Another seed or another offset changes (practically) every word.
  CHECK(differing_words(a, filled(VerifyKind::crc32c, len, 8192, 2)) == words);
  CHECK(differing_words(a, filled(VerifyKind::crc32c, len, 8192 + 512, 1)) == words);
  CHECK(differing_words(a, filled(VerifyKind::crc32c, len, 8192, 1ULL << 63)) == words);
  // The payload is a function of (seed, offset) alone.
  CHECK(differing_words(a, filled(VerifyKind::md5, len, 8192, 1)) == 0);

  // Not periodic or degenerate: no 64-bit word repeats within 1 MiB, and
  // every byte value occurs (4096 times each on average).
  std::unordered_set<uint64_t> seen;
  size_t byte_count[256] = {};
  for (uint32_t pos = hl; pos < len; pos += 8) {
    seen.insert(get<uint64_t>(a, pos));
    for (int i = 0; i < 8; ++i) ++byte_count[a[pos + i]];
  }
  CHECK(seen.size() == words);
  for (size_t c : byte_count) {
    CHECK(c > 3500);
    CHECK(c < 4700);
  }
}

TEST_CASE("verify: none writes payload only and checks nothing", "[verify]") {
  const Bytes b = filled(VerifyKind::none, 4096, 0, 7);
  CHECK(get<uint32_t>(b, 0) != kVerifyMagic);
  // Same payload words as a headed block, from byte 0.
  const Bytes h = filled(VerifyKind::crc32c, 4096, 0, 7);
  CHECK(std::memcmp(b.data() + 40, h.data() + 40, 4096 - 40) == 0);
  CHECK(check(VerifyKind::none, Bytes(4096, 0), 0) == "ok");
  CHECK(verify_header_len(VerifyKind::none) == 0u);
}

TEST_CASE("verify: fill writes exactly the block, at any alignment", "[verify]") {
  const VerifyKind kind = GENERATE(VerifyKind::none, VerifyKind::crc32c, VerifyKind::md5);
  const uint32_t len = 4096;
  Bytes buf(len + 64, 0xA5);
  unsigned char* block = buf.data() + 19;  // deliberately misaligned
  verify_fill(kind, block, len, 4096, 3);
  for (size_t i = 0; i < 19; ++i) CHECK(buf[i] == 0xA5);
  for (size_t i = 19 + len; i < buf.size(); ++i) CHECK(buf[i] == 0xA5);
  if (kind != VerifyKind::none) {
    const VerifyResult r = verify_check(kind, block, len, 4096);
    CHECK(r.ok);
    CHECK(r.reason[0] == '\0');
  }
}

TEST_CASE("verify: payload corruption reports want/got and the first bad byte", "[verify]") {
  const uint32_t len = GENERATE(512u, 4096u, 1u << 20);
  const VerifyKind kind = GENERATE(VerifyKind::crc32c, VerifyKind::md5);
  const uint32_t hl = verify_header_len(kind);
  const uint64_t offset = 1u << 20;
  const Bytes good = filled(kind, len, offset, 42);

  for (uint32_t pos : {hl, hl + 1, len / 2 + 3, len - 1}) {
    for (unsigned char mask : {0x01, 0x80}) {
      Bytes b = good;
      b[pos] ^= mask;
      char want[160];
      if (kind == VerifyKind::crc32c) {
        std::snprintf(want, sizeof want,
                      "data checksum mismatch (crc32c want 0x%08" PRIx32 " got 0x%08" PRIx32
                      "), first bad byte at %" PRIu32,
                      crc32c(good.data() + hl, len - hl), crc32c(b.data() + hl, len - hl), pos);
      } else {
        std::snprintf(
            want, sizeof want, "data checksum mismatch (md5 want %s got %s), first bad byte at %" PRIu32,
            md5_hex(good.data() + hl, len - hl).c_str(), md5_hex(b.data() + hl, len - hl).c_str(), pos);
      }
      INFO("len " << len << " pos " << pos << " mask " << int(mask));
      CHECK(check(kind, b, offset) == want);
    }
  }

  // Several damaged bytes: the first one is reported.
  Bytes b = good;
  b[len - 8] = static_cast<unsigned char>(~b[len - 8]);
  b[hl + 100] = static_cast<unsigned char>(~b[hl + 100]);
  CHECK_THAT(check(kind, b, offset), Catch::EndsWith(", first bad byte at " + std::to_string(hl + 100)));
}

TEST_CASE("verify: every header byte is protected", "[verify]") {
  const VerifyKind kind = GENERATE(VerifyKind::crc32c, VerifyKind::md5);
  const uint32_t hl = verify_header_len(kind);
  const Bytes good = filled(kind, 512, 512, 9);
  for (uint32_t pos = 0; pos < hl; ++pos) {
    for (unsigned char mask : {0x01, 0x10, 0xFF}) {
      Bytes b = good;
      b[pos] ^= mask;
      const std::string r = check(kind, b, 512);
      INFO("byte " << pos << " mask " << int(mask) << ": " << r);
      if (pos < 4)
        CHECK_THAT(r, Catch::StartsWith("bad magic 0x") && Catch::EndsWith(" (block never written?)"));
      else
        CHECK_THAT(r, Catch::StartsWith("header checksum mismatch (stored 0x"));
    }
  }
  // The exact message for a damaged header field.
  Bytes b = good;
  b[14] ^= 0x40;  // inside the offset field
  char want[160];
  std::snprintf(want, sizeof want,
                "header checksum mismatch (stored 0x%08" PRIx32 " computed 0x%08" PRIx32 ")",
                get<uint32_t>(b, 28), documented_header_crc(b, hl));
  CHECK(check(kind, b, 512) == want);
}

TEST_CASE("verify: unwritten and foreign blocks", "[verify]") {
  const VerifyKind kind = GENERATE(VerifyKind::crc32c, VerifyKind::md5);

  SECTION("zeroed block") {
    CHECK(check(kind, Bytes(4096, 0), 0) == "bad magic 0x00000000 (block never written?)");
  }
  SECTION("payload without a header (verify=0 data)") {
    const Bytes b = filled(VerifyKind::none, 4096, 0, 1);
    char want[80];
    std::snprintf(want, sizeof want, "bad magic 0x%08" PRIx32 " (block never written?)", get<uint32_t>(b, 0));
    CHECK(check(kind, b, 0) == want);
  }
  SECTION("block from another offset") {
    const Bytes b = filled(kind, 4096, 4096, 5);
    CHECK(check(kind, b, 8192) == "block written for offset 4096 found at offset 8192");
    const Bytes far = filled(kind, 4096, ~uint64_t{0} - 4095, 5);
    CHECK(check(kind, far, 0) == "block written for offset 18446744073709547520 found at offset 0");
  }
  SECTION("block written with the other checksum kind") {
    const VerifyKind other = kind == VerifyKind::crc32c ? VerifyKind::md5 : VerifyKind::crc32c;
    const Bytes b = filled(other, 4096, 0, 5);
    CHECK(check(kind, b, 0) ==
          std::string("verify kind mismatch: block has ") + name(other) + ", job verifies " + name(kind));
  }
  SECTION("valid header crc over fields verify_fill never writes") {
    Bytes b = filled(kind, 4096, 0, 5);
    put<uint16_t>(b, 4, 7);  // unknown kind code
    put<uint32_t>(b, 28, documented_header_crc(b, verify_header_len(kind)));
    CHECK(check(kind, b, 0) ==
          "bad header: kind code 7 with header length " + std::to_string(verify_header_len(kind)));
  }
}

TEST_CASE("verify: length mismatches", "[verify]") {
  const VerifyKind kind = GENERATE(VerifyKind::crc32c, VerifyKind::md5);
  const Bytes b = filled(kind, 4096, 0, 5);

  SECTION("truncated read") {
    const Bytes half(b.begin(), b.begin() + 2048);  // exactly 2048 bytes: no read past them
    CHECK(check(kind, half, 0) == "length mismatch: block written with 4096 bytes, read with 2048");
  }
  SECTION("read spanning two blocks") {
    Bytes two = b;
    const Bytes next = filled(kind, 4096, 4096, 5);
    two.insert(two.end(), next.begin(), next.end());
    CHECK(check(kind, two, 0) == "length mismatch: block written with 4096 bytes, read with 8192");
  }
  SECTION("read length verify cannot handle") {
    for (uint32_t bad : {0u, 8u, 504u, 511u, 4100u}) {
      Bytes r(bad == 0 ? 1 : bad);
      const VerifyResult res = verify_check(kind, r.data(), bad, 0);
      CHECK_FALSE(res.ok);
      CHECK_THAT(std::string(res.reason), Catch::StartsWith("bad read length " + std::to_string(bad) + " "));
    }
    CHECK(verify_block_len_ok(512));
    CHECK(verify_block_len_ok(520));
    CHECK_FALSE(verify_block_len_ok(511));
    CHECK_FALSE(verify_block_len_ok(516));
  }
  SECTION("damaged header_len never steers reads out of the block") {
    Bytes small = filled(kind, 512, 0, 5);
    put<uint16_t>(small, 6, 0xFFFF);
    CHECK_THAT(check(kind, small, 0), Catch::StartsWith("header checksum mismatch"));
  }
}
