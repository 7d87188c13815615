#include "layout/raid10.hpp"

#include <bit>
#include <cstdio>
#include <limits>
#include <utility>

namespace rs::layout {

namespace {

constexpr uint32_t kNearMask = 0xff;
constexpr uint32_t kFarShift = 8;
constexpr uint32_t kFarSetsBit = 1u << 17;

Error fail(std::string msg) {
  return make_error(Errc::invalid_argument, std::move(msg));
}

int chunk_shift(const Raid10Geometry& g) {
  return std::countr_zero(g.chunk_sectors);
}

// Array size in whole chunks; md's raid10_size before the final shift.
uint64_t array_chunks(const Raid10Geometry& g) {
  uint64_t chunks = g.dev_sectors >> chunk_shift(g);
  chunks /= static_cast<uint64_t>(g.far_copies);
  chunks *= static_cast<uint64_t>(g.raid_disks);
  return chunks / static_cast<uint64_t>(g.near_copies);
}

// Used chunks per member, md's calc_sectors: every array chunk needs
// copies() device chunks, spread over raid_disks members, rounded up because
// the last stripe may be partly used.
uint64_t used_chunks(const Raid10Geometry& g) {
  const uint64_t slots = array_chunks(g) * static_cast<uint64_t>(g.copies());
  const auto rd = static_cast<uint64_t>(g.raid_disks);
  return (slots + rd - 1) / rd;
}

}  // namespace

Result<Raid10Geometry> raid10_from_layout(uint32_t layout, int raid_disks, uint32_t chunk_sectors,
                                          uint64_t dev_sectors) {
  Raid10Geometry g;
  g.raid_disks = raid_disks;
  g.near_copies = static_cast<int>(layout & kNearMask);
  g.far_copies = static_cast<int>((layout >> kFarShift) & kNearMask);
  g.far_offset = (layout & kRaid10OffsetBit) != 0;
  g.chunk_sectors = chunk_sectors;
  g.dev_sectors = dev_sectors;

  char hex[16];
  std::snprintf(hex, sizeof hex, "%#x", layout);
  const std::string word = std::string("raid10 layout ") + hex;

  if (layout & kFarSetsBit) {
    return fail(word + ": far sets (bit 17, use_far_sets) are not supported");
  }
  if (layout >> 17) {
    return fail(word + ": unknown bits above bit 16");
  }
  if (raid_disks < 2) {
    return fail("raid10 needs at least 2 raid disks, got " + std::to_string(raid_disks));
  }
  if (g.near_copies < 1) {
    return fail(word + ": near copies (bits 0-7) must be >= 1");
  }
  if (g.far_copies < 1) {
    return fail(word + ": far copies (bits 8-15) must be >= 1");
  }
  if (g.copies() < 2) {
    // md's setup_conf rejects this: a single copy is raid0, not raid10.
    return fail(word + ": near*far copies is 1; raid10 needs at least 2 copies");
  }
  if (g.copies() > raid_disks) {
    return fail(word + ": near*far copies (" + std::to_string(g.copies()) + ") exceed raid disks (" +
                std::to_string(raid_disks) + ")");
  }
  if (chunk_sectors < kMinChunkSectors || !std::has_single_bit(chunk_sectors)) {
    return fail("raid10 chunk of " + std::to_string(chunk_sectors) +
                " sectors: must be a power of two and at least 8 sectors (4 KiB)");
  }
  if (g.far_offset && g.near_copies > 1 && raid_disks % g.near_copies != 0) {
    // md bumps the device sector by one chunk when a near group wraps to
    // disk 0, but an offset stripe is far_copies chunks tall, so the wrapped
    // copy lands on the previous stripe's offset copy.
    return fail(word + ": offset layout with " + std::to_string(g.near_copies) + " near copies on " +
                std::to_string(raid_disks) +
                " disks makes md place two copies on one device chunk; raid disks must be a multiple "
                "of near copies");
  }
  return g;
}

uint32_t raid10_layout_word(const Raid10Geometry& g) {
  uint32_t word = static_cast<uint32_t>(g.near_copies) & kNearMask;
  word |= (static_cast<uint32_t>(g.far_copies) & kNearMask) << kFarShift;
  if (g.far_offset) word |= kRaid10OffsetBit;
  return word;
}

uint64_t raid10_array_sectors(const Raid10Geometry& g) {
  return array_chunks(g) << chunk_shift(g);
}

uint64_t raid10_used_dev_sectors(const Raid10Geometry& g) {
  return used_chunks(g) << chunk_shift(g);
}

uint64_t raid10_stride(const Raid10Geometry& g) {
  if (g.far_offset) return g.chunk_sectors;
  return (used_chunks(g) / static_cast<uint64_t>(g.far_copies)) << chunk_shift(g);
}

int raid10_map(const Raid10Geometry& g, uint64_t array_sector, DevAddress* out) {
  const int shift = chunk_shift(g);
  const uint64_t mask = g.chunk_sectors - 1;
  const auto rd = static_cast<uint64_t>(g.raid_disks);
  const uint64_t stride = raid10_stride(g);

  // First slot of this chunk in the raid0-like grid.
  const uint64_t slot = (array_sector >> shift) * static_cast<uint64_t>(g.near_copies);
  uint64_t stripe = slot / rd;
  int dev = static_cast<int>(slot % rd);
  // Offset layouts interleave the far copies of each stripe below it.
  if (g.far_offset) stripe *= static_cast<uint64_t>(g.far_copies);
  uint64_t sector = (stripe << shift) + (array_sector & mask);

  int n_out = 0;
  for (int n = 0; n < g.near_copies; ++n) {
    int d = dev;
    uint64_t s = sector;
    out[n_out++] = DevAddress{d, s};
    for (int f = 1; f < g.far_copies; ++f) {
      d = (d + g.near_copies) % g.raid_disks;
      s += stride;
      out[n_out++] = DevAddress{d, s};
    }
    // The next near copy is the next slot; past the last disk it continues
    // on disk 0 one chunk further down (md adds one chunk, also for offset).
    if (++dev >= g.raid_disks) {
      dev = 0;
      sector += g.chunk_sectors;
    }
  }
  return n_out;
}

uint64_t raid10_find_virt(const Raid10Geometry& g, int disk, uint64_t dev_sector) {
  constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();
  const int shift = chunk_shift(g);
  const uint64_t offset = dev_sector & (g.chunk_sectors - 1);
  const int rd = g.raid_disks;
  const int nc = g.near_copies;
  int dev = disk;
  uint64_t chunk = 0;

  if (g.far_offset) {
    // Device chunk = stripe * far_copies + which far copy; undo the shift of
    // near_copies disks per far copy.
    const uint64_t dchunk = dev_sector >> shift;
    const auto fc = static_cast<int>(dchunk % static_cast<uint64_t>(g.far_copies));
    chunk = dchunk / static_cast<uint64_t>(g.far_copies);
    dev -= fc * nc;
    if (dev < 0) dev += rd;
  } else {
    const uint64_t stride = raid10_stride(g);
    if (g.far_copies > 1) {
      // Past the last far region nothing is stored; md would keep peeling
      // regions off (and loop forever for a zero stride).
      if (stride == 0 || dev_sector >= stride * static_cast<uint64_t>(g.far_copies)) return kNone;
    }
    uint64_t s = dev_sector;
    for (int f = 1; f < g.far_copies && s >= stride; ++f) {
      s -= stride;
      dev = dev < nc ? dev + rd - nc : dev - nc;
    }
    chunk = s >> shift;
  }
  const uint64_t vchunk =
      (chunk * static_cast<uint64_t>(rd) + static_cast<uint64_t>(dev)) / static_cast<uint64_t>(nc);
  return (vchunk << shift) + offset;
}

}  // namespace rs::layout
