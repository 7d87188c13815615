// Where the copies of a mirrored array's data live: md's raid1 (every
// member holds every sector at the same device sector) or raid10 (near /
// far / offset copies over chunks). A thin front over the pure maps in
// layout/, so the mirror personality is written once for both levels.
#pragma once
#include <cstdint>
#include <string>

#include "base/result.hpp"
#include "layout/address.hpp"
#include "layout/raid10.hpp"
#include "raid/personality.hpp"

namespace rs::mirror {

class CopyMap {
 public:
  // Checks the shape (level 1 or 10, md's layout word and chunk rules).
  static Result<CopyMap> make(const raid::Shape& shape);

  int copies() const { return level_ == 10 ? r10_.copies() : raid_disks_; }
  uint64_t array_sectors() const;
  // Sectors from `array_sector` to the end of its chunk (raid1: unbounded).
  uint64_t sectors_to_boundary(uint64_t array_sector) const;
  // The copies of `array_sector` in md's order; `out` holds copies() entries.
  int map(uint64_t array_sector, layout::DevAddress* out) const;
  // The array sector stored at `dev_sector` of member `disk` (>= array_sectors(): none).
  uint64_t find_virt(int disk, uint64_t dev_sector) const;
  // Maintenance works in pieces of at most 1 MiB that never cross a chunk.
  uint64_t piece_sectors() const;
  uint64_t dev_sectors() const { return dev_sectors_; }
  std::string layout_name() const;  // "" for raid1, "near=2" ...
  std::string describe() const;     // "2 mirrors", "layout near=2, chunk 512K"

 private:
  int level_ = 1;
  int raid_disks_ = 0;
  uint32_t layout_ = 0;
  uint64_t dev_sectors_ = 0;
  layout::Raid10Geometry r10_;
};

}  // namespace rs::mirror
