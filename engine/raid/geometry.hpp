// One array's data geometry: which member sectors hold an array sector.
// Dispatches to the pure maps in layout/ for the array's level.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "layout/address.hpp"
#include "layout/raid10.hpp"

namespace rs::raid {

inline constexpr int kMaxCopies = 8;
inline constexpr uint64_t kSectorBytes = 512;

struct Geometry {
  int level = 1;  // 1 or 10
  int raid_disks = 0;
  uint32_t layout = 0;         // md's layout word (raid10)
  uint32_t chunk_sectors = 0;  // raid10; 0 for raid1
  uint64_t dev_sectors = 0;    // md's `size`: used sectors per member
  uint64_t data_offset = 0;    // sectors from the member start
  layout::Raid10Geometry r10;  // valid when level == 10

  // Builds and checks a geometry; nullopt with *error naming the problem.
  static std::optional<Geometry> make(int level, int raid_disks, uint32_t layout, uint32_t chunk_sectors,
                                      uint64_t dev_sectors, uint64_t data_offset, std::string* error);

  uint64_t array_sectors() const;
  int copies() const { return level == 10 ? r10.copies() : raid_disks; }
  // Sectors from `array_sector` to the end of its chunk (raid1: unbounded).
  uint64_t sectors_to_boundary(uint64_t array_sector) const;
  // Copies of `array_sector`, in md's order; returns the count.
  int map(uint64_t array_sector, layout::DevAddress* out) const;
  // The array sector held at `dev_sector` of member `disk`.
  uint64_t find_virt(int disk, uint64_t dev_sector) const;
  std::string layout_name() const;  // "" for raid1, "near=2" ...
};

// Parses "n2", "f2", "o2" (also "near2" ...) into md's raid10 layout word.
std::optional<uint32_t> parse_raid10_layout(const std::string& text, std::string* error);

}  // namespace rs::raid
