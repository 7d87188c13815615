// fio-style data verification blocks (verify=crc32c, crc64, md5, sha1,
// sha256, sha512, xxhash, meta; verify=pattern writes the pattern alone,
// without the header described below).
//
// With verify= set, every block a job writes is self-describing: a header
// saying what was written where, followed by pseudo-random payload derived
// from (seed, offset). Reading the block back, verify_check() needs only the
// offset it read from to tell whether the block is intact, and if it is not,
// what went wrong: never written, torn or corrupted header, written for a
// different offset (misdirected write or a RAID mapping bug), written with a
// different length, or payload corruption. Like fio, the header carries its
// own checksum so that a damaged header is told apart from damaged data, and
// the payload checksum lives in the header so no state has to be kept
// between the write and the read.
//
// On-media layout (all integers little-endian; offsets in bytes):
//
//    0  u32 magic       kVerifyMagic (bytes "RSVB")
//    4  u16 kind        1 crc32c, 2 md5, 3 crc64, 4 sha1, 5 sha256, 6 sha512,
//                       7 xxhash, 8 meta (fixed codes, not VerifyKind's values)
//    6  u16 header_len  verify_header_len(kind): 32 + the checksum's bytes
//                       rounded up to 8 (crc32c, crc64, xxhash 40; md5 48;
//                       sha1 56; sha256 64; sha512 96; meta 32)
//    8  u32 block_len   length of the whole block, header included
//   12  u64 offset      byte offset the block was written for
//   20  u64 seed        payload seed
//   28  u32 header_crc  crc32c of bytes [0, 28) followed by [32, header_len):
//                       every header byte but itself, the data checksum too
//   32  data checksum of bytes [header_len, block_len), then zeros up to
//       header_len (keeps the payload 8-byte aligned):
//         crc32c: u32 CRC-32C; crc64: u64 CRC-64/XZ (ECMA-182, as fio's
//         crc64); xxhash: u32 XXH32 with seed 0 (fio's verify=xxhash);
//         md5, sha1, sha256, sha512: the digest's bytes (md5.hpp,
//         digests.hpp); meta: none, the header alone is checked (fio's
//         verify=meta checks its header's offset and identity only)
//   header_len .. block_len: payload, 64-bit little-endian words; word i is a
//       fixed function of (seed, offset, i), so the same (seed, offset) always
//       gives the same bytes and different seeds or offsets give different ones.
//
// Thread safety and cost: all functions here are pure functions of their
// arguments; they take no lock and never allocate (they run on the I/O path).
#pragma once
#include <cstddef>
#include <cstdint>

#include "workload/job_options.hpp"

