// Member addresses shared by the raid1 / raid10 / raid5 maps. Pure data.
#pragma once
#include <cstdint>

namespace rs::layout {

// md refuses chunks smaller than a page (PAGE_SIZE >> 9 sectors).
inline constexpr uint32_t kMinChunkSectors = 8;

// One place on one member. `sector` is a 512-byte device sector counted from
// the member's data_offset (md's rdev-relative `addr`), never an absolute
// LBA, so the maps stay independent of the superblock placement.
struct DevAddress {
  int disk = -1;  // raid_disk role (slot), not an index into a device list
  uint64_t sector = 0;

  friend bool operator==(const DevAddress&, const DevAddress&) = default;
};

}  // namespace rs::layout
