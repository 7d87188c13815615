// RAID6 address maths as md does it (raid5.c raid5_compute_sector and
// compute_blocknr, level 6) for md's rotating-parity layouts. Pure. Sectors
// are 512 bytes; a device sector is relative to the member's data_offset.
//
// Model: array chunk c is data chunk c % data_disks of stripe c / data_disks
// (data_disks = raid_disks - 2); a stripe is one chunk on every member, at
// device chunk `stripe`. Each stripe has a P (XOR) and a Q (Reed-Solomon)
// chunk:
//  - layouts 0..3 (left/right, asymmetric/symmetric): P rotates over all
//    members as in RAID5 (left: from the last member leftwards; right: from
//    member 0 rightwards) and Q sits just after P (on member 0 when P is on
//    the last). Symmetric: data starts just after Q and wraps around.
//    Asymmetric: data fills the other members left to right.
//  - the -6 layouts 16..19: the RAID5 layout of the same name on the first
//    raid_disks - 1 members, Q always on the last member (md's trivial
//    RAID5 -> RAID6 conversion).
// Q's coefficients follow md's syndrome order (raid6_d0, raid6_idx_to_slot),
// which is not always the data order: walk the members from the one after Q
// (member 0 when Q is the last), wrapping, skipping P and Q; the k-th data
// member met is multiplied by g^k.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "base/result.hpp"

namespace rs::layout {

// md's ALGORITHM_* numbers, which are also the superblock layout word.
// md's parity-first/-last and DDF layouts (4, 5, 8..10, 20) are not here.
enum class Raid6Algorithm : uint32_t {
  LeftAsymmetric = 0,
  RightAsymmetric = 1,
  LeftSymmetric = 2,  // mdadm's default
  RightSymmetric = 3,
  LeftAsymmetric6 = 16,
  RightAsymmetric6 = 17,
  LeftSymmetric6 = 18,
  RightSymmetric6 = 19,
};

inline constexpr int kRaid6MinDisks = 4;  // mdadm: "at least 4 raid-devices needed for level 6"

// mdadm's spelling: "left-symmetric", "left-symmetric-6", ...; "" for a
// number that is not one of the layouts above.
std::string raid6_algorithm_name(uint32_t algorithm);

struct Raid6Geometry {
  int raid_disks = 0;
  Raid6Algorithm algorithm = Raid6Algorithm::LeftSymmetric;
  uint32_t chunk_sectors = 1024;  // power of two
  uint64_t dev_sectors = 0;       // usable sectors per member (md's `size`)

  int data_disks() const { return raid_disks - 2; }
};

// Accepts the layouts above, raid_disks >= 4, chunk a power of two of at
// least 8 sectors (4 KiB). Otherwise Errc::invalid_argument saying why.
Result<Raid6Geometry> raid6_from_layout(uint32_t layout, int raid_disks, uint32_t chunk_sectors,
                                        uint64_t dev_sectors);

// md's raid5_size: dev_sectors rounded down to whole chunks, times data_disks.
uint64_t raid6_array_sectors(const Raid6Geometry& g);

// The members holding P and Q of stripe `stripe` (= device chunk index).
struct Raid6ParityDisks {
  int pd_idx = -1;
  int qd_idx = -1;
};
Raid6ParityDisks raid6_parity_disks(const Raid6Geometry& g, uint64_t stripe);

// Forward map, md's raid5_compute_sector for level 6.
struct Raid6Address {
  int dd_idx = -1;      // member holding the data
  int pd_idx = -1;      // member holding this stripe's P
  int qd_idx = -1;      // member holding this stripe's Q
  uint64_t sector = 0;  // device sector, same on every member of the stripe
};
Raid6Address raid6_compute_sector(const Raid6Geometry& g, uint64_t array_sector);

// Position (0..data_disks-1) of `disk`'s data chunk within stripe `stripe`
// in array order, or -1 when `disk` holds P or Q of that stripe.
int raid6_data_index(const Raid6Geometry& g, uint64_t stripe, int disk);

// Position (0..data_disks-1) of `disk`'s data chunk in Q's sum (its chunk
// is multiplied by g^slot), or -1 when `disk` holds P or Q.
int raid6_syndrome_slot(const Raid6Geometry& g, uint64_t stripe, int disk);

// Reverse map, md's compute_blocknr: the array sector stored at
// `dev_sector` of `disk`, or nullopt when that is P or Q.
std::optional<uint64_t> raid6_compute_blocknr(const Raid6Geometry& g, int disk, uint64_t dev_sector);

}  // namespace rs::layout