namespace rs::workload {

inline constexpr uint32_t kVerifyMagic = 0x42565352;  // "RSVB" in on-media byte order
inline constexpr uint32_t kVerifyMinBlockLen = 512;

// Header bytes a block of this kind starts with; 0 for VerifyKind::none.
constexpr uint32_t verify_header_len(VerifyKind kind) noexcept {
  switch (kind) {
    case VerifyKind::crc32c:
    case VerifyKind::crc64:
    case VerifyKind::xxhash:
      return 40;
    case VerifyKind::md5:
      return 48;
    case VerifyKind::sha1:
      return 56;
    case VerifyKind::sha256:
      return 64;
    case VerifyKind::sha512:
      return 96;
    case VerifyKind::meta:
      return 32;
    case VerifyKind::none:
    case VerifyKind::pattern:  // fio's verify=pattern: the pattern alone
      break;
  }
  return 0;
}

// Whether block_len is one verify_fill/verify_check accept: at least
// kVerifyMinBlockLen and a multiple of 8.
constexpr bool verify_block_len_ok(uint32_t block_len) noexcept {
  return block_len >= kVerifyMinBlockLen && block_len % 8 == 0;
}

// The verify interval a job uses, as fio's fixup_options sets it: the
// job's verify_interval, else (variable write sizes) the smallest write
// size; at most the smallest write size (for a job that reads, the
// smallest read size too); and when that does not divide both the
// smallest and the largest write size, their greatest common divisor.
// A fixed block size without verify_interval gives the block size.
uint32_t verify_interval_of(const JobOptions& job) noexcept;

// Standard CRC-32C (Castagnoli, reflected, init and final xor 0xFFFFFFFF,
// as used by iSCSI, ext4, btrfs): crc32c("123456789") == 0xE3069283.
// Computed with ISA-L's crc32_iscsi, which applies neither the initial nor
// the final inversion itself: crc32c(x) == ~crc32_iscsi(x, len, ~0u).
uint32_t crc32c(const void* data, size_t len) noexcept;

// Fills block[0, block_len) for a write at `offset`: header, then payload
// derived from (seed, offset). With kind == none there is no header: the
// whole block is payload (what fio writes with verify=0).
// Preconditions: verify_block_len_ok(block_len); block points to block_len
// writable bytes (any alignment). Violations are caught by assert() in debug
// builds; in release builds the block is left untouched.
void verify_fill(VerifyKind kind, void* block, uint32_t block_len, uint64_t offset, uint64_t seed) noexcept;

// fio's verify_pattern: the payload is the pattern repeated (byte p of the
// block is pattern[p % len]) instead of pseudo-random words. Empty: none.
struct VerifyPattern {
  const uint8_t* bytes = nullptr;
  size_t len = 0;
  // verify=pattern (fio's VERIFY_PATTERN_NO_HDR): the pattern runs on from
  // the start of the write, so a block holds it from this pattern byte on:
  // byte p of the block is pattern[(phase + p) % len].
  size_t phase = 0;
};
// verify_fill with the payload taken from `pattern` (when not empty).
void verify_fill(VerifyKind kind, void* block, uint32_t block_len, uint64_t offset, uint64_t seed,
                 VerifyPattern pattern) noexcept;

// A whole write of `length` bytes at `offset`, cut into verify blocks of
// `interval` bytes (0: one block, the write), each filled as verify_fill
// fills it. With a pattern whose length divides the interval, every block
// holds the same pattern bytes: they are written once over the write and
// then each block's header (checksum included) on top. 128 pattern fills of
// 512 bytes cost more than the 64 KiB write's own system call did.
// `pattern_in_place`: the buffer already holds that pattern over `length`
// bytes from an earlier call (headers aside), so only the headers are
// written, as fio does (buf_filled_len); the caller clears it whenever
// anything else lands in the buffer, a read above all.
void verify_fill_write(VerifyKind kind, void* buffer, uint32_t length, uint32_t interval, uint64_t offset,
                       uint64_t seed, VerifyPattern pattern, bool pattern_in_place = false) noexcept;

// The outcome of verify_check. reason is a NUL-terminated message, empty
// when ok; a fixed buffer so that checking never allocates.
struct VerifyResult {
  bool ok;
  char reason[384];  // room for two SHA-512 digests in hex
  // The header was sound and the payload was not (data checksum, pattern):
  // fio then dumps the block read and the block expected; otherwise the
  // header failed (fio's verify_header) and fio dumps the block alone.
  bool payload = false;
};

// The block verify_fill wrote where `read` (a block that failed
// verify_check with `payload` set: its header is sound) was read: the
// payload regenerated from the header's seed, or the pattern. Fills
// out[0, block_len).
void verify_expected(VerifyKind kind, const void* read, void* out, uint32_t block_len, uint64_t offset,
                     VerifyPattern pattern) noexcept;

// Checks a block read back from `expected_offset`: block points to
// block_len readable bytes, block_len being the length of the read. Never
// reads outside them, whatever the block contains. Checks, in this order
// (the first failure is reported):
//   - block_len acceptable (verify_block_len_ok): "bad read length N (...)",
//   - magic: "bad magic 0x... (block never written?)",
//   - header checksum: "header checksum mismatch (stored 0x... computed 0x...)";
//     damage to the header after the magic lands here (for certain when it
//     spans at most 32 bits, CRC-32C's burst guarantee; otherwise but for a
//     2^-32 chance),
//   - kind: "bad header: kind code K with header length L" (a header with a
//     valid crc that verify_fill would not write), then
//     "verify kind mismatch: block has md5, job verifies crc32c",
//   - offset: "block written for offset X found at offset Y" (decimal bytes),
//   - length: "length mismatch: block written with N bytes, read with M",
//   - payload: "data checksum mismatch (crc32c want 0x... got 0x...), first
//     bad byte at N" (want: stored in the header; got: of the bytes read; N:
//     index in the block of the first byte that differs from the payload,
//     regenerated from the header's seed only on this failure path).
// With kind == none nothing is checked and the result is ok.
VerifyResult verify_check(VerifyKind kind, const void* block, uint32_t block_len,
                          uint64_t expected_offset) noexcept;
// verify_check for blocks filled with `pattern`: as above, and then (fio's
// verify_io_u_pattern) every payload byte must be the pattern's:
// "pattern mismatch at byte N (want 0x.. got 0x..)". For verify=meta this
// is the only payload check, as in fio. For VerifyKind::pattern the block
// has no header: every byte is checked, and a failure reads as fio's
// "got pattern 'XX', wanted 'YY'. Bad bits N; bad pattern block offset P".
VerifyResult verify_check(VerifyKind kind, const void* block, uint32_t block_len, uint64_t expected_offset,
                          VerifyPattern pattern) noexcept;

}  // namespace rs::workload
