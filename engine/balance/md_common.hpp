// Internal: per-mirror predicates shared by md's read_balance steps
// (drivers/md/raid1.c), expressed on MemberSnapshot.
#pragma once
#include <span>

#include "balance/policy.hpp"

namespace rs::balance::detail {

// raid1_check_read_range: how many sectors from the start of the request this
// mirror can read before its first bad block (0 when the request starts on
// one, `sectors` when the range is clean).
inline uint32_t md_good_sectors(const MemberSnapshot& m, uint32_t sectors) {
  return m.bad_sectors_from < sectors ? m.bad_sectors_from : sectors;
}

// rdev_has_badblock over the request.
inline bool md_has_badblock(const MemberSnapshot& m, uint32_t sectors) {
  return m.bad_sectors_from < sectors;
}

// is_sequential: the read continues the last read issued to this mirror, or
// starts where its head stopped.
inline bool md_is_sequential(const MemberSnapshot& m) {
  return m.next_seq_sect == m.sector || m.head_position == m.sector;
}

// should_choose_next: on a non-rotational mirror, a sequential run that has
// already read at least io_opt sectors may move to an idle mirror.
inline bool md_should_choose_next(const MemberSnapshot& m) {
  const uint64_t opt = m.io_opt_sectors;
  if (m.rotational || opt == 0) return false;
  return m.seq_start != kMaxSector && m.next_seq_sect > opt && m.next_seq_sect - opt >= m.seq_start;
}

// conf->nonrot_disks != 0. md counts every member in the array (write-mostly
// and bad-block ones too); an unreadable snapshot may be an empty slot, so it
// does not count.
inline bool md_array_has_nonrot(std::span<const MemberSnapshot> mirrors) {
  for (const MemberSnapshot& m : mirrors)
    if (m.readable && !m.rotational) return true;
  return false;
}

}  // namespace rs::balance::detail
