// RAID10 address maths as md does it: near (nN), far (fN) and offset (oN)
// copies, chunked. Pure. Sectors are 512 bytes; a "device sector" is
// relative to the member's data_offset.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace rs::layout {

struct Raid10Geometry {
  int raid_disks = 0;
  int near_copies = 2;
  int far_copies = 1;
  bool far_offset = false;     // offset layout: far copies are offset by one chunk
  uint32_t chunk_sectors = 1024;
  uint64_t dev_sectors = 0;    // usable sectors per member (md's `size`), a multiple of chunk_sectors

  int copies() const { return near_copies * far_copies; }
};

// md's layout word: bits 0-7 near copies, 8-15 far copies, bit 16 offset.
std::optional<Raid10Geometry> raid10_from_layout(uint32_t layout, int raid_disks, uint32_t chunk_sectors,
                                                 uint64_t dev_sectors, std::string* error);
uint32_t raid10_layout_word(const Raid10Geometry& g);

// Array capacity in sectors (md's raid10_size).
uint64_t raid10_array_sectors(const Raid10Geometry& g);

struct DevAddress {
  int disk = -1;
  uint64_t sector = 0;   // device sector
};

// Maps an array sector to its copies (md's __raid10_find_phys); writes
// g.copies() entries into `out` in md's copy order and returns that count.
int raid10_map(const Raid10Geometry& g, uint64_t array_sector, DevAddress* out);

// Reverse map (md's raid10_find_virt): which array sector lives at
// `dev_sector` of `disk`.
uint64_t raid10_find_virt(const Raid10Geometry& g, int disk, uint64_t dev_sector);

}  // namespace rs::layout
