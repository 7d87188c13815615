// RAID6's rebuild and check (raid5_maintenance.cpp serves RAID5): a block
// is recovered from the rest of its stripe with one other member short too
// (md's compute_block_1/2 during recovery); check names the syndrome that
// disagrees and counts md's mismatch_cnt (8 sectors per 4 KiB page); repair
// writes P and Q as the data gives them (md's handle_parity_checks6 on
// repair rewrites both).
#include <algorithm>

#include "io/member_device.hpp"
#include "raid5/pq_syndrome.hpp"
#include "raid5/raid5_internal.hpp"

namespace rs::raid5 {

using raid::kSectorBytes;

Status Raid5Personality::reconstruct6(const raid::MemberTable& table, int slot, uint64_t dev, uint64_t bytes,
                                      const std::vector<uint8_t*>& blocks, uint8_t* out) {
  const int disks = geo_.raid_disks;
  int other = -1;  // a second member short there: recovered alongside
  for (int i = 0; i < disks; ++i) {
    if (i == slot) continue;
    if (!raid::readable_at(table[i], core_.runtime(i), dev, bytes / kSectorBytes)) {
      if (other >= 0)
        return make_error(Errc::io_error, "members " + std::to_string(other) + " and " + std::to_string(i) +
                                              " are not in sync there");
      other = i;
      continue;
    }
    if (Status s = core_.read_member(table, i, dev, blocks[size_t(i)], bytes); !s) {
      if (other >= 0) return s;
      other = i;
    }
  }
  std::vector<uint8_t*> at(static_cast<size_t>(disks));
  // P and Q move from stripe to stripe: one chunk piece at a time.
  for (uint64_t off = 0; off < bytes;) {
    const uint64_t sector = dev + off / kSectorBytes;
    const uint64_t piece =
        std::min<uint64_t>(bytes - off, (geo_.chunk_sectors - sector % geo_.chunk_sectors) * kSectorBytes);
    for (int i = 0; i < disks; ++i) at[size_t(i)] = (i == slot ? out : blocks[size_t(i)]) + off;
    recover_pq(sector, at.data(), slot, other, piece);
    off += piece;
  }
  return {};
}

// md's recovery with two spares: the stripe's other members are read once
// and both lost blocks computed from them (compute_block_2), then each
// target gets its own.
Status Raid5Personality::rebuild_pieces(const raid::MemberTable& table, const std::vector<int>& targets,
                                        uint64_t dev_sector, const raid::PieceRange& range) {
  if (geo_.level != 6 || targets.size() != 2)
    return Personality::rebuild_pieces(table, targets, dev_sector, range);
  if (range.array_lo == range.array_hi) return {};  // beyond the last whole chunk: unused
  const int disks = geo_.raid_disks, a = targets[0], b = targets[1];
  const uint64_t bytes = range.dev_sectors * kSectorBytes;
  auto made = member_blocks(size_t(disks), bytes);
  if (!made) return made.take_error();
  std::vector<uint8_t*>& blocks = *made;
  for (int i = 0; i < disks; ++i) {
    if (i == a || i == b) continue;
    // With two targets short there, no third block can be rebuilt.
    Status s = raid::readable_at(table[i], core_.runtime(i), dev_sector, range.dev_sectors)
                   ? core_.read_member(table, i, dev_sector, blocks[size_t(i)], bytes)
                   : make_error(Errc::io_error, table[i].name + " is not in sync there");
    if (!s)
      return make_error(s.error().code, "the stripe at device sector " + std::to_string(dev_sector) +
                                            " cannot be rebuilt onto " + table[a].name + " and " +
                                            table[b].name + ": " + s.error().message);
  }
  recover_pq(dev_sector, blocks.data(), a, b, bytes);
  {  // written behind the stripe cache
    std::lock_guard lock(mutex_);
    cache_.invalidate();
  }
  for (int t : {a, b})
    if (Status s = core_.write_member(table, t, dev_sector, blocks[size_t(t)], bytes); !s) return s;
  return {};
}

Result<raid::CheckPieceResult> Raid5Personality::check_piece6(const raid::MemberTable& table,
                                                              const raid::PieceRange& range, bool repair) {
  raid::CheckPieceResult out;
  out.sectors = range.array_hi - range.array_lo;
  const int disks = geo_.raid_disks, dd = geo_.data_disks();
  const uint64_t chunk = geo_.chunk_sectors, stripe = range.array_lo / row_sectors();
  const uint64_t dev = stripe * chunk, bytes = chunk * kSectorBytes;
  const StripeGeometry::Parity pq = geo_.parity(stripe);
  auto made = member_blocks(size_t(disks) + 3, bytes);
  if (!made) return made.take_error();
  std::vector<uint8_t*>& blocks = *made;
  std::vector<int> unreadable;
  for (int i = 0; i < disks; ++i)
    if (!core_.read_member(table, i, dev, blocks[size_t(i)], bytes)) unreadable.push_back(i);
  if (int(unreadable.size()) > geo_.max_degraded())
    return make_error(Errc::io_error, "the stripe at device sector " + std::to_string(dev) + ": " +
                                          std::to_string(unreadable.size()) +
                                          " members cannot read it, so its data there cannot be rebuilt");
  if (!unreadable.empty()) {
    // The good contents of the unreadable blocks, then each rewritten.
    std::vector<uint8_t*> good(blocks.begin(), blocks.begin() + disks);
    for (size_t k = 0; k < unreadable.size(); ++k) good[size_t(unreadable[k])] = blocks[size_t(disks) + k];
    recover_pq(dev, good.data(), unreadable[0], unreadable.size() > 1 ? unreadable[1] : -1, bytes);
    for (size_t k = 0; k < unreadable.size(); ++k) {
      const int u = unreadable[k];
      auto fixed = core_.correct_block(table, u, dev, blocks[size_t(u)], good[size_t(u)], bytes,
                                       stripe_sources(table, u));
      if (!fixed) return fixed.error();
      {  // written behind the stripe cache
        std::lock_guard lock(mutex_);
        cache_.invalidate();
      }
      if (!*fixed) return out;  // the member is out now: nothing left to compare
    }
  }
  std::vector<uint8_t*> data(static_cast<size_t>(dd));
  uint8_t* const p_new = blocks[size_t(disks)];
  uint8_t* const q_new = blocks[size_t(disks) + 1];
  for (uint64_t off = 0; off < bytes; off += kPageBytes) {
    for (int i = 0; i < disks; ++i)
      if (!pq.holds(i)) data[size_t(geo_.syndrome_slot(stripe, i))] = blocks[size_t(i)] + off;
    const PqVerdict v = pq_verify(data.data(), dd, blocks[size_t(pq.pd)] + off, blocks[size_t(pq.qd)] + off,
                                  kPageBytes, p_new);
    if (v.ok()) continue;
    out.mismatches += kPageSectors;
    out.p_wrong_pages += !v.p_ok;
    out.q_wrong_pages += !v.q_ok;
    if (!v.p_ok) counters_.p_mismatches.fetch_add(1, std::memory_order_relaxed);
    if (!v.q_ok) counters_.q_mismatches.fetch_add(1, std::memory_order_relaxed);
    if (!repair) continue;
    pq_generate(data.data(), dd, p_new, q_new, kPageBytes);
    for (auto [member, page] : {std::pair{pq.pd, p_new}, std::pair{pq.qd, q_new}})
      if (Status s = core_.write_member(table, member, dev + off / kSectorBytes, page, kPageBytes); !s)
        return s.error();
  }
  if (repair && out.mismatches) {  // P and Q changed behind the stripe cache
    std::lock_guard lock(mutex_);
    cache_.invalidate();
  }
  return out;
}

}  // namespace rs::raid5
