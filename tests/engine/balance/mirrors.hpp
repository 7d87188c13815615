// Test helpers: hand-made mirror snapshots, and the array's side of the
// choose() contract (update_read_sectors, completion) to drive sequences.
#pragma once
#include <initializer_list>
#include <vector>

#include "balance/policy.hpp"

namespace rs::balance::test {

inline MemberSnapshot ssd(int slot, uint32_t pending = 0) {
  MemberSnapshot m;
  m.slot = slot;
  m.rotational = false;
  m.nr_pending = pending;
  return m;
}

inline MemberSnapshot hdd(int slot, uint32_t pending = 0) {
  MemberSnapshot m = ssd(slot, pending);
  m.rotational = true;
  return m;
}

// A RAID1 read: every copy starts at the array sector.
inline ReadRequest read_at(uint64_t sector, uint32_t sectors = 8, uint32_t job_id = 0) {
  ReadRequest r;
  r.sector = sector;
  r.sectors = sectors;
  r.job_id = job_id;
  return r;
}

// Sets every mirror's copy sector to the request's (RAID1 layout).
inline std::vector<MemberSnapshot> raid1(std::vector<MemberSnapshot> mirrors, const ReadRequest& req) {
  for (MemberSnapshot& m : mirrors) m.sector = req.sector;
  return mirrors;
}

inline Choice pick(PolicyId policy, const ReadRequest& req, std::vector<MemberSnapshot> mirrors,
                   PolicyState& state, const Tunables& tunables = {}) {
  const std::vector<MemberSnapshot> copies = raid1(std::move(mirrors), req);
  return choose(policy, req, copies, state, tunables);
}

inline Choice pick(PolicyId policy, const ReadRequest& req, std::vector<MemberSnapshot> mirrors) {
  PolicyState state;
  return pick(policy, req, std::move(mirrors), state);
}

// What the array does after choose(): md's update_read_sectors.
inline void issue(MemberSnapshot& m, uint64_t sector, uint32_t sectors) {
  ++m.nr_pending;
  if (m.next_seq_sect != sector) m.seq_start = sector;
  m.next_seq_sect = sector + sectors;
}

// ... and at completion.
inline void complete(MemberSnapshot& m, uint64_t end_sector) {
  --m.nr_pending;
  m.head_position = end_sector;
}

}  // namespace rs::balance::test
