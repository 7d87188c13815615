// btrfs-qlen: seed 003 ("Btrfs: enhance raid1/10 balance heuristic",
// guess_optimal), generalised from 2 mirrors to N: start from pid % mirrors,
// prefer a non-rotational mirror when the array mixes kinds, and move to a
// mirror whose queue is shorter once queues are rounded down.
#include "balance/policies.hpp"

namespace rs::balance::detail {
namespace {

// bdev_get_queue_len: ALIGN_DOWN(in flight, round_down), so queues that
// differ by a few requests look equal and reads do not flip-flop.
uint32_t rounded_queue(const MemberSnapshot& m, uint32_t round_down) {
  if (round_down == 0) round_down = 1;  // invalid tunable: no rounding rather than a division by zero
  return m.nr_pending - m.nr_pending % round_down;
}

}  // namespace

Choice btrfs_qlen(const ReadRequest& req, std::span<const MemberSnapshot> mirrors, const Tunables& tunables) {
  const size_t n = mirrors.size();
  bool all_nonrot = true;
  bool all_rot = true;
  bool any_readable = false;
  for (const MemberSnapshot& m : mirrors) {
    if (!m.readable) continue;  // the seed leaves a missing bdev out of every test
    any_readable = true;
    (m.rotational ? all_nonrot : all_rot) = false;
  }
  if (!any_readable) return {};

  // The pid guess, moved on to the next readable mirror if it cannot read
  // (with two mirrors the seed returns the other one).
  size_t optimal = req.job_id % n;
  while (!mirrors[optimal].readable) optimal = (optimal + 1) % n;

  // Mixed array: a non-rotational mirror is the better guess. With several,
  // the first at or after the pid guess, so jobs still spread over them.
  if (!all_rot && !all_nonrot) {
    for (size_t step = 0; step < n; ++step) {
      const size_t i = (optimal + step) % n;
      if (mirrors[i].readable && !mirrors[i].rotational) {
        optimal = i;
        break;
      }
    }
  }

  // Rounding: 8 when any mirror spins (rot_round_down), 2 when none does.
  const uint32_t round_down = all_nonrot ? tunables.nonrot_round_down : tunables.rot_round_down;

  // Repick only for a strictly shorter rounded queue: the shortest one,
  // the first after the guess on ties.
  size_t best = optimal;
  uint32_t best_qlen = rounded_queue(mirrors[optimal], round_down);
  for (size_t step = 1; step < n; ++step) {
    const size_t i = (optimal + step) % n;
    if (!mirrors[i].readable) continue;
    const uint32_t qlen = rounded_queue(mirrors[i], round_down);
    if (qlen < best_qlen) {
      best = i;
      best_qlen = qlen;
    }
  }
  // btrfs keeps no bad-block list: the whole request goes to one mirror.
  return {static_cast<int>(best), req.sectors};
}

}  // namespace rs::balance::detail
