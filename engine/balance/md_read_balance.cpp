// md read_balance (drivers/md/raid1.c) for md-legacy and md-rr: the order of
// the fallbacks, and the steps that do not depend on the variant.
#include "balance/md_common.hpp"
#include "balance/policies.hpp"

namespace rs::balance::detail {
namespace {

// choose_first_rdev: while a resync runs over the range the mirrors may
// differ, so every read goes to the first usable mirror, whatever its load,
// write-mostly flag or bad blocks further in.
Choice choose_first_rdev(const ReadRequest& req, std::span<const MemberSnapshot> mirrors) {
  for (size_t i = 0; i < mirrors.size(); ++i) {
    const MemberSnapshot& m = mirrors[i];
    if (!m.readable) continue;
    const uint32_t len = md_good_sectors(m, req.sectors);
    if (len > 0) return {static_cast<int>(i), len};
  }
  return {};
}

// choose_bb_rdev: no clean mirror, so split the read: the non-write-mostly
// mirror that reads the most sectors before its bad block (first on ties).
Choice choose_bb_rdev(const ReadRequest& req, std::span<const MemberSnapshot> mirrors) {
  Choice best;
  for (size_t i = 0; i < mirrors.size(); ++i) {
    const MemberSnapshot& m = mirrors[i];
    if (!m.readable || m.write_mostly) continue;
    const uint32_t len = md_good_sectors(m, req.sectors);
    if (len > best.sectors) best = {static_cast<int>(i), len};
  }
  return best;
}

// choose_slow_rdev: last resort, a write-mostly mirror; the first clean one
// at once, else the one that reads the most before its bad block.
Choice choose_slow_rdev(const ReadRequest& req, std::span<const MemberSnapshot> mirrors) {
  Choice best;
  for (size_t i = 0; i < mirrors.size(); ++i) {
    const MemberSnapshot& m = mirrors[i];
    if (!m.readable || !m.write_mostly) continue;
    const uint32_t len = md_good_sectors(m, req.sectors);
    if (len == req.sectors && len > 0) return {static_cast<int>(i), len};
    if (len > best.sectors) best = {static_cast<int>(i), len};
  }
  return best;
}

}  // namespace

Choice md_read_balance(const ReadRequest& req, std::span<const MemberSnapshot> mirrors, PolicyState& state,
                       bool rr) {
  if (req.resync_overlap) return choose_first_rdev(req, mirrors);

  const int disk = md_choose_best_rdev(req, mirrors, state, rr);
  if (disk >= 0) return {disk, req.sectors};

  const Choice bb = choose_bb_rdev(req, mirrors);
  if (bb.index >= 0) return bb;

  return choose_slow_rdev(req, mirrors);
}

}  // namespace rs::balance::detail
