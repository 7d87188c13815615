#include "workload/verify.hpp"

#include <isa-l/crc.h>
#include <isa-l/crc64.h>

#include <algorithm>
#include <bit>
#include <cassert>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <numeric>

#include "workload/digests.hpp"
#include "workload/md5.hpp"

namespace rs::workload {
namespace {

// The layout is little-endian on media; fields are stored with memcpy from
// host integers, which is only right on a little-endian host.
static_assert(std::endian::native == std::endian::little, "verify.cpp assumes a little-endian host");

// Field offsets, see the layout in verify.hpp.
constexpr uint32_t kOffMagic = 0;
constexpr uint32_t kOffKind = 4;
constexpr uint32_t kOffHeaderLen = 6;
constexpr uint32_t kOffBlockLen = 8;
constexpr uint32_t kOffOffset = 12;
constexpr uint32_t kOffSeed = 20;
constexpr uint32_t kOffHeaderCrc = 28;
constexpr uint32_t kOffChecksum = 32;  // also where the header crc resumes

// On-media kind codes: fixed, so that reordering VerifyKind cannot change
// the format.
struct KindCode {
  VerifyKind kind;
  uint16_t code;
  const char* name;
};
constexpr KindCode kKindCodes[] = {
    {VerifyKind::crc32c, 1, "crc32c"}, {VerifyKind::md5, 2, "md5"},       {VerifyKind::crc64, 3, "crc64"},
    {VerifyKind::sha1, 4, "sha1"},     {VerifyKind::sha256, 5, "sha256"}, {VerifyKind::sha512, 6, "sha512"},
    {VerifyKind::xxhash, 7, "xxhash"}, {VerifyKind::meta, 8, "meta"},
};

constexpr uint64_t kGolden = 0x9e3779b97f4a7c15ULL;

uint16_t kind_code(VerifyKind k) noexcept {
  for (const auto& c : kKindCodes)
    if (c.kind == k) return c.code;
  return 0;
}

VerifyKind kind_of_code(uint16_t code) noexcept {
  for (const auto& c : kKindCodes)
    if (c.code == code) return c.kind;
  return VerifyKind::none;
}

const char* kind_name(VerifyKind k) noexcept {
  for (const auto& c : kKindCodes)
    if (c.kind == k) return c.name;
  return "none";
}

template <typename T>
T load(const unsigned char* p) noexcept {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <typename T>
void store(unsigned char* p, T v) noexcept {
  std::memcpy(p, &v, sizeof v);
}

// splitmix64's finalizer. Kept local (rather than shared with rand.hpp) so
// that the payload, which is part of the on-media format, cannot change when
// the load generator's random numbers do.
constexpr uint64_t mix64(uint64_t x) noexcept {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

// One key per (seed, offset); mixing offset before adding it keeps nearby
// offsets and seeds from giving shifted copies of the same stream.
constexpr uint64_t payload_key(uint64_t seed, uint64_t offset) noexcept {
  return mix64(seed ^ mix64(offset + kGolden));
}

// The payload word at byte position pos of the block (a multiple of 8):
// splitmix64 indexed by position, so that words are independent (the loop
// vectorizes) and any single word can be regenerated on its own.
constexpr uint64_t payload_word(uint64_t key, uint32_t pos) noexcept {
  return mix64(key + (uint64_t{pos} / 8 + 1) * kGolden);
}

void fill_payload(unsigned char* b, uint32_t from, uint32_t to, uint64_t key) noexcept {
  for (uint32_t pos = from; pos < to; pos += 8) store(b + pos, payload_word(key, pos));
}

// First byte of [from, to) that differs from the payload, or `to` if none.
uint32_t first_bad_byte(const unsigned char* b, uint32_t from, uint32_t to, uint64_t key) noexcept {
  for (uint32_t pos = from; pos < to; pos += 8) {
    const uint64_t diff = load<uint64_t>(b + pos) ^ payload_word(key, pos);
    // Little-endian: the lowest set bit is in the first differing byte.
    if (diff) return pos + static_cast<uint32_t>(std::countr_zero(diff)) / 8;
  }
  return to;
}

#if defined(__x86_64__)
// A block header's crc covers about 60 bytes, in two pieces. ISA-L's
// crc32_iscsi sets up a 16-lane fold on every call, which at that size
// costs more than the bytes: 7 % of the samples of a verify=meta job
// (64 KiB writes, 512-byte intervals, 256 headers per I/O written and
// checked). The CPU's crc32 instruction (fio's crc32c_intel) does short
// inputs directly, with the same convention (no inversions).
__attribute__((target("sse4.2"))) uint32_t crc32c_short_sse42(uint32_t state, const unsigned char* p,
                                                              size_t len) noexcept {
  uint64_t s = state;
  for (; len >= 8; p += 8, len -= 8) s = __builtin_ia32_crc32di(s, load<uint64_t>(p));
  auto s32 = static_cast<uint32_t>(s);
  for (; len; ++p, --len) s32 = __builtin_ia32_crc32qi(s32, *p);
  return s32;
}
// This initialiser may run before libgcc's own CPU detection: run it first.
const bool kHasSse42 = (__builtin_cpu_init(), __builtin_cpu_supports("sse4.2"));
#endif

// CRC-32C state update without the inversions (ISA-L's convention), in
// chunks because crc32_iscsi takes an int length.
uint32_t crc32c_update(uint32_t state, const unsigned char* p, size_t len) noexcept {
#if defined(__x86_64__)
  if (len <= 256 && kHasSse42) return crc32c_short_sse42(state, p, len);
#endif
  constexpr size_t kChunk = size_t{1} << 30;
  while (len) {
    const size_t n = std::min(len, kChunk);
    // crc32_iscsi does not write through its pointer; its prototype is
    // just not const-correct.
    state = crc32_iscsi(const_cast<unsigned char*>(p), static_cast<int>(n), state);
    p += n;
    len -= n;
  }
  return state;
}

uint32_t crc32c_of(const unsigned char* p, size_t len) noexcept {
  return ~crc32c_update(0xFFFFFFFFu, p, len);
}

// The data checksum of `kind` over p[0, len), as stored in the header:
// verify_header_len(kind) - 32 bytes (the checksum, then zero padding to a
// multiple of 8). CRCs and xxHash are stored as little-endian integers,
// digests in their usual byte order. Returns the checksum's own length.
size_t data_checksum(VerifyKind kind, const unsigned char* p, size_t len, unsigned char* out) noexcept {
  std::memset(out, 0, verify_header_len(kind) - 32);
  switch (kind) {
    case VerifyKind::crc32c:
      store(out, crc32c_of(p, len));
      return 4;
    case VerifyKind::crc64:
      // CRC-64/XZ (ECMA-182 polynomial, reflected, inverted in and out).
      store(out, uint64_t(crc64_ecma_refl(0, p, uint64_t(len))));
      return 8;
    case VerifyKind::xxhash:
      store(out, xxhash32(p, len, 0));
      return 4;
    case VerifyKind::md5: {
      const auto d = md5(p, len);
      std::memcpy(out, d.data(), d.size());
      return d.size();
    }
    case VerifyKind::sha1: {
      const auto d = sha1(p, len);
      std::memcpy(out, d.data(), d.size());
      return d.size();
    }
    case VerifyKind::sha256: {
      const auto d = sha256(p, len);
      std::memcpy(out, d.data(), d.size());
      return d.size();
    }
    case VerifyKind::sha512: {
      const auto d = sha512(p, len);
      std::memcpy(out, d.data(), d.size());
      return d.size();
    }
    case VerifyKind::meta:     // the header alone is checked
    case VerifyKind::pattern:  // no header: the pattern alone
    case VerifyKind::none:
      break;
  }
  return 0;
}

// b[p] = pattern[p % len] for p in [from, to): one period byte by byte,
// then copies of what is already there, doubling (the I/O path: a 64 KiB
// block costs a few memcpy calls, not 64 Ki divisions).
void fill_pattern(unsigned char* b, uint32_t from, uint32_t to, VerifyPattern pattern) noexcept {
  const uint32_t first = std::min<uint32_t>(to, from + uint32_t(pattern.len));
  for (uint32_t p = from; p < first; ++p) b[p] = pattern.bytes[(pattern.phase + p) % pattern.len];
  for (uint32_t done = first - from; from + done < to;) {
    const uint32_t n = std::min(done, to - from - done);  // done is a multiple of the period
    std::memcpy(b + from + done, b + from, n);
    done += n;
  }
}

// First p in [from, to) with b[p] != pattern[p % len], or `to`. The bytes
// are the pattern iff one period matches and every byte equals the one a
// period before it; only a failing block is searched byte by byte.
uint32_t first_pattern_mismatch(const unsigned char* b, uint32_t from, uint32_t to,
                                VerifyPattern pattern) noexcept {
  const uint32_t period = uint32_t(pattern.len);
  const uint32_t first = std::min(to, from + period);
  for (uint32_t p = from; p < first; ++p)
    if (b[p] != pattern.bytes[(pattern.phase + p) % period]) return p;
  if (first == to || std::memcmp(b + first, b + from, to - first) == 0) return to;
  for (uint32_t p = first; p < to; ++p)
    if (b[p] != pattern.bytes[(pattern.phase + p) % period]) return p;
  return to;
}

// crc32c of bytes [0, 28) and [32, header_len): all of the header but the
// header_crc field itself.
uint32_t header_crc(const unsigned char* b, uint32_t header_len) noexcept {
  uint32_t s = crc32c_update(0xFFFFFFFFu, b, kOffHeaderCrc);
  s = crc32c_update(s, b + kOffChecksum, header_len - kOffChecksum);
  return ~s;
}

void hex(char* out, const unsigned char* p, size_t n) noexcept {
  static constexpr char kDigits[] = "0123456789abcdef";
  for (size_t i = 0; i < n; ++i) {
    out[2 * i] = kDigits[p[i] >> 4];
    out[2 * i + 1] = kDigits[p[i] & 15];
  }
  out[2 * n] = '\0';
}

// printf-style failure. snprintf with these integer/string conversions does
// not allocate.
template <typename... Args>
VerifyResult fail(const char* fmt, Args... args) noexcept {
  VerifyResult r;
  r.ok = false;
  std::snprintf(r.reason, sizeof r.reason, fmt, args...);
  return r;
}

// verify=pattern (fio's verify_io_u_pattern): every byte of the block is
// the pattern's, in fio's words when one is not.
VerifyResult check_pattern_block(const unsigned char* b, uint32_t block_len, VerifyPattern pattern) noexcept {
  VerifyResult ok;
  ok.ok = true;
  ok.reason[0] = '\0';
  if (!pattern.len) return ok;
  const uint32_t p = first_pattern_mismatch(b, 0, block_len, pattern);
  if (p == block_len) return ok;
  const unsigned want = pattern.bytes[(pattern.phase + p) % pattern.len], got = b[p];
  VerifyResult r = fail("got pattern '%02x', wanted '%02x'. Bad bits %d; bad pattern block offset %" PRIu32,
                        got, want, __builtin_popcount(got ^ want), p);
  r.payload = true;
  return r;
}

}  // namespace

uint32_t verify_interval_of(const JobOptions& job) noexcept {
  const uint32_t min_w = job.bs[kDdirWrite], max_w = max_bs(job, kDdirWrite);
  uint32_t interval = job.verify_interval;
  if (max_w != min_w && !interval) interval = min_w;
  if (interval > min_w)
    interval = min_w;
  else if (does_read(job.rw) && interval > job.bs[kDdirRead])
    interval = job.bs[kDdirRead];
  if (!interval || min_w % interval || max_w % interval) interval = std::gcd(min_w, max_w);
  return interval;
}

uint32_t crc32c(const void* data, size_t len) noexcept {
  return crc32c_of(static_cast<const unsigned char*>(data), len);
}

void verify_fill(VerifyKind kind, void* block, uint32_t block_len, uint64_t offset, uint64_t seed) noexcept {
  verify_fill(kind, block, block_len, offset, seed, VerifyPattern{});
}

namespace {
// The header of a block whose payload is in place, the data checksum
// included. block_len must be one verify_block_len_ok() accepts.
void store_verify_header(VerifyKind kind, unsigned char* b, uint32_t block_len, uint64_t offset,
                         uint64_t seed) noexcept {
  const uint32_t hl = verify_header_len(kind);
  if (hl == 0) return;  // verify=0: payload only
  store(b + kOffMagic, kVerifyMagic);
  store(b + kOffKind, kind_code(kind));
  store(b + kOffHeaderLen, static_cast<uint16_t>(hl));
  store(b + kOffBlockLen, block_len);
  store(b + kOffOffset, offset);
  store(b + kOffSeed, seed);
  // The data checksum before the header crc: the header crc covers it.
  data_checksum(kind, b + hl, block_len - hl, b + kOffChecksum);
  store(b + kOffHeaderCrc, header_crc(b, hl));
}
}  // namespace

void verify_fill(VerifyKind kind, void* block, uint32_t block_len, uint64_t offset, uint64_t seed,
                 VerifyPattern pattern) noexcept {
  assert(verify_block_len_ok(block_len));
  if (!verify_block_len_ok(block_len)) return;
  auto* b = static_cast<unsigned char*>(block);
  const uint32_t hl = verify_header_len(kind);
  if (pattern.len)
    fill_pattern(b, hl, block_len, pattern);
  else
    fill_payload(b, hl, block_len, payload_key(seed, offset));
  store_verify_header(kind, b, block_len, offset, seed);
}

void verify_fill_write(VerifyKind kind, void* buffer, uint32_t length, uint32_t interval, uint64_t offset,
                       uint64_t seed, VerifyPattern pattern, bool pattern_in_place) noexcept {
  const uint32_t step = interval ? interval : length;
  assert(verify_block_len_ok(step));
  if (!verify_block_len_ok(step)) return;
  auto* b = static_cast<unsigned char*>(buffer);
  if (kind == VerifyKind::pattern) {  // fio: the pattern from the write's start, no headers
    if (pattern.len && !pattern_in_place)
      fill_pattern(b, 0, length, VerifyPattern{pattern.bytes, pattern.len});
    return;
  }
  // Byte p of the write is pattern[p % len]: with len dividing the step,
  // that is byte p - at of the block at `at`, as verify_fill would put it.
  const bool pattern_once = pattern.len && step % pattern.len == 0;
  if (pattern_once && !pattern_in_place) fill_pattern(b, 0, length, pattern);
  for (uint32_t at = 0; at + step <= length; at += step) {
    if (pattern_once)
      store_verify_header(kind, b + at, step, offset + at, seed);
    else
      verify_fill(kind, b + at, step, offset + at, seed, pattern);
  }
}

VerifyResult verify_check(VerifyKind kind, const void* block, uint32_t block_len,
                          uint64_t expected_offset) noexcept {
  return verify_check(kind, block, block_len, expected_offset, VerifyPattern{});
}

VerifyResult verify_check(VerifyKind kind, const void* block, uint32_t block_len, uint64_t expected_offset,
                          VerifyPattern pattern) noexcept {
  VerifyResult ok;
  ok.ok = true;
  ok.reason[0] = '\0';
  if (kind == VerifyKind::none) return ok;
  if (!verify_block_len_ok(block_len))
    return fail("bad read length %" PRIu32 " (verify needs at least %" PRIu32 " bytes, a multiple of 8)",
                block_len, kVerifyMinBlockLen);
  const auto* b = static_cast<const unsigned char*>(block);
  if (kind == VerifyKind::pattern) return check_pattern_block(b, block_len, pattern);

  const uint32_t magic = load<uint32_t>(b + kOffMagic);
  if (magic != kVerifyMagic) return fail("bad magic 0x%08" PRIx32 " (block never written?)", magic);

  // Only the two header lengths we write are trusted as the crc's extent; a
  // damaged header_len must not steer the reads, and any other value makes
  // the crc (which covers header_len) mismatch anyway.
  const uint16_t stored_hl = load<uint16_t>(b + kOffHeaderLen);
  bool known_hl = false;
  for (const auto& c : kKindCodes) known_hl |= stored_hl == verify_header_len(c.kind);
  const uint32_t crc_hl = known_hl && stored_hl <= block_len ? stored_hl : kOffChecksum;
  const uint32_t stored_hcrc = load<uint32_t>(b + kOffHeaderCrc);
  const uint32_t computed_hcrc = header_crc(b, crc_hl);
  if (stored_hcrc != computed_hcrc)
    return fail("header checksum mismatch (stored 0x%08" PRIx32 " computed 0x%08" PRIx32 ")", stored_hcrc,
                computed_hcrc);

  // A header that passes its crc but has an unknown kind or a header_len
  // not matching it was not written by verify_fill.
  const uint16_t code = load<uint16_t>(b + kOffKind);
  const VerifyKind found = kind_of_code(code);
  if (found == VerifyKind::none || stored_hl != verify_header_len(found))
    return fail("bad header: kind code %u with header length %u", unsigned{code}, unsigned{stored_hl});
  if (found != kind)
    return fail("verify kind mismatch: block has %s, job verifies %s", kind_name(found), kind_name(kind));

  // Offset before length: a block from elsewhere is the more basic fault,
  // and its length is then no news.
  const uint64_t written_at = load<uint64_t>(b + kOffOffset);
  if (written_at != expected_offset)
    return fail("block written for offset %" PRIu64 " found at offset %" PRIu64, written_at, expected_offset);

  const uint32_t written_len = load<uint32_t>(b + kOffBlockLen);
  if (written_len != block_len)
    return fail("length mismatch: block written with %" PRIu32 " bytes, read with %" PRIu32, written_len,
                block_len);

  const uint32_t hl = stored_hl;
  char detail[48];  // ", first bad byte at N" or empty
  auto first_off_pattern = [&] { return first_pattern_mismatch(b, hl, block_len, pattern); };
  auto locate = [&] {
    const uint32_t bad =
        pattern.len ? first_off_pattern()
                    : first_bad_byte(b, hl, block_len, payload_key(load<uint64_t>(b + kOffSeed), written_at));
    // All payload bytes as generated and still a mismatch: only possible if
    // the stored checksum itself was damaged in a way the header crc missed.
    if (bad == block_len)
      detail[0] = '\0';
    else
      std::snprintf(detail, sizeof detail, ", first bad byte at %" PRIu32, bad);
  };
  unsigned char got[64];
  const size_t n = data_checksum(found, b + hl, block_len - hl, got);
  if (n && std::memcmp(got, b + kOffChecksum, n) != 0) {
    locate();
    char want_text[2 * 64 + 3], got_text[2 * 64 + 3];
    if (found == VerifyKind::crc32c || found == VerifyKind::xxhash) {
      std::snprintf(want_text, sizeof want_text, "0x%08" PRIx32, load<uint32_t>(b + kOffChecksum));
      std::snprintf(got_text, sizeof got_text, "0x%08" PRIx32, load<uint32_t>(got));
    } else if (found == VerifyKind::crc64) {
      std::snprintf(want_text, sizeof want_text, "0x%016" PRIx64, load<uint64_t>(b + kOffChecksum));
      std::snprintf(got_text, sizeof got_text, "0x%016" PRIx64, load<uint64_t>(got));
    } else {
      hex(want_text, b + kOffChecksum, n);
      hex(got_text, got, n);
    }
    VerifyResult r =
        fail("data checksum mismatch (%s want %s got %s)%s", kind_name(found), want_text, got_text, detail);
    r.payload = true;
    return r;
  }
  if (pattern.len) {
    const uint32_t p = first_off_pattern();
    if (p != block_len) {
      VerifyResult r = fail("pattern mismatch at byte %" PRIu32 " (want 0x%02x got 0x%02x)", p,
                            unsigned{pattern.bytes[p % pattern.len]}, unsigned{b[p]});
      r.payload = true;
      return r;
    }
  }
  return ok;
}

void verify_expected(VerifyKind kind, const void* read, void* out, uint32_t block_len, uint64_t offset,
                     VerifyPattern pattern) noexcept {
  const auto* b = static_cast<const unsigned char*>(read);
  if (kind == VerifyKind::pattern) {
    if (pattern.len) fill_pattern(static_cast<unsigned char*>(out), 0, block_len, pattern);
    return;
  }
  verify_fill(kind, out, block_len, offset, load<uint64_t>(b + kOffSeed), pattern);
}

}  // namespace rs::workload
