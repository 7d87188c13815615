#include "layout/raid5.hpp"

#include <bit>
#include <utility>

#include "layout/address.hpp"

namespace rs::layout {

namespace {

bool is_left(Raid5Algorithm a) {
  return a == Raid5Algorithm::LeftAsymmetric || a == Raid5Algorithm::LeftSymmetric;
}
bool is_symmetric(Raid5Algorithm a) {
  return a == Raid5Algorithm::LeftSymmetric || a == Raid5Algorithm::RightSymmetric;
}

}  // namespace

const char* raid5_algorithm_name(Raid5Algorithm algorithm) {
  switch (algorithm) {
    case Raid5Algorithm::LeftAsymmetric:
      return "left-asymmetric";
    case Raid5Algorithm::RightAsymmetric:
      return "right-asymmetric";
    case Raid5Algorithm::LeftSymmetric:
      return "left-symmetric";
    case Raid5Algorithm::RightSymmetric:
      return "right-symmetric";
  }
  return "unknown";
}

Result<Raid5Geometry> raid5_from_layout(uint32_t layout, int raid_disks, uint32_t chunk_sectors,
                                        uint64_t dev_sectors) {
  auto fail = [](std::string msg) { return make_error(Errc::invalid_argument, std::move(msg)); };
  if (layout > 3)
    return fail("raid5 layout " + std::to_string(layout) +
                ": only 0 left-asymmetric, 1 right-asymmetric, 2 left-symmetric, 3 right-symmetric are "
                "supported");
  if (raid_disks < 2) return fail("raid5 needs at least 2 raid disks, got " + std::to_string(raid_disks));
  if (chunk_sectors < kMinChunkSectors || !std::has_single_bit(chunk_sectors))
    return fail("raid5 chunk of " + std::to_string(chunk_sectors) +
                " sectors: must be a power of two and at least 8 sectors (4 KiB)");
  Raid5Geometry g;
  g.raid_disks = raid_disks;
  g.algorithm = static_cast<Raid5Algorithm>(layout);
  g.chunk_sectors = chunk_sectors;
  g.dev_sectors = dev_sectors;
  return g;
}

uint64_t raid5_array_sectors(const Raid5Geometry& g) {
  const uint64_t whole = g.dev_sectors & ~(static_cast<uint64_t>(g.chunk_sectors) - 1);
  return whole * static_cast<uint64_t>(g.data_disks());
}

int raid5_parity_disk(const Raid5Geometry& g, uint64_t stripe) {
  const auto rot = static_cast<int>(stripe % static_cast<uint64_t>(g.raid_disks));
  return is_left(g.algorithm) ? g.data_disks() - rot : rot;
}

Raid5Address raid5_compute_sector(const Raid5Geometry& g, uint64_t array_sector) {
  const int shift = std::countr_zero(g.chunk_sectors);
  const uint64_t chunk = array_sector >> shift;
  const uint64_t stripe = chunk / static_cast<uint64_t>(g.data_disks());
  const auto i = static_cast<int>(chunk % static_cast<uint64_t>(g.data_disks()));

  Raid5Address a;
  a.pd_idx = raid5_parity_disk(g, stripe);
  if (is_symmetric(g.algorithm))
    a.dd_idx = (a.pd_idx + 1 + i) % g.raid_disks;
  else
    a.dd_idx = i >= a.pd_idx ? i + 1 : i;
  a.sector = (stripe << shift) + (array_sector & (g.chunk_sectors - 1));
  return a;
}

int raid5_data_index(const Raid5Geometry& g, uint64_t stripe, int disk) {
  const int pd = raid5_parity_disk(g, stripe);
  if (disk == pd) return -1;
  if (is_symmetric(g.algorithm)) return (disk - pd - 1 + g.raid_disks) % g.raid_disks;
  return disk > pd ? disk - 1 : disk;
}

std::optional<uint64_t> raid5_compute_blocknr(const Raid5Geometry& g, int disk, uint64_t dev_sector) {
  const int shift = std::countr_zero(g.chunk_sectors);
  const uint64_t stripe = dev_sector >> shift;
  const int i = raid5_data_index(g, stripe, disk);
  if (i < 0) return std::nullopt;
  const uint64_t chunk = stripe * static_cast<uint64_t>(g.data_disks()) + static_cast<uint64_t>(i);
  return (chunk << shift) + (dev_sector & (g.chunk_sectors - 1));
}

}  // namespace rs::layout
