// RAID5 address maths as md does it (raid5_compute_sector / compute_blocknr)
// for the four classic parity layouts. Pure. Sectors are 512 bytes; a device
// sector is relative to the member's data_offset.
//
// Model: array chunk c is data chunk c % data_disks of stripe c / data_disks;
// a stripe is one chunk on every member, at device chunk `stripe`. The
// algorithm picks the parity disk (pd_idx) per stripe and where the data
// chunks go around it:
//  - left:  parity starts on the last disk and moves left each stripe;
//    right: parity starts on disk 0 and moves right.
//  - asymmetric: data fills the disks left to right, skipping parity;
//    symmetric: data starts just after parity and wraps around, so
//    consecutive chunks walk every disk in turn.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "base/result.hpp"

namespace rs::layout {

// md's ALGORITHM_* numbers, which are also the superblock layout word.
enum class Raid5Algorithm : uint32_t {
  LeftAsymmetric = 0,
  RightAsymmetric = 1,
  LeftSymmetric = 2,  // mdadm's default
  RightSymmetric = 3,
};

// mdadm's spelling: "left-asymmetric", "right-asymmetric", ...
const char* raid5_algorithm_name(Raid5Algorithm algorithm);

struct Raid5Geometry {
  int raid_disks = 0;
  Raid5Algorithm algorithm = Raid5Algorithm::LeftSymmetric;
  uint32_t chunk_sectors = 1024;  // power of two
  uint64_t dev_sectors = 0;       // usable sectors per member (md's `size`)

  int data_disks() const { return raid_disks - 1; }
};

// Accepts what md accepts for these layouts: layout 0..3 (md's other raid5
// layouts, parity-first/-last and the DDF ones, are rejected), raid_disks
// >= 2, chunk a power of two of at least 8 sectors (4 KiB). dev_sectors need
// not be a chunk multiple; the partial last chunk is unused. Otherwise
// Errc::invalid_argument saying why.
Result<Raid5Geometry> raid5_from_layout(uint32_t layout, int raid_disks, uint32_t chunk_sectors,
                                        uint64_t dev_sectors);

// md's raid5_size: dev_sectors rounded down to whole chunks, times
// data_disks.
uint64_t raid5_array_sectors(const Raid5Geometry& g);

// Member holding parity for stripe `stripe` (= device chunk index).
int raid5_parity_disk(const Raid5Geometry& g, uint64_t stripe);

// Forward map, md's raid5_compute_sector.
struct Raid5Address {
  int dd_idx = -1;      // member holding the data
  int pd_idx = -1;      // member holding this stripe's parity
  uint64_t sector = 0;  // device sector, same on every member of the stripe
};
Raid5Address raid5_compute_sector(const Raid5Geometry& g, uint64_t array_sector);

// Position (0..data_disks-1) of `disk`'s data chunk within stripe `stripe`,
// or -1 when `disk` holds the parity of that stripe.
int raid5_data_index(const Raid5Geometry& g, uint64_t stripe, int disk);

// Reverse map, md's compute_blocknr: the array sector stored at
// `dev_sector` of `disk`, or nullopt when that is parity.
std::optional<uint64_t> raid5_compute_blocknr(const Raid5Geometry& g, int disk, uint64_t dev_sector);

}  // namespace rs::layout
