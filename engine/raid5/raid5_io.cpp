// Array I/O in: writes are cut into 4 KiB blocks for the stripe cache
// (raid5d.cpp); reads go straight to their data member (md's
// chunk_aligned_read), and a piece whose member cannot serve it is
// reconstructed through its stripe heads.
#include <algorithm>
#include <cerrno>

#include "io/member_device.hpp"
#include "raid/array_port.hpp"
#include "raid5/raid5_internal.hpp"

namespace rs::raid5 {

using raid::ArrayIo;
using raid::kSectorBytes;

void Raid5Personality::prepare(ArrayIo& io, uint32_t max_length) const {
  auto st = std::make_unique<Io>();
  const uint64_t sectors = std::max<uint64_t>(max_length / kSectorBytes, kPageSectors);
  const size_t segs = size_t(sectors / geo_.chunk_sectors + 2);  // chunk pieces of a read
  const size_t pieces = size_t(sectors / kPageSectors + 1);
  st->max_length = max_length;
  st->segs.resize(segs);
  st->children.resize(segs);
  st->failed.assign(size_t(geo_.raid_disks), 0);
  st->pieces.resize(pieces);
  st->touched.reserve(pieces);
  for (auto& c : st->children) {
    c.parent = &io;
    c.self = const_cast<Raid5Personality*>(this);
    c.done = &Raid5Personality::read_child_done;
  }
  io.priv = std::move(st);
}

bool Raid5Personality::readable(const raid::MemberTable& table, const std::vector<uint8_t>& failed, int slot,
                                uint64_t dev_sector, uint64_t n) const {
  return !failed[size_t(slot)] && raid::readable_at(table[slot], core_.runtime(slot), dev_sector, n);
}

bool Raid5Personality::writable(const raid::MemberTable& table, const std::vector<uint8_t>& failed, int slot) const {
  return table[slot].writable() && !failed[size_t(slot)];
}

void Raid5Personality::submit(ArrayIo& io) {
  Io& st = static_cast<Io&>(*io.priv);
  if (io.length > st.max_length) {  // more than prepare() made room for
    core_.complete(io, -EINVAL);
    return;
  }
  std::fill(st.failed.begin(), st.failed.end(), 0);
  if (!io.write) {
    start_read(io);
    return;
  }
  plan_write(io);
  begin_head_work(io, true);  // a write has no direct part
  attach(io);
}

void Raid5Personality::begin_head_work(ArrayIo& io, bool direct_done) {
  Io& st = static_cast<Io&>(*io.priv);
  st.through_heads = true;
  std::lock_guard lock(mutex_);
  st.pending_heads = 0;
  st.attach_done = false;
  st.direct_done = direct_done;
  st.completed = false;
  st.head_error = 0;
  st.head_epoch = 0;
  if (io.write) {
    const uint64_t begin = io.offset / kSectorBytes;
    st.stream = streams_.write_started(io.port, begin, begin + io.length / kSectorBytes);
  }
}

// Every 4 KiB block of the write, in array order, with its page column
// and data member.
void Raid5Personality::plan_write(ArrayIo& io) {
  Io& st = static_cast<Io&>(*io.priv);
  const uint64_t chunk = geo_.chunk_sectors;
  uint64_t sector = io.offset / kSectorBytes, left = io.length / kSectorBytes;
  auto* buf = static_cast<uint8_t*>(io.buffer);
  st.n_pieces = 0;
  st.attach_pos = 0;
  while (left > 0) {
    const StripeGeometry::Address a = geo_.compute_sector(sector);
    const uint64_t n = std::min<uint64_t>(left, chunk - a.sector % chunk);
    for (uint64_t k = 0; k < n; k += kPageSectors)
      st.pieces[st.n_pieces++] = {(a.sector + k) / kPageSectors, a.dd_idx, buf + k * kSectorBytes};
    sector += n;
    left -= n;
    buf += n * kSectorBytes;
  }
}

// Reads: one segment per chunk piece; a piece whose member cannot serve it
// is reconstructed through its stripe heads.
bool Raid5Personality::plan_read(ArrayIo& io) {
  Io& st = static_cast<Io&>(*io.priv);
  const raid::MemberTable& table = core_.table(io);
  const uint64_t chunk = geo_.chunk_sectors;
  uint64_t sector = io.offset / kSectorBytes, left = io.length / kSectorBytes;
  auto* buf = static_cast<uint8_t*>(io.buffer);
  st.n_segs = 0;
  st.n_pieces = 0;
  st.attach_pos = 0;
  while (left > 0) {
    if (st.n_segs == st.segs.size()) return false;
    const StripeGeometry::Address a = geo_.compute_sector(sector);
    Seg& s = st.segs[st.n_segs++];
    s.stripe = a.sector / chunk;
    s.lo = uint32_t(a.sector % chunk);
    s.n = uint32_t(std::min<uint64_t>(left, chunk - s.lo));
    s.disk = a.dd_idx;
    s.dest = buf;
    s.reconstruct = !readable(table, st.failed, a.dd_idx, a.sector, s.n);
    if (s.reconstruct) {
      int short_too = 0;  // past max_degraded members short: the data is gone
      for (int i = 0; i < geo_.raid_disks; ++i)
        if (i != s.disk && !readable(table, st.failed, i, a.sector, s.n)) ++short_too;
      if (short_too >= geo_.max_degraded()) return false;
      for (uint32_t k = 0; k < s.n; k += kPageSectors)
        st.pieces[st.n_pieces++] = {(a.sector + k) / kPageSectors, s.disk, buf + uint64_t(k) * kSectorBytes};
      counters_.degraded_reads.fetch_add(s.n / kPageSectors, std::memory_order_relaxed);
    }
    sector += s.n;
    left -= s.n;
    buf += uint64_t(s.n) * kSectorBytes;
  }
  return true;
}

// md's chunk_aligned_read: a read whose members can all serve it goes
// straight to them and never touches the stripe cache or its lock.
void Raid5Personality::start_read(ArrayIo& io) {
  Io& st = static_cast<Io&>(*io.priv);
  st.replan = false;
  st.through_heads = false;
  if (!plan_read(io)) {
    core_.complete(io, -EIO);
    return;
  }
  if (st.n_pieces > 0) begin_head_work(io, false);
  st.next_child = 0;
  st.outstanding = 1;  // held until every read is queued and the heads have the rest
  for (size_t si = 0; si < st.n_segs; ++si) {
    const Seg& s = st.segs[si];
    if (s.reconstruct) continue;
    Child& c = st.children[st.next_child++];
    c.write = false;
    c.dev_sector = s.stripe * geo_.chunk_sectors + s.lo;
    c.sectors = s.n;
    c.array_sector = 0;
    c.buffer = s.dest;
    ++st.outstanding;
    core_.issue(io, c, s.disk);
  }
  if (st.through_heads) attach(io);  // the reconstructed pieces
  if (--st.outstanding == 0) direct_reads_done(io);
}

void Raid5Personality::read_child_done(io::MemberIo& mio, int result) {
  auto& c = static_cast<Child&>(mio);
  ArrayIo& io = *c.parent;
  Raid5Personality& self = *c.self;
  Io& st = static_cast<Io&>(*io.priv);
  if (self.core_.child_finished(c, result)) {
    io.served_by = c.member;
  } else {
    // Failed past the threshold or kept (its block rewritten later): this
    // read plans again without it, reconstructing from the stripe.
    (void)self.core_.read_failed(io, c.member, c.dev_sector, c.sectors, result);
    st.failed[size_t(c.member)] = 1;
    st.replan = true;
  }
  if (--st.outstanding == 0) self.direct_reads_done(io);
}

// On the bio's context (its member reads complete there).
void Raid5Personality::direct_reads_done(ArrayIo& io) {
  Io& st = static_cast<Io&>(*io.priv);
  if (st.through_heads) {
    std::lock_guard lock(mutex_);
    st.direct_done = true;
    if (!st.attach_done || st.pending_heads > 0 || st.completed) return;  // the last head ends it
    st.completed = true;
  }
  finish_bio(io);
}

void Raid5Personality::finish_bio(ArrayIo& io) {
  Io& st = static_cast<Io&>(*io.priv);
  int head_error = 0;
  if (st.through_heads) {
    std::lock_guard lock(mutex_);
    head_error = st.head_error;
    io.metadata_epoch = std::max(io.metadata_epoch, st.head_epoch);
  }
  if (!io.write && st.replan && !head_error) {  // a member failed under a read: again without it
    start_read(io);
    return;
  }
  if (!io.error) io.error = head_error;
  core_.complete(io, io.error ? io.error : int(io.length));
}

}  // namespace rs::raid5
