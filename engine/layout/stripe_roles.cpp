#include "layout/stripe_roles.hpp"

#include "layout/raid5.hpp"
#include "layout/raid6.hpp"

namespace rs::layout {

namespace {
// The roles do not depend on the chunk size or the member size: any valid
// ones will do for the geometry.
constexpr uint32_t kAnyChunk = 8;
constexpr uint64_t kAnySize = 8;
}  // namespace

std::vector<int64_t> raid5_stripe_roles(uint32_t layout, int raid_disks, uint64_t stripe) {
  auto g = raid5_from_layout(layout, raid_disks, kAnyChunk, kAnySize);
  if (!g) return {};
  std::vector<int64_t> roles;
  for (int disk = 0; disk < raid_disks; ++disk) {
    const int k = raid5_data_index(*g, stripe, disk);
    roles.push_back(k < 0 ? kStripeP : int64_t(stripe) * g->data_disks() + k);
  }
  return roles;
}

std::vector<int64_t> raid6_stripe_roles(uint32_t layout, int raid_disks, uint64_t stripe) {
  auto g = raid6_from_layout(layout, raid_disks, kAnyChunk, kAnySize);
  if (!g) return {};
  const Raid6ParityDisks pq = raid6_parity_disks(*g, stripe);
  std::vector<int64_t> roles;
  for (int disk = 0; disk < raid_disks; ++disk) {
    if (disk == pq.pd_idx) {
      roles.push_back(kStripeP);
    } else if (disk == pq.qd_idx) {
      roles.push_back(kStripeQ);
    } else {
      roles.push_back(int64_t(stripe) * g->data_disks() + raid6_data_index(*g, stripe, disk));
    }
  }
  return roles;
}

}  // namespace rs::layout
