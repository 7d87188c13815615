// md choose_best_rdev (drivers/md/raid1.c): mainline for md-legacy, and with
// seed 000's changes ("md/raid1: balance reads across non-rotational disks")
// for md-rr. The seed's changes are the lines that test `rr`.
#include <climits>

#include "balance/md_common.hpp"
#include "balance/policies.hpp"

namespace rs::balance::detail {
namespace {

// raid1_rr_pos (seed 000): how far `disk` comes after the start slot in the
// rotation, so "earlier in the rotation" wins a tie on pending I/O.
int rr_pos(int disk, int start, int n) {
  return ((disk % n) - start + n) % n;
}

uint64_t distance(uint64_t a, uint64_t b) {
  return a > b ? a - b : b - a;
}

}  // namespace

int md_choose_best_rdev(const ReadRequest& req, std::span<const MemberSnapshot> mirrors, PolicyState& state,
                        bool rr) {
  const int n = static_cast<int>(mirrors.size());
  const bool has_nonrot = md_array_has_nonrot(mirrors);

  // Seed 000: rotate the start slot once per call, only on arrays with a
  // non-rotational member (rotational arrays keep mainline's order, and the
  // counter stays untouched). atomic_inc_return: the first value used is 0.
  int rr_start = 0;
  if (rr && has_nonrot) {
    // Unsigned arithmetic: the counter wraps like an atomic_t, without UB.
    const unsigned value = static_cast<unsigned>(state.read_rr.fetch_add(1, std::memory_order_relaxed)) + 1u;
    rr_start = static_cast<int>(value % static_cast<unsigned>(n));
  }

  uint64_t closest_dist = kMaxSector;
  int closest_dist_disk = -1;
  unsigned min_pending = UINT_MAX;
  int min_pending_disk = -1;
  int sequential_disk = -1;

  for (int disk = 0; disk < n; ++disk) {
    const MemberSnapshot& m = mirrors[disk];
    // rdev_readable: skip write-mostly and bad-block mirrors for now; the
    // later fallbacks in read_balance consider them.
    if (!m.readable || m.write_mostly || md_has_badblock(m, req.sectors)) continue;

    unsigned pending = m.nr_pending;
    const uint64_t dist = distance(m.sector, m.head_position);

    // Don't change to another mirror for sequential reads ...
    if (md_is_sequential(m)) {
      // ... unless the run exceeded io_opt on an SSD (mainline), or, with
      // seed 000, the mirror already has I/O in flight.
      const bool stay = rr ? !md_should_choose_next(m) && pending == 0 : !md_should_choose_next(m);
      if (stay) return disk;
      // One more pending so that an idle mirror wins; if none is idle, the
      // sequential mirror is taken after the loop.
      ++pending;
      sequential_disk = disk;
    }

    const bool rr_tie = rr && has_nonrot && pending == min_pending && min_pending_disk >= 0 &&
                        rr_pos(disk, rr_start, n) < rr_pos(min_pending_disk, rr_start, n);
    if (min_pending > pending || rr_tie) {
      min_pending = pending;
      min_pending_disk = disk;
    }

    if (closest_dist_disk == -1 || closest_dist > dist) {
      closest_dist = dist;
      closest_dist_disk = disk;
    }
  }

  // The sequential run may move on, but no other mirror is idle: stay.
  if (sequential_disk != -1 && min_pending != 0) return sequential_disk;

  // All rotational: the closest head, unless some mirror is idle. Any
  // non-rotational member: the least pending I/O, even on a rotational one.
  if (min_pending_disk != -1 && (has_nonrot || min_pending == 0)) return min_pending_disk;
  return closest_dist_disk;
}

}  // namespace rs::balance::detail
