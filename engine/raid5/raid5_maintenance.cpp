// Rebuild, check and repair of RAID5 stripes, one stripe (chunk-row) at a
// time on a task's thread, with synchronous member I/O (the front's resync
// barrier holds array writes off the stripe meanwhile).
#include <algorithm>
#include <vector>

#include "io/member_device.hpp"
#include "raid5/parity.hpp"
#include "raid5/raid5_internal.hpp"

namespace rs::raid5 {

using raid::kSectorBytes;
using raid::MemberState;

// One block per member plus one, per maintenance thread.
Result<std::vector<uint8_t*>> member_blocks(size_t members, size_t bytes) {
  thread_local io::AlignedBuffer buf;
  if (buf.size() < members * bytes) {
    auto more = io::AlignedBuffer::allocate(members * bytes);
    if (!more) return more.take_error();
    buf = std::move(*more);
  }
  std::vector<uint8_t*> v(members);
  for (size_t i = 0; i < members; ++i) v[i] = buf.data() + i * bytes;
  return v;
}

raid::PieceRange Raid5Personality::rebuild_range(int, uint64_t dev_sector) const {
  const uint64_t chunk = geo_.chunk_sectors, stripe = dev_sector / chunk;
  raid::PieceRange r;
  r.dev_sectors = std::min(chunk - dev_sector % chunk, shape_.dev_sectors - dev_sector);
  r.array_lo = std::min(stripe * row_sectors(), array_sectors());
  r.array_hi = std::min((stripe + 1) * row_sectors(), array_sectors());
  return r;
}

// The target's block is the XOR of every other member's block of the stripe.
Status Raid5Personality::rebuild_piece(const raid::MemberTable& table, int target, uint64_t dev_sector,
                                       const raid::PieceRange& range) {
  if (range.array_lo == range.array_hi) return {};  // beyond the last whole chunk: unused
  const int disks = geo_.raid_disks;
  const uint64_t bytes = range.dev_sectors * kSectorBytes;
  auto made = member_blocks(size_t(disks), bytes);
  if (!made) return made.take_error();
  std::vector<uint8_t*>& blocks = *made;
  uint8_t* out = blocks[size_t(target)];
  // With the target missing no other copy of a block another member cannot
  // read exists: md's "read error not correctable".
  if (Status s = reconstruct(table, target, dev_sector, bytes, blocks, out); !s)
    return make_error(s.error().code, "the stripe at device sector " + std::to_string(dev_sector) +
                                          " cannot be rebuilt: " + s.error().message);
  {  // written behind the stripe cache
    std::lock_guard lock(mutex_);
    cache_.invalidate();
  }
  return core_.write_member(table, target, dev_sector, out, bytes);
}

raid::PieceRange Raid5Personality::check_range(uint64_t array_sector) const {
  const uint64_t row = row_sectors();
  raid::PieceRange r;
  r.array_lo = array_sector;
  r.array_hi = std::min((array_sector / row + 1) * row, array_sectors());
  return r;
}

std::string Raid5Personality::stripe_sources(const raid::MemberTable& table, int slot) const {
  std::string s;
  int n = 0;
  for (int i = 0; i < geo_.raid_disks; ++i) n += i != slot;
  for (int i = 0, k = 0; i < geo_.raid_disks; ++i) {
    if (i == slot) continue;
    s += (k == 0 ? "" : k + 1 == n ? " and " : ", ") + table[i].name;
    ++k;
  }
  return "members " + s + " (the stripe's data and parity)";
}

Status Raid5Personality::reconstruct(const raid::MemberTable& table, int slot, uint64_t dev, uint64_t bytes,
                                     const std::vector<uint8_t*>& blocks, uint8_t* out) {
  if (geo_.level == 6) return reconstruct6(table, slot, dev, bytes, blocks, out);
  std::vector<uint8_t*> sources;
  for (int i = 0; i < geo_.raid_disks; ++i) {
    if (i == slot) continue;
    if (!raid::readable_at(table[i], core_.runtime(i), dev, bytes / kSectorBytes))
      return make_error(Errc::io_error, "member " + std::to_string(i) + " is not in sync there");
    if (Status s = core_.read_member(table, i, dev, blocks[size_t(i)], bytes); !s) return s;
    sources.push_back(blocks[size_t(i)]);
  }
  xor_into(out, sources.data(), int(sources.size()), bytes);
  return {};
}

// md's check: a stripe head whose blocks do not XOR to zero adds its
// STRIPE_SECTORS (8) to mismatch_cnt; repair writes the parity the data
// gives. A member that cannot read its block has it rewritten from the
// others first (md's R5_ReadError during a check); two cannot be.
Result<raid::CheckPieceResult> Raid5Personality::check_piece(const raid::MemberTable& table,
                                                             const raid::PieceRange& range, bool repair) {
  raid::CheckPieceResult out;
  out.sectors = range.array_hi - range.array_lo;
  const int disks = geo_.raid_disks;
  for (int i = 0; i < disks; ++i)
    if (!table[i].present() || table[i].state != MemberState::in_sync)
      return out;  // degraded: nothing to compare
  if (geo_.level == 6) return check_piece6(table, range, repair);
  const uint64_t chunk = geo_.chunk_sectors, stripe = range.array_lo / row_sectors();
  const uint64_t dev = stripe * chunk, bytes = chunk * kSectorBytes;
  const int pd = geo_.parity(stripe).pd;
  auto made = member_blocks(size_t(disks) + 1, bytes);
  if (!made) return made.take_error();
  std::vector<uint8_t*>& blocks = *made;
  std::vector<int> unreadable;
  for (int i = 0; i < disks; ++i)
    if (!core_.read_member(table, i, dev, blocks[size_t(i)], bytes)) unreadable.push_back(i);
  if (unreadable.size() > 1)
    return make_error(Errc::io_error, "the stripe at device sector " + std::to_string(dev) + ": " +
                                          table[unreadable[0]].name + " and " + table[unreadable[1]].name +
                                          " cannot read it, so its data there cannot be rebuilt");
  if (!unreadable.empty()) {
    const int u = unreadable[0];
    std::vector<uint8_t*> sources;
    for (int i = 0; i < disks; ++i)
      if (i != u) sources.push_back(blocks[size_t(i)]);
    uint8_t* good = blocks[size_t(disks)];
    xor_into(good, sources.data(), int(sources.size()), bytes);
    auto fixed = core_.correct_block(table, u, dev, blocks[size_t(u)], good, bytes, stripe_sources(table, u));
    if (!fixed) return fixed.error();
    {  // written behind the stripe cache
      std::lock_guard lock(mutex_);
      cache_.invalidate();
    }
    if (!*fixed) return out;  // the member is out now: nothing left to compare
  }
  std::vector<uint8_t*> page(static_cast<size_t>(disks)), data;
  for (uint64_t off = 0; off < bytes; off += 4096) {
    for (int i = 0; i < disks; ++i) page[size_t(i)] = blocks[size_t(i)] + off;
    if (xor_is_zero(page.data(), disks, 4096)) continue;
    out.mismatches += 4096 / kSectorBytes;
    if (!repair) continue;
    data.clear();
    for (int i = 0; i < disks; ++i)
      if (i != pd) data.push_back(page[size_t(i)]);
    uint8_t* parity = blocks[size_t(disks)];
    xor_into(parity, data.data(), int(data.size()), 4096);
    if (Status s = core_.write_member(table, pd, dev + off / kSectorBytes, parity, 4096); !s)
      return s.error();
  }
  if (repair && out.mismatches) {  // parity changed behind the stripe cache: its cached pages are stale
    std::lock_guard lock(mutex_);
    cache_.invalidate();
  }
  return out;
}

raid::PieceRange Raid5Personality::fix_range(int, uint64_t dev_sector, uint64_t sectors) const {
  const uint64_t chunk = geo_.chunk_sectors;
  raid::PieceRange r;
  r.array_lo = std::min(dev_sector / chunk * row_sectors(), array_sectors());
  r.array_hi = std::min(((dev_sector + sectors - 1) / chunk + 1) * row_sectors(), array_sectors());
  return r;
}

// md's R5_ReadError then R5_ReWrite: the block computed from the rest of
// the stripe, written back and read again.
Status Raid5Personality::fix_read_error(const raid::MemberTable& table, int slot, uint64_t dev_sector,
                                        uint64_t sectors) {
  const int disks = geo_.raid_disks;
  const uint64_t bytes = sectors * kSectorBytes;
  auto made = member_blocks(size_t(disks) + 1, bytes);
  if (!made) return made.take_error();
  std::vector<uint8_t*>& blocks = *made;
  uint8_t* good = blocks[size_t(disks)];
  if (Status s = reconstruct(table, slot, dev_sector, bytes, blocks, good); !s) return s;
  auto fixed = core_.correct_block(table, slot, dev_sector, blocks[size_t(slot)], good, bytes,
                                   stripe_sources(table, slot));
  {  // written behind the stripe cache
    std::lock_guard lock(mutex_);
    cache_.invalidate();
  }
  return fixed ? Status{} : Status(fixed.error());
}

}  // namespace rs::raid5
