// RAID10 address maths as md does it: near (nN), far (fN) and offset (oN)
// copies, chunked. Pure. Sectors are 512 bytes; a "device sector" is
// relative to the member's data_offset.
//
// Model (md's raid10.c): array chunk c owns the near_copies consecutive
// "slots" c*near_copies .. c*near_copies+near_copies-1 of a raid0-like grid
// whose rows ("stripes") are raid_disks slots wide; slot k sits on disk
// k % raid_disks in stripe k / raid_disks. Each near copy then gets
// far_copies-1 further copies, each one moved near_copies disks to the right
// (mod raid_disks) and `stride` sectors further down the member:
//  - far:    stride = (used chunks per member / far_copies) chunks, so the
//            member is split into far_copies regions, one per copy;
//  - offset: stride = 1 chunk and each stripe occupies far_copies device
//            chunks, so the copies of a stripe sit right below it.
// md's "far sets" (layout bit 17) are not supported.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "base/result.hpp"
#include "layout/address.hpp"

namespace rs::layout {

// The "offset" bit of md's RAID10 layout word (far copies offset by a chunk).
inline constexpr uint32_t kRaid10OffsetBit = 1u << 16;

struct Raid10Geometry {
  int raid_disks = 0;
  int near_copies = 2;
  int far_copies = 1;
  bool far_offset = false;        // offset layout: far copies are offset by one chunk
  uint32_t chunk_sectors = 1024;  // power of two
  uint64_t dev_sectors = 0;       // usable sectors per member (md's `size`), a multiple of chunk_sectors

  int copies() const { return near_copies * far_copies; }
};

// md's layout word: bits 0-7 near copies, 8-15 far copies, bit 16 offset.
// Accepts what md's setup_geo/setup_conf accept: no bits above 16 (bit 17,
// far sets, is rejected explicitly), near and far copies >= 1, 2 <=
// copies <= raid_disks, chunk a power of two of at least 8 sectors (4 KiB,
// md's PAGE_SIZE rule). Additionally rejects an offset layout with
// near_copies > 1 when raid_disks is not a multiple of near_copies: md's
// mapping places two different copies on the same device chunk there.
// dev_sectors need not be a multiple of the chunk: like md, the tail is
// unused. Otherwise Errc::invalid_argument saying why.
Result<Raid10Geometry> raid10_from_layout(uint32_t layout, int raid_disks, uint32_t chunk_sectors,
                                          uint64_t dev_sectors);
uint32_t raid10_layout_word(const Raid10Geometry& g);

// Array capacity in sectors (md's raid10_size): whole chunks per far region,
// times raid_disks / near_copies, rounded down to whole chunks.
uint64_t raid10_array_sectors(const Raid10Geometry& g);

// Sectors per member that actually hold data (md's calc_sectors, which md
// then stores as the superblock `size`). Always <= g.dev_sectors.
uint64_t raid10_used_dev_sectors(const Raid10Geometry& g);

// Distance in device sectors between consecutive far copies (md's
// geo->stride): one chunk for offset layouts, one far region otherwise.
uint64_t raid10_stride(const Raid10Geometry& g);

// Maps an array sector to its copies (md's __raid10_find_phys); writes
// g.copies() entries into `out` in md's copy order and returns that count.
// Copy order: for each near copy n, the near copy itself and then its far
// copies 1..far_copies-1. The offset inside the chunk carries over to every
// copy. Precondition: array_sector < raid10_array_sectors(g), `out` holds
// g.copies() entries.
int raid10_map(const Raid10Geometry& g, uint64_t array_sector, DevAddress* out);

// Reverse map (md's raid10_find_virt): which array sector lives at
// `dev_sector` of `disk`. When that device sector holds no array data (the
// unused tail of the last stripe, or past raid10_used_dev_sectors) the result
// is >= raid10_array_sectors(g).
uint64_t raid10_find_virt(const Raid10Geometry& g, int disk, uint64_t dev_sector);

}  // namespace rs::layout
