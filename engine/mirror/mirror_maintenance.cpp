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
Result<uint8_t*> scratch(size_t index, size_t bytes) {
  thread_local std::vector<io::AlignedBuffer> bufs;
  if (bufs.size() <= index) bufs.resize(index + 1);
  if (bufs[index].size() < bytes) {
    auto buf = io::AlignedBuffer::allocate(bytes);
    if (!buf) return buf.take_error();
    bufs[index] = std::move(*buf);
  }
  return bufs[index].data();
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
  for (int k = 0; k < copies; ++k) {
    const int src = addr[size_t(k)].disk;
    if (src == target || !table[src].present() || table[src].state != MemberState::in_sync) continue;
    const uint64_t bytes = range.dev_sectors * kSectorBytes;
    auto scratch0 = scratch(0, bytes);
    if (!scratch0) return scratch0.error();
    uint8_t* buf = *scratch0;
    if (Status s = core_.read_member(table, src, addr[size_t(k)].sector, buf, bytes); !s) return s;
    return core_.write_member(table, target, dev_sector, buf, bytes);
  }
  return make_error(Errc::io_error,
                    "no in-sync copy of array sector " + std::to_string(range.array_lo) + " to rebuild from");
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
  int first = -1;
  for (int k = 0; k < copies; ++k) {
    const int slot = addr[size_t(k)].disk;
    if (!table[slot].present() || table[slot].state != MemberState::in_sync) continue;
    auto scratch_k = scratch(first < 0 ? 0 : 1, bytes);
    if (!scratch_k) return scratch_k.take_error();
    uint8_t* buf = *scratch_k;
    if (Status s = core_.read_member(table, slot, addr[size_t(k)].sector, buf, bytes); !s) return s.error();
    if (first < 0) {
      first = k;
      continue;
    }
    const uint8_t* ref = *scratch(0, bytes);  // made above, when `first` was read
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

}  // namespace rs::mirror
