// MD5 (RFC 1321), for verify=md5 blocks.
//
// MD5 is broken as a cryptographic hash; here it only detects accidental
// corruption, which it still does well, and it is what fio's verify=md5
// offers. One-shot only: every verified block is hashed whole.
//
// Contract: md5() is pure, thread-safe, allocation-free and lock-free (it
// runs on the I/O path); data needs no particular alignment and may be null
// when len is 0. The digest is in RFC 1321 byte order, i.e. the bytes that
// `md5sum` prints as hex.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

namespace rs::workload {

using Md5Digest = std::array<uint8_t, 16>;

Md5Digest md5(const void* data, size_t len) noexcept;

}  // namespace rs::workload
