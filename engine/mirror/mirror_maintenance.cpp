// Rebuild, check and repair of mirrored copies, one piece at a time (a
// task's thread calls these between barrier pieces; member I/O is
// synchronous).
#include <algorithm>
#include <cstring>

#include "io/member_device.hpp"
#include "mirror/mirror.hpp"

namespace rs::mirror {

using raid::kSectorBytes;
using raid::MemberState;

namespace {
// One maintenance thread at a time uses a buffer; each gets its own.
thread_local std::vector<io::AlignedBuffer> scratch_bufs;

// Makes buffers 0..count-1 hold `bytes` each: out_of_memory when they
// cannot be had. Called before scratch() in each piece.
Status reserve_scratch(size_t count, size_t bytes) {
  if (scratch_bufs.size() < count) scratch_bufs.resize(count);
  for (size_t i = 0; i < count; ++i) {
    if (scratch_bufs[i].size() >= bytes) continue;
    auto buf = io::AlignedBuffer::allocate(bytes);
    if (!buf) return buf.take_error();
    scratch_bufs[i] = std::move(*buf);
  }
  return {};
}

// Buffer `index` of those reserve_scratch() made.
uint8_t* scratch(size_t index, size_t) {
  return scratch_bufs[index].data();
}
}  // namespace

raid::PieceRange MirrorPersonality::rebuild_range(int target, uint64_t dev_sector) const {
  const uint64_t step = map_.piece_sectors();
  raid::PieceRange r;
  r.dev_sectors = std::min(step - dev_sector % step, shape_.dev_sectors - dev_sector);
  const uint64_t array_sector = map_.find_virt(target, dev_sector);
  if (array_sector < map_.array_sectors()) {
    r.array_lo = array_sector;
    r.array_hi = array_sector + r.dev_sectors;
  }
  return r;
}

Status MirrorPersonality::rebuild_piece(const raid::MemberTable& table, int target, uint64_t dev_sector,
                                        const raid::PieceRange& range) {
  if (range.array_lo == range.array_hi) return {};  // nothing of the array lives there
  std::vector<layout::DevAddress> addr(size_t(map_.copies()));
  const int copies = map_.map(range.array_lo, addr.data());
  const uint64_t bytes = range.dev_sectors * kSectorBytes;
  if (Status s = reserve_scratch(2, bytes); !s) return s;
  uint8_t* buf = scratch(0, bytes);
  std::vector<int> unreadable;  // copies tried before, which could not read it
  for (int k = 0; k < copies; ++k) {
    const int src = addr[size_t(k)].disk;
    if (src == target || !table[src].present() || table[src].state != MemberState::in_sync) continue;
    if (!core_.read_member(table, src, addr[size_t(k)].sector, buf, bytes)) {
      unreadable.push_back(k);
      continue;
    }
    // md's fix_sync_read_error: the copies that failed are rewritten from it.
    for (int u : unreadable) {
      auto fixed = core_.correct_block(table, addr[size_t(u)].disk, addr[size_t(u)].sector, scratch(1, bytes),
                                       buf, bytes, "member " + table[src].name);
      if (!fixed) return fixed.error();
    }
    return core_.write_member(table, target, dev_sector, buf, bytes);
  }
  return make_error(Errc::io_error, "no in-sync copy of array sector " + std::to_string(range.array_lo) +
                                        (unreadable.empty() ? "" : " could be read") + " to rebuild from");
}

raid::PieceRange MirrorPersonality::check_range(uint64_t array_sector) const {
  const uint64_t step = map_.piece_sectors();
  raid::PieceRange r;
  r.array_lo = array_sector;
  r.array_hi = array_sector + std::min(step - array_sector % step, map_.array_sectors() - array_sector);
  return r;
}

Result<raid::CheckPieceResult> MirrorPersonality::check_piece(const raid::MemberTable& table,
                                                              const raid::PieceRange& range, bool repair) {
  raid::CheckPieceResult out;
  out.sectors = range.array_hi - range.array_lo;
  const uint64_t bytes = out.sectors * kSectorBytes;
  std::vector<layout::DevAddress> addr(size_t(map_.copies()));
  const int copies = map_.map(range.array_lo, addr.data());
  if (Status s = reserve_scratch(size_t(copies), bytes); !s) return s.error();
  // Every in-sync copy, read; the first that reads is the reference.
  std::vector<int> read, unreadable;
  for (int k = 0; k < copies; ++k) {
    const int slot = addr[size_t(k)].disk;
    if (!table[slot].present() || table[slot].state != MemberState::in_sync) continue;
    const bool ok =
        core_.read_member(table, slot, addr[size_t(k)].sector, scratch(size_t(k), bytes), bytes).ok();
    (ok ? read : unreadable).push_back(k);
  }
  if (read.empty())
    return make_error(Errc::io_error, "array sectors " + std::to_string(range.array_lo) + ".." +
                                          std::to_string(range.array_hi) + ": no copy could be read");
  const int first = read.front();
  const uint8_t* ref = scratch(size_t(first), bytes);
  // md's fix_sync_read_error: a copy that could not read is rewritten from
  // the reference (check too: md's check rewrites unreadable blocks).
  for (int k : unreadable) {
    auto fixed =
        core_.correct_block(table, addr[size_t(k)].disk, addr[size_t(k)].sector, scratch(size_t(k), bytes),
                            ref, bytes, "member " + table[addr[size_t(first)].disk].name);
    if (!fixed) return fixed.error();
    if (*fixed) read.push_back(k);
  }
  for (int k : read) {
    if (k == first) continue;
    const int slot = addr[size_t(k)].disk;
    const uint8_t* buf = scratch(size_t(k), bytes);
    // md counts mismatches per 4 KiB page, in 512-byte sectors.
    bool differs = false;
    for (uint64_t off = 0; off < bytes; off += 4096) {
      const uint64_t len = std::min<uint64_t>(4096, bytes - off);
      if (std::memcmp(ref + off, buf + off, len) != 0) {
        out.mismatches += len / kSectorBytes;
        differs = true;
      }
    }
    if (differs && repair)
      if (Status s = core_.write_member(table, slot, addr[size_t(k)].sector, ref, bytes); !s)
        return s.error();
  }
  return out;
}

raid::PieceRange MirrorPersonality::fix_range(int slot, uint64_t dev_sector, uint64_t sectors) const {
  raid::PieceRange r;
  const uint64_t array_sector = map_.find_virt(slot, dev_sector);
  if (array_sector < map_.array_sectors()) {
    r.array_lo = array_sector;
    r.array_hi = std::min(array_sector + sectors, map_.array_sectors());
  }
  return r;
}

// md's fix_read_error: the data from another in-sync copy, then the
// member's unreadable pages rewritten from it.
Status MirrorPersonality::fix_read_error(const raid::MemberTable& table, int slot, uint64_t dev_sector,
                                         uint64_t sectors) {
  const raid::PieceRange r = fix_range(slot, dev_sector, sectors);
  if (r.array_lo == r.array_hi) return {};
  const uint64_t bytes = (r.array_hi - r.array_lo) * kSectorBytes;
  std::vector<layout::DevAddress> addr(size_t(map_.copies()));
  const int copies = map_.map(r.array_lo, addr.data());
  if (Status s = reserve_scratch(2, bytes); !s) return s;
  uint8_t* good = scratch(0, bytes);
  for (int k = 0; k < copies; ++k) {
    const int src = addr[size_t(k)].disk;
    if (src == slot || !table[src].present() || table[src].state != MemberState::in_sync) continue;
    if (!core_.read_member(table, src, addr[size_t(k)].sector, good, bytes)) continue;
    auto fixed = core_.correct_block(table, slot, dev_sector, scratch(1, bytes), good, bytes,
                                     "member " + table[src].name);
    return fixed ? Status{} : Status(fixed.error());
  }
  return make_error(Errc::io_error, "no other copy of it could be read");
}

}  // namespace rs::mirror
