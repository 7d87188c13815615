// What each member holds in one stripe of a parity level, from md's maps
// (raid5.hpp, raid6.hpp): the array chunk number of its data chunk, or P or
// Q. A stripe-layout view asks this through the level table
// (LevelInfo::stripe_roles), so no front end writes out a layout's rules.
#pragma once
#include <cstdint>
#include <vector>

namespace rs::layout {

// A member's role in a stripe: >= 0 is the array chunk it holds
// (stripe * data_disks + its place in the stripe, md's compute_blocknr).
inline constexpr int64_t kStripeP = -1;  // the XOR parity (RAID5's only one)
inline constexpr int64_t kStripeQ = -2;  // RAID6's Reed-Solomon syndrome

// One role per member for stripe `stripe`; empty for a layout word or
// member count the map refuses.
std::vector<int64_t> raid5_stripe_roles(uint32_t layout, int raid_disks, uint64_t stripe);
std::vector<int64_t> raid6_stripe_roles(uint32_t layout, int raid_disks, uint64_t stripe);

}  // namespace rs::layout
