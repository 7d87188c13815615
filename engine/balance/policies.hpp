// Internal: one entry point per policy family, called by choose() in
// policy.cpp. Each follows the contract in policy.hpp.
#pragma once
#include "balance/policy.hpp"

namespace rs::balance::detail {

// md's read_balance (raid1.c): choose_first_rdev during resync, else
// choose_best_rdev, then choose_bb_rdev, then choose_slow_rdev.
// `rr` selects seed 000's choose_best_rdev (md-rr) over mainline's.
Choice md_read_balance(const ReadRequest& req, std::span<const MemberSnapshot> mirrors, PolicyState& state,
                       bool rr);

// md's choose_best_rdev: a mirror with no bad block in range that is neither
// write-mostly nor unreadable, or -1. Mainline when !rr, seed 000 when rr.
int md_choose_best_rdev(const ReadRequest& req, std::span<const MemberSnapshot> mirrors, PolicyState& state,
                        bool rr);

Choice btrfs_pid(const ReadRequest& req, std::span<const MemberSnapshot> mirrors);
Choice btrfs_rr(const ReadRequest& req, std::span<const MemberSnapshot> mirrors, PolicyState& state,
                const Tunables& tunables);
Choice btrfs_qlen(const ReadRequest& req, std::span<const MemberSnapshot> mirrors, const Tunables& tunables);

// btrfs find_live_mirror's fallback: `preferred` if readable, else the first
// readable mirror in stripe order, else -1.
int btrfs_live_mirror(std::span<const MemberSnapshot> mirrors, int preferred);

}  // namespace rs::balance::detail
