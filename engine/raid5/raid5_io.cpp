// The RAID5 I/O path: plan the I/O's stripe segments, lock the stripes,
// pre-read (or read), compute parity (or reconstruct), write, unlock.
#include <algorithm>
#include <cerrno>
#include <cstring>

#include "io/member_device.hpp"
#include "raid/array_port.hpp"
#include "raid5/parity.hpp"
#include "raid5/raid5.hpp"

namespace rs::raid5 {

using raid::ArrayIo;
using raid::kSectorBytes;
using raid::MemberState;

struct Raid5Personality::Child : raid::MemberChild {
  Raid5Personality* self = nullptr;
};

// A run of page columns [lo, lo + n) (sectors within the chunk) of one
// stripe on which the I/O does the same thing.
struct Raid5Personality::Seg {
  uint64_t stripe = 0;
  uint32_t lo = 0, n = 0;
  int pd = -1;
  // Reads: the data member and whether its data is reconstructed.
  int disk = -1;
  bool reconstruct = false;
  uint8_t* dest = nullptr;  // reads: where the data lands in the I/O's buffer
  // Writes: how the parity is made.
  WriteMethod method = WriteMethod::rcw;
  size_t scratch = 0;  // byte offset of this segment's (disks + 1) scratch blocks
};

// Everything an I/O needs, sized once by prepare().
struct Raid5Personality::Io : raid::PersonalityIo {
  std::vector<Seg> segs;
  std::vector<uint8_t> written;     // writes: segs x disks, member's data block written
  std::vector<uint8_t*> new_data;   // writes: segs x disks, where it comes from in the buffer
  std::vector<uint64_t> stripes;    // stripes to hold locked
  std::vector<Child> children;
  std::vector<uint8_t> failed;      // members this I/O found failing: planned around
  std::vector<uint8_t> readable_scratch, written_scratch;
  std::vector<uint8_t*> vec;        // scratch pointer list for parity
  io::AlignedBuffer scratch;
  size_t n_segs = 0;
  size_t scratch_used = 0;
  size_t next_child = 0;
  unsigned outstanding = 0;
  bool locked = false;
  bool replan = false;   // a read failed: plan again without that member
  bool writing = false;  // the member writes are out
  uint32_t max_length = 0;
};

namespace {
// Upper bounds for an I/O of `sectors` on this geometry (see prepare()).
struct Bounds {
  size_t segs, columns;
};
Bounds bounds(const layout::Raid5Geometry& g, uint64_t sectors) {
  const uint64_t chunk = g.chunk_sectors, dd = uint64_t(g.data_disks());
  const uint64_t rows = sectors / (chunk * dd) + 2;
  const uint64_t pieces = sectors / chunk + 2;
  Bounds b;
  b.segs = size_t(std::max(rows * (2 * dd + 1), pieces));
  // Page columns of all stripes an I/O touches: at most one chunk per
  // stripe it covers whole, plus the two partial ends.
  b.columns = size_t(std::min(sectors, sectors / dd + 2 * std::min(sectors, chunk)) + 8);
  return b;
}
}  // namespace

void Raid5Personality::prepare(ArrayIo& io, uint32_t max_length) const {
  auto st = std::make_unique<Io>();
  const int disks = geo_.raid_disks;
  const Bounds b = bounds(geo_, std::max<uint64_t>(max_length / kSectorBytes, 8));
  st->max_length = max_length;
  st->segs.resize(b.segs);
  st->written.resize(b.segs * size_t(disks));
  st->new_data.resize(b.segs * size_t(disks));
  st->stripes.reserve(b.segs);
  st->children.resize(b.segs * size_t(disks));
  st->failed.assign(size_t(disks), 0);
  st->readable_scratch.resize(size_t(disks));
  st->written_scratch.resize(size_t(disks));
  st->vec.resize(size_t(disks) * 2 + 2);
  st->scratch = io::AlignedBuffer(std::max<size_t>(b.columns * kSectorBytes * size_t(disks + 1), 4096));
  for (auto& c : st->children) {
    c.parent = &io;
    c.self = const_cast<Raid5Personality*>(this);
    c.done = &Raid5Personality::child_done;
  }
  io.priv = std::move(st);
}

bool Raid5Personality::readable(const raid::MemberTable& table, const Io& st, int slot, uint64_t dev_sector,
                                uint64_t n) const {
  const raid::Member& m = table[slot];
  if (!m.present() || st.failed[size_t(slot)]) return false;
  if (m.state == MemberState::in_sync) return true;
  return m.state == MemberState::recovering &&
         dev_sector + n <= core_.runtime(slot).recovery_offset.load(std::memory_order_acquire);
}

bool Raid5Personality::writable(const raid::MemberTable& table, const Io& st, int slot) const {
  return table[slot].writable() && !st.failed[size_t(slot)];
}

void Raid5Personality::submit(ArrayIo& io) {
  Io& st = static_cast<Io&>(*io.priv);
  if (io.length > st.max_length) {  // more than prepare() made room for
    core_.complete(io, -EINVAL);
    return;
  }
  std::fill(st.failed.begin(), st.failed.end(), 0);
  start(io);
}

void Raid5Personality::start(ArrayIo& io) {
  Io& st = static_cast<Io&>(*io.priv);
  st.replan = false;
  if (!plan(io)) {  // two members missing under one stripe
    finish(io, -EIO);
    return;
  }
  if (!st.stripes.empty()) {
    raid::ArrayPort* port = io.port;
    ArrayIo* p = &io;
    // Busy: planned again on the I/O's own context when the stripe is released.
    if (!locks_.try_lock_all(st.stripes, [this, port, p] { port->context().post([this, p] { start(*p); }); }))
      return;
    st.locked = true;
  }
  issue_reads(io);
}

bool Raid5Personality::plan(ArrayIo& io) {
  Io& st = static_cast<Io&>(*io.priv);
  st.stripes.clear();
  st.n_segs = 0;
  st.scratch_used = 0;
  const bool ok = io.write ? plan_write(io) : plan_read(io);
  // prepare()'s bounds cover every I/O up to max_length; this only guards them.
  return ok && st.scratch_used <= st.scratch.size() && st.n_segs <= st.segs.size();
}

// Reads: one segment per chunk piece; a piece whose member cannot serve it
// is reconstructed from the rest of its stripe, which is then locked.
bool Raid5Personality::plan_read(ArrayIo& io) {
  Io& st = static_cast<Io&>(*io.priv);
  const raid::MemberTable& table = core_.table(io);
  const uint64_t chunk = geo_.chunk_sectors;
  uint64_t sector = io.offset / kSectorBytes, left = io.length / kSectorBytes;
  auto* buf = static_cast<uint8_t*>(io.buffer);
  while (left > 0) {
    if (st.n_segs == st.segs.size()) return false;
    const layout::Raid5Address a = layout::raid5_compute_sector(geo_, sector);
    Seg& s = st.segs[st.n_segs++];
    s.stripe = a.sector / chunk;
    s.lo = uint32_t(a.sector % chunk);
    s.n = uint32_t(std::min<uint64_t>(left, chunk - s.lo));
    s.pd = a.pd_idx;
    s.disk = a.dd_idx;
    s.dest = buf;
    s.reconstruct = !readable(table, st, a.dd_idx, a.sector, s.n);
    if (s.reconstruct) {
      for (int i = 0; i < geo_.raid_disks; ++i)
        if (i != s.disk && !readable(table, st, i, a.sector, s.n)) return false;
      s.scratch = st.scratch_used;
      st.scratch_used += size_t(geo_.raid_disks) * s.n * kSectorBytes;
      if (st.stripes.empty() || st.stripes.back() != s.stripe) {
        if (st.stripes.size() == st.stripes.capacity()) return false;
        st.stripes.push_back(s.stripe);
      }
    }
    sector += s.n;
    left -= s.n;
    buf += uint64_t(s.n) * kSectorBytes;
  }
  return true;
}

// Writes: per stripe, the page columns split where the set of members
// written changes; each such segment chooses full-stripe, rmw or rcw.
bool Raid5Personality::plan_write(ArrayIo& io) {
  Io& st = static_cast<Io&>(*io.priv);
  const raid::MemberTable& table = core_.table(io);
  const int disks = geo_.raid_disks, dd = geo_.data_disks();
  const uint64_t chunk = geo_.chunk_sectors, row = row_sectors();
  const uint64_t first = io.offset / kSectorBytes, end = first + io.length / kSectorBytes;
  auto* buf = static_cast<uint8_t*>(io.buffer);
  for (uint64_t stripe = first / row; stripe * row < end; ++stripe) {
    if (st.stripes.size() == st.stripes.capacity()) return false;  // never: prepare() reserved every stripe
    st.stripes.push_back(stripe);
    // Column boundaries: where some data chunk's written range starts or ends.
    uint32_t cuts[4];
    size_t n_cuts = 0;
    const uint64_t k0 = std::max(first, stripe * row), k1 = std::min(end, (stripe + 1) * row);
    cuts[n_cuts++] = 0;
    cuts[n_cuts++] = uint32_t(chunk);
    // Only the first and last chunk of the stripe's written range can be
    // partial: their ends are the only cuts inside the chunk.
    for (uint64_t s : {k0, k1})
      if (s % chunk) cuts[n_cuts++] = uint32_t(s % chunk);
    std::sort(cuts, cuts + n_cuts);
    n_cuts = size_t(std::unique(cuts, cuts + n_cuts) - cuts);
    for (size_t c = 0; c + 1 < n_cuts; ++c) {
      const uint32_t lo = cuts[c], hi = cuts[c + 1];
      if (st.n_segs == st.segs.size()) return false;
      Seg& s = st.segs[st.n_segs];
      uint8_t* written = &st.written[st.n_segs * size_t(disks)];
      uint8_t** data = &st.new_data[st.n_segs * size_t(disks)];
      std::fill_n(written, disks, 0);
      bool any = false;
      for (int k = 0; k < dd; ++k) {
        const uint64_t at = stripe * row + uint64_t(k) * chunk + lo;  // array sector of the column run
        if (at < k0 || at + (hi - lo) > k1) continue;
        const layout::Raid5Address a = layout::raid5_compute_sector(geo_, at);
        written[a.dd_idx] = 1;
        data[a.dd_idx] = buf + (at - first) * kSectorBytes;
        s.pd = a.pd_idx;
        any = true;
      }
      if (!any) continue;
      s.stripe = stripe;
      s.lo = lo;
      s.n = hi - lo;
      const uint64_t dev = stripe * chunk + lo;
      for (int i = 0; i < disks; ++i) st.readable_scratch[size_t(i)] = readable(table, st, i, dev, s.n);
      const WriteChoice choice = choose_write(s.pd, {written, size_t(disks)}, st.readable_scratch);
      if (!choice.possible) return false;
      s.method = choice.method;
      s.scratch = st.scratch_used;
      st.scratch_used += size_t(disks + 1) * s.n * kSectorBytes;
      ++st.n_segs;
    }
  }
  return true;
}

void Raid5Personality::issue_child(ArrayIo& io, bool write, int slot, uint64_t dev_sector, uint64_t sectors,
                                   uint8_t* buf) {
  Io& st = static_cast<Io&>(*io.priv);
  Child& c = st.children[st.next_child++];
  c.write = write;
  c.dev_sector = dev_sector;
  c.sectors = uint32_t(sectors);
  c.array_sector = 0;
  c.buffer = buf;
  ++st.outstanding;
  core_.issue(io, c, slot);
}

void Raid5Personality::issue_reads(ArrayIo& io) {
  Io& st = static_cast<Io&>(*io.priv);
  const int disks = geo_.raid_disks;
  st.next_child = 0;
  st.writing = false;
  st.outstanding = 1;  // held until every read is queued
  for (size_t si = 0; si < st.n_segs; ++si) {
    Seg& s = st.segs[si];
    const uint64_t dev = s.stripe * geo_.chunk_sectors + s.lo;
    uint8_t* base = st.scratch.data() + s.scratch;
    const size_t bytes = size_t(s.n) * kSectorBytes;
    if (!io.write) {
      if (!s.reconstruct) {
        issue_child(io, false, s.disk, dev, s.n, s.dest);
        continue;
      }
      counters_.degraded_reads.fetch_add(s.n / 8, std::memory_order_relaxed);
      for (int i = 0; i < disks; ++i)
        if (i != s.disk) issue_child(io, false, i, dev, s.n, base + size_t(i) * bytes);
      continue;
    }
    const uint8_t* written = &st.written[si * size_t(disks)];
    uint64_t reads = 0;
    for (int i = 0; i < disks; ++i) {
      const bool need = s.method == WriteMethod::rmw ? (written[i] || i == s.pd)
                        : s.method == WriteMethod::rcw ? (!written[i] && i != s.pd)
                                                       : false;
      if (!need) continue;
      issue_child(io, false, i, dev, s.n, base + size_t(i) * bytes);
      ++reads;
    }
    const uint64_t heads = s.n / 8;
    auto& counter = s.method == WriteMethod::rmw ? counters_.rmw
                    : s.method == WriteMethod::rcw ? counters_.rcw
                                                   : counters_.full_stripe;
    counter.fetch_add(heads, std::memory_order_relaxed);
    counters_.prereads.fetch_add(reads * heads, std::memory_order_relaxed);
  }
  child_finished(io);
}

void Raid5Personality::child_done(io::MemberIo& mio, int result) {
  auto& c = static_cast<Child&>(mio);
  ArrayIo& io = *c.parent;
  Raid5Personality& self = *c.self;
  Io& st = static_cast<Io&>(*io.priv);
  if (self.core_.child_finished(c, result)) {
    if (!c.write) io.served_by = c.member;
  } else {
    const bool failed = self.core_.member_failed(io, c.member, c.write, result, c.dev_sector);
    st.failed[size_t(c.member)] = 1;
    if (c.write) {
      // The stripe's parity already covers the block that missed its write,
      // as long as the member is recorded failed; one that could not be
      // failed (the array would stop) would serve stale data: the write fails.
      if (!failed) io.error = -EIO;
    } else {
      st.replan = true;
    }
  }
  self.child_finished(io);
}

void Raid5Personality::child_finished(ArrayIo& io) {
  Io& st = static_cast<Io&>(*io.priv);
  if (--st.outstanding > 0) return;
  if (st.writing)
    finish(io, io.error ? io.error : int(io.length));
  else
    after_reads(io);
}

void Raid5Personality::after_reads(ArrayIo& io) {
  Io& st = static_cast<Io&>(*io.priv);
  if (st.replan) {  // nothing was written yet: plan again around the failed member
    if (st.locked) locks_.unlock_all(st.stripes);
    st.locked = false;
    start(io);
    return;
  }
  const int disks = geo_.raid_disks;
  if (!io.write) {
    for (size_t si = 0; si < st.n_segs; ++si) {
      Seg& s = st.segs[si];
      if (!s.reconstruct) continue;
      const size_t bytes = size_t(s.n) * kSectorBytes;
      int n = 0;
      for (int i = 0; i < disks; ++i)
        if (i != s.disk) st.vec[size_t(n++)] = st.scratch.data() + s.scratch + size_t(i) * bytes;
      xor_into(s.dest, st.vec.data(), n, bytes);
    }
    finish(io, io.error ? io.error : int(io.length));
    return;
  }
  for (size_t si = 0; si < st.n_segs; ++si) {
    Seg& s = st.segs[si];
    const size_t bytes = size_t(s.n) * kSectorBytes;
    uint8_t* base = st.scratch.data() + s.scratch;
    const uint8_t* written = &st.written[si * size_t(disks)];
    uint8_t* const* data = &st.new_data[si * size_t(disks)];
    int n = 0;
    if (s.method == WriteMethod::rmw) {  // P' = P ^ D_old ^ D_new over the blocks written
      st.vec[size_t(n++)] = base + size_t(s.pd) * bytes;
      for (int i = 0; i < disks; ++i)
        if (written[i]) {
          st.vec[size_t(n++)] = base + size_t(i) * bytes;
          st.vec[size_t(n++)] = data[i];
        }
    } else {  // P' = XOR of every data block, new where written
      for (int i = 0; i < disks; ++i)
        if (i != s.pd) st.vec[size_t(n++)] = written[i] ? data[i] : base + size_t(i) * bytes;
    }
    xor_into(base + size_t(disks) * bytes, st.vec.data(), n, bytes);
  }
  issue_writes(io);
}

void Raid5Personality::issue_writes(ArrayIo& io) {
  Io& st = static_cast<Io&>(*io.priv);
  const raid::MemberTable& table = core_.table(io);
  const int disks = geo_.raid_disks;
  st.next_child = 0;
  st.writing = true;
  st.outstanding = 1;
  for (size_t si = 0; si < st.n_segs; ++si) {
    Seg& s = st.segs[si];
    const uint64_t dev = s.stripe * geo_.chunk_sectors + s.lo;
    const size_t bytes = size_t(s.n) * kSectorBytes;
    const uint8_t* written = &st.written[si * size_t(disks)];
    uint8_t* const* data = &st.new_data[si * size_t(disks)];
    for (int i = 0; i < disks; ++i)
      if (written[i] && writable(table, st, i)) issue_child(io, true, i, dev, s.n, data[i]);
    if (writable(table, st, s.pd))
      issue_child(io, true, s.pd, dev, s.n, st.scratch.data() + s.scratch + size_t(disks) * bytes);
  }
  child_finished(io);
}

void Raid5Personality::finish(ArrayIo& io, int result) {
  Io& st = static_cast<Io&>(*io.priv);
  if (st.locked) locks_.unlock_all(st.stripes);
  st.locked = false;
  core_.complete(io, result);
}

}  // namespace rs::raid5
