// RAID1 address maths as md does it. Pure, header only. Sectors are 512
// bytes; a device sector is relative to the member's data_offset.
//
// Every mirror holds array sector s at its own device sector s: md's raid1
// has no chunking and no per-member offset (data_offset differences are
// absorbed by DevAddress being data_offset-relative). The array is as large
// as one member's usable area (md's raid1_size returns dev_sectors).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "base/result.hpp"
#include "layout/address.hpp"

namespace rs::layout {

struct Raid1Geometry {
  int raid_disks = 0;        // mirrors, >= 1 (md accepts a one-disk raid1)
  uint64_t dev_sectors = 0;  // usable sectors per member (md's `size`)
};

// md's raid1 has no layout word or chunk; only the mirror count is checked.
inline Result<Raid1Geometry> raid1_geometry(int raid_disks, uint64_t dev_sectors) {
  if (raid_disks < 1)
    return make_error(Errc::invalid_argument,
                      "raid1 needs at least 1 raid disk, got " + std::to_string(raid_disks));
  return Raid1Geometry{raid_disks, dev_sectors};
}

inline uint64_t raid1_array_sectors(const Raid1Geometry& g) {
  return g.dev_sectors;
}

// Writes g.raid_disks entries (disk 0..raid_disks-1, each at array_sector)
// into `out` and returns that count. Precondition: array_sector <
// raid1_array_sectors(g), `out` holds g.raid_disks entries.
inline int raid1_map(const Raid1Geometry& g, uint64_t array_sector, DevAddress* out) {
  for (int d = 0; d < g.raid_disks; ++d) out[d] = DevAddress{d, array_sector};
  return g.raid_disks;
}

// Reverse map: the array sector stored at `dev_sector` of any mirror. Past
// dev_sectors nothing is stored and the result is >= raid1_array_sectors(g).
inline uint64_t raid1_find_virt(const Raid1Geometry& /*g*/, int /*disk*/, uint64_t dev_sector) {
  return dev_sector;
}

}  // namespace rs::layout
