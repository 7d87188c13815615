// md's write-intent bitmap superblock (bitmap_super_t, version 4: bits in
// little-endian order) and the bitmap's size on disk. Pure: no I/O.
//
// The bitmap lives `bitmap_offset` sectors after the v1.2 superblock, before
// the data: a 256-byte bitmap superblock, then one bit per bitmap chunk
// (chunk i: byte 256 + i/8, bit i%8). md reads and writes it a 4 KiB page at
// a time; the last page is partial. See README.md in this folder.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string>

#include "ondisk/superblock.hpp"

namespace rs::ondisk {

inline constexpr uint32_t kBitmapMagic = 0x6d746962;  // "bitm"
inline constexpr uint32_t kBitmapVersion = 4;
inline constexpr uint32_t kBitmapSuperBytes = 256;
inline constexpr uint32_t kBitmapPageBytes = 4096;
inline constexpr uint32_t kBitmapStateStale = 2;
inline constexpr uint32_t kBitmapStateWriteError = 4;
inline constexpr uint32_t kBitmapDefaultDaemonSleep = 5;  // seconds

struct BitmapSuper {
  uint32_t version = kBitmapVersion;
  Uuid uuid{};
  uint64_t events = 0;
  uint64_t events_cleared = 0;
  uint64_t sync_size = 0;  // sectors the bitmap covers
  uint32_t state = 0;
  uint32_t chunksize = 0;  // bytes, a power of two
  uint32_t daemon_sleep = kBitmapDefaultDaemonSleep;
  uint32_t write_behind = 0;
  uint32_t sectors_reserved = 0;
  uint32_t nodes = 0;

  bool operator==(const BitmapSuper&) const = default;
};

// Bitmap chunks (bits) covering `sync_size` sectors in chunks of `chunk_bytes`.
uint64_t bitmap_chunks(uint64_t sync_size, uint32_t chunk_bytes);
// Bytes of the bitmap on disk: the superblock and the bits.
uint64_t bitmap_bytes(uint64_t chunks);
// Pages md writes it in (the last partial).
uint64_t bitmap_pages(uint64_t chunks);

std::array<uint8_t, kBitmapSuperBytes> encode_bitmap(const BitmapSuper& b);

// Decodes the 256-byte bitmap superblock and checks it against the array it
// belongs to: magic, version 4, the array's uuid, a chunk size that is a
// power of two of at least 4 KiB, a daemon sleep of 1..86400 s, and bits
// that fit in `space_bytes` (from the bitmap's start to the data). A
// rejection is Errc::corrupt naming the field.
Result<BitmapSuper> decode_bitmap(std::span<const uint8_t> block, const Uuid& array_uuid,
                                  uint64_t space_bytes);

// Checks a bitmap about to be created: Errc::invalid_argument saying what
// is wrong (the chunk size, or bits that would overlap the data).
Status validate_new_bitmap(uint64_t sync_size, uint32_t chunk_bytes, uint64_t space_bytes);

}  // namespace rs::ondisk
