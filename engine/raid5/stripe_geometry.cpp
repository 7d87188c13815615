#include "raid5/stripe_geometry.hpp"

namespace rs::raid5 {

StripeGeometry::Parity StripeGeometry::parity(uint64_t stripe) const {
  if (level == 6) {
    const layout::Raid6ParityDisks pq = layout::raid6_parity_disks(r6, stripe);
    return {pq.pd_idx, pq.qd_idx};
  }
  return {layout::raid5_parity_disk(r5, stripe), -1};
}

StripeGeometry::Address StripeGeometry::compute_sector(uint64_t array_sector) const {
  if (level == 6) {
    const layout::Raid6Address a = layout::raid6_compute_sector(r6, array_sector);
    return {a.dd_idx, {a.pd_idx, a.qd_idx}, a.sector};
  }
  const layout::Raid5Address a = layout::raid5_compute_sector(r5, array_sector);
  return {a.dd_idx, {a.pd_idx, -1}, a.sector};
}

int StripeGeometry::syndrome_slot(uint64_t stripe, int disk) const {
  return level == 6 ? layout::raid6_syndrome_slot(r6, stripe, disk) : -1;
}

uint64_t StripeGeometry::array_sectors() const {
  return level == 6 ? layout::raid6_array_sectors(r6) : layout::raid5_array_sectors(r5);
}

std::string StripeGeometry::layout_name() const {
  return level == 6 ? layout::raid6_algorithm_name(uint32_t(r6.algorithm))
                    : layout::raid5_algorithm_name(r5.algorithm);
}

Result<StripeGeometry> stripe_geometry(int level, uint32_t layout, int raid_disks, uint32_t chunk_sectors,
                                       uint64_t dev_sectors) {
  StripeGeometry g;
  g.level = level;
  if (level == 6) {
    auto r6 = layout::raid6_from_layout(layout, raid_disks, chunk_sectors, dev_sectors);
    if (!r6) return r6.take_error();
    g.r6 = *r6;
  } else {
    auto r5 = layout::raid5_from_layout(layout, raid_disks, chunk_sectors, dev_sectors);
    if (!r5) return r5.take_error();
    g.r5 = *r5;
  }
  g.raid_disks = raid_disks;
  g.chunk_sectors = chunk_sectors;
  g.dev_sectors = dev_sectors;
  return g;
}

}  // namespace rs::raid5
