// The parity personality's view of its layout, as md's raid5.c serves
// levels 5 and 6 from one conf: max_degraded 1 (P) or 2 (P and Q), and the
// level's own map (layout/raid5.* or layout/raid6.*) behind one set of
// questions. Pure.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "base/result.hpp"
#include "layout/raid5.hpp"
#include "layout/raid6.hpp"

namespace rs::raid5 {

struct StripeGeometry {
  int level = 5;
  layout::Raid5Geometry r5;  // level 5
  layout::Raid6Geometry r6;  // level 6
  int raid_disks = 0;
  uint32_t chunk_sectors = 0;
  uint64_t dev_sectors = 0;

  // Members a stripe can lose and still serve its data (md's max_degraded).
  int max_degraded() const { return level == 6 ? 2 : 1; }
  int data_disks() const { return raid_disks - max_degraded(); }

  struct Parity {
    int pd = -1;
    int qd = -1;  // -1 on level 5
    bool holds(int disk) const { return disk == pd || disk == qd; }
  };
  Parity parity(uint64_t stripe) const;

  struct Address {
    int dd_idx = -1;
    Parity parity;
    uint64_t sector = 0;
  };
  Address compute_sector(uint64_t array_sector) const;

  // Level 6: `disk`'s place in Q's sum (layout::raid6_syndrome_slot).
  int syndrome_slot(uint64_t stripe, int disk) const;

  uint64_t array_sectors() const;
  std::string layout_name() const;
};

// The geometry of a level 5 or 6 shape, or Errc::invalid_argument saying why.
Result<StripeGeometry> stripe_geometry(int level, uint32_t layout, int raid_disks, uint32_t chunk_sectors,
                                       uint64_t dev_sectors);

}  // namespace rs::raid5
