#include "ondisk/bitmap.hpp"

#include <algorithm>
#include <cstdio>

#include "ondisk/le.hpp"

namespace rs::ondisk {

namespace {
// Field offsets of bitmap_super_t (named apart from the superblock's).
namespace field {
constexpr size_t kMagic = 0, kVersion = 4, kUuid = 8, kEvents = 24, kEventsCleared = 32, kSyncSize = 40,
                 kState = 48, kChunksize = 52, kDaemonSleep = 56, kWriteBehind = 60, kSectorsReserved = 64,
                 kNodes = 68;
}  // namespace field

bool power_of_two(uint64_t v) {
  return v && !(v & (v - 1));
}
}  // namespace

uint64_t bitmap_chunks(uint64_t sync_size, uint32_t chunk_bytes) {
  const uint64_t chunk_sectors = chunk_bytes / 512;
  return chunk_sectors ? (sync_size + chunk_sectors - 1) / chunk_sectors : 0;
}

uint64_t bitmap_bytes(uint64_t chunks) {
  return kBitmapSuperBytes + (chunks + 7) / 8;
}

uint64_t bitmap_pages(uint64_t chunks) {
  return (bitmap_bytes(chunks) + kBitmapPageBytes - 1) / kBitmapPageBytes;
}

std::array<uint8_t, kBitmapSuperBytes> encode_bitmap(const BitmapSuper& b) {
  std::array<uint8_t, kBitmapSuperBytes> out{};
  uint8_t* p = out.data();
  le::put32(p + field::kMagic, kBitmapMagic);
  le::put32(p + field::kVersion, b.version);
  std::copy(b.uuid.begin(), b.uuid.end(), p + field::kUuid);
  le::put64(p + field::kEvents, b.events);
  le::put64(p + field::kEventsCleared, b.events_cleared);
  le::put64(p + field::kSyncSize, b.sync_size);
  le::put32(p + field::kState, b.state);
  le::put32(p + field::kChunksize, b.chunksize);
  le::put32(p + field::kDaemonSleep, b.daemon_sleep);
  le::put32(p + field::kWriteBehind, b.write_behind);
  le::put32(p + field::kSectorsReserved, b.sectors_reserved);
  le::put32(p + field::kNodes, b.nodes);
  return out;
}

Status validate_new_bitmap(uint64_t sync_size, uint32_t chunk_bytes, uint64_t space_bytes) {
  if (!power_of_two(chunk_bytes) || chunk_bytes < kBitmapPageBytes)
    return make_error(Errc::invalid_argument, "bitmap chunk " + std::to_string(chunk_bytes) +
                                                  " bytes: must be a power of two of at least 4096");
  const uint64_t chunks = bitmap_chunks(sync_size, chunk_bytes);
  const uint64_t need = bitmap_pages(chunks) * kBitmapPageBytes;
  if (need > space_bytes)
    return make_error(Errc::invalid_argument,
                      "a bitmap of " + std::to_string(chunks) + " chunks needs " + std::to_string(need) +
                          " bytes but only " + std::to_string(space_bytes) +
                          " fit before the data: it would overlap the data (use a larger --bitmap-chunk)");
  return {};
}

Result<BitmapSuper> decode_bitmap(std::span<const uint8_t> block, const Uuid& array_uuid,
                                  uint64_t space_bytes) {
  auto corrupt = [](std::string why) { return make_error(Errc::corrupt, std::move(why)); };
  if (block.size() < kBitmapSuperBytes)
    return corrupt("bitmap superblock cut short (" + std::to_string(block.size()) + " bytes)");
  const uint8_t* p = block.data();
  const uint32_t magic = le::get32(p + field::kMagic);
  if (magic != kBitmapMagic) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "bad bitmap magic 0x%08x (expected 0x%08x)", magic, kBitmapMagic);
    return corrupt(buf);
  }
  BitmapSuper b;
  b.version = le::get32(p + field::kVersion);
  std::copy(p + field::kUuid, p + field::kUuid + 16, b.uuid.begin());
  b.events = le::get64(p + field::kEvents);
  b.events_cleared = le::get64(p + field::kEventsCleared);
  b.sync_size = le::get64(p + field::kSyncSize);
  b.state = le::get32(p + field::kState);
  b.chunksize = le::get32(p + field::kChunksize);
  b.daemon_sleep = le::get32(p + field::kDaemonSleep);
  b.write_behind = le::get32(p + field::kWriteBehind);
  b.sectors_reserved = le::get32(p + field::kSectorsReserved);
  b.nodes = le::get32(p + field::kNodes);
  if (b.version != kBitmapVersion)
    return corrupt("bitmap version " + std::to_string(b.version) +
                   " is not supported (4: md's little-endian bitmap)");
  if (b.uuid != array_uuid)
    return corrupt("the bitmap belongs to another array (UUID " + uuid_to_string(b.uuid) + ")");
  if (!power_of_two(b.chunksize) || b.chunksize < kBitmapPageBytes)
    return corrupt("bitmap chunk size " + std::to_string(b.chunksize) +
                   " is not a power of two of at least 4096");
  if (b.daemon_sleep < 1 || b.daemon_sleep > 86400)
    return corrupt("bitmap daemon sleep " + std::to_string(b.daemon_sleep) + " s is outside 1..86400");
  if (b.nodes > 1)
    return corrupt("clustered bitmaps (" + std::to_string(b.nodes) + " nodes) are not supported");
  if (b.sync_size == 0) return corrupt("the bitmap covers no sectors (sync_size 0)");
  if (bitmap_pages(bitmap_chunks(b.sync_size, b.chunksize)) * kBitmapPageBytes > space_bytes)
    return corrupt("the bitmap's " + std::to_string(bitmap_chunks(b.sync_size, b.chunksize)) +
                   " bits do not fit before the data (" + std::to_string(space_bytes) + " bytes)");
  return b;
}

}  // namespace rs::ondisk
