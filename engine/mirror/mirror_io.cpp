// The RAID1/RAID10 I/O path: split at chunk boundaries, reads to one copy
// chosen by the read policy, writes to every copy that takes writes, a
// failed write fails its member, a failed read tries another copy (its
// block is rewritten later, raid/read_errors.hpp).
#include <algorithm>
#include <cerrno>

#include "mirror/mirror.hpp"

namespace rs::mirror {

using raid::ArrayIo;
using raid::kSectorBytes;
using raid::MemberState;

struct MirrorPersonality::Child : raid::MemberChild {
  MirrorPersonality* self = nullptr;
  uint32_t segment = 0;
};

// Everything an array I/O needs, sized once by prepare(): no fixed-size
// array a geometry could overflow.
struct MirrorPersonality::Io : raid::PersonalityIo {
  std::vector<Child> children;               // segments x copies
  std::vector<uint8_t> segment_ok;           // writes: copies that took each segment
  std::vector<uint8_t> tried;                // reads: per segment, copies already tried
  std::vector<layout::DevAddress> addr;      // scratch: one segment's copies
  std::vector<balance::MemberSnapshot> snap;  // scratch: what the policy sees
  unsigned outstanding = 0;
  int copies = 0;
  uint32_t max_length = 0;
};

void MirrorPersonality::prepare(ArrayIo& io, uint32_t max_length) const {
  auto st = std::make_unique<Io>();
  const uint64_t max_sectors = std::max<uint64_t>(max_length / kSectorBytes, 1);
  size_t segments = 1;
  if (shape_.level == 10) segments = size_t(max_sectors / shape_.chunk_sectors + 2);
  st->copies = map_.copies();
  st->max_length = max_length;
  st->children.resize(segments * size_t(st->copies));
  st->segment_ok.assign(segments, 0);
  st->tried.assign(segments * size_t(st->copies), 0);
  st->addr.resize(size_t(st->copies));
  st->snap.resize(size_t(st->copies));
  for (auto& c : st->children) {
    c.parent = &io;
    c.self = const_cast<MirrorPersonality*>(this);
    c.done = &MirrorPersonality::child_done;
  }
  io.priv = std::move(st);
}

void MirrorPersonality::submit(ArrayIo& io) {
  Io& st = static_cast<Io&>(*io.priv);
  const raid::MemberTable& table = core_.table(io);
  if (io.length > st.max_length) {  // more segments than prepare() made room for
    core_.complete(io, -EINVAL);
    return;
  }
  st.outstanding = 1;  // held until every child is queued, so none completes the parent early
  uint64_t sector = io.offset / kSectorBytes;
  uint64_t left = io.length / kSectorBytes;
  auto* buf = static_cast<uint8_t*>(io.buffer);
  size_t next_child = 0;
  uint32_t segment = 0;
  while (left > 0) {
    const uint32_t n = uint32_t(std::min<uint64_t>(left, map_.sectors_to_boundary(sector)));
    if (io.write) {
      st.segment_ok[segment] = 0;
      const int copies = map_.map(sector, st.addr.data());
      for (int k = 0; k < copies; ++k) {
        const int slot = st.addr[size_t(k)].disk;
        // md writes to in-sync and recovering members alike; recovery copies
        // only what was there before.
        if (!table[slot].writable()) continue;
        Child& c = st.children[next_child++];
        c.write = true;
        c.array_sector = sector;
        c.dev_sector = st.addr[size_t(k)].sector;
        c.sectors = n;
        c.segment = segment;
        c.length = n * uint32_t(kSectorBytes);
        c.buffer = buf;
        ++st.outstanding;
        core_.issue(io, c, slot);
      }
    } else {
      Child& c = st.children[next_child++];
      c.write = false;
      c.array_sector = sector;
      c.sectors = n;
      c.segment = segment;
      c.length = n * uint32_t(kSectorBytes);
      c.buffer = buf;
      std::fill_n(st.tried.begin() + std::ptrdiff_t(size_t(segment) * size_t(st.copies)), st.copies, 0);
      ++st.outstanding;
      issue_read(io, c);
    }
    sector += n;
    left -= n;
    buf += uint64_t(n) * kSectorBytes;
    ++segment;
  }
  finish_child(io);
}

void MirrorPersonality::fill_snapshots(const raid::MemberTable& table, Io& st, Child& c, int copies) const {
  const uint8_t* tried = st.tried.data() + size_t(c.segment) * size_t(st.copies);
  for (int k = 0; k < copies; ++k) {
    const int slot = st.addr[size_t(k)].disk;
    const raid::Member& m = table[slot];
    const raid::SlotRuntime& rt = core_.runtime(slot);
    const MirrorState& ms = *mirrors_[size_t(slot)];
    balance::MemberSnapshot& s = st.snap[size_t(k)];
    s = balance::MemberSnapshot{};
    s.slot = slot;
    s.sector = st.addr[size_t(k)].sector;
    s.readable = !tried[k] && raid::readable_at(m, rt, s.sector, c.sectors);
    s.write_mostly = rt.write_mostly.load(std::memory_order_relaxed);
    const int8_t rotational_override = rt.rotational_override.load(std::memory_order_relaxed);
    s.rotational = rotational_override < 0 ? m.rotational() : rotational_override != 0;
    s.nr_pending = rt.counters.nr_pending.load(std::memory_order_relaxed);
    s.head_position = rt.counters.head_position.load(std::memory_order_relaxed);
    s.next_seq_sect = ms.next_seq_sect.load(std::memory_order_relaxed);
    s.seq_start = ms.seq_start.load(std::memory_order_relaxed);
    const uint32_t override_bytes = rt.io_opt_override.load(std::memory_order_relaxed);
    s.io_opt_sectors = (override_bytes ? override_bytes : m.io_opt()) / uint32_t(kSectorBytes);
  }
}

void MirrorPersonality::issue_read(ArrayIo& io, Child& c) {
  Io& st = static_cast<Io&>(*io.priv);
  const raid::MemberTable& table = core_.table(io);
  const int copies = map_.map(c.array_sector, st.addr.data());
  fill_snapshots(table, st, c, copies);
  balance::ReadRequest req;
  req.sector = c.array_sector;
  req.sectors = c.sectors;
  req.job_id = io.job_id;
  // md's rule for a region not yet resynced: every reader reads the first
  // copy, so readers agree. It is the array's rule, not the policy's: the
  // btrfs policies know no md resync, so md's read_balance stands in for
  // them there.
  req.resync_overlap = core_.unsynced(c.array_sector, c.sectors);
  const balance::PolicyId pol = req.resync_overlap ? balance::PolicyId::MdLegacy : policy();
  const balance::Choice choice =
      balance::choose(pol, req, {st.snap.data(), size_t(copies)}, policy_state_, balance_tunables());
  if (choice.index < 0) {
    io.error = -EIO;
    finish_child(io);
    return;
  }
  const int slot = st.snap[size_t(choice.index)].slot;
  // md's update_read_sectors: the chosen mirror's sequential-run state.
  MirrorState& ms = *mirrors_[size_t(slot)];
  const uint64_t dev_sector = st.snap[size_t(choice.index)].sector;
  if (ms.next_seq_sect.load(std::memory_order_relaxed) != dev_sector)
    ms.seq_start.store(dev_sector, std::memory_order_relaxed);
  ms.next_seq_sect.store(dev_sector + c.sectors, std::memory_order_relaxed);
  st.tried[size_t(c.segment) * size_t(st.copies) + size_t(choice.index)] = 1;
  c.dev_sector = dev_sector;
  core_.issue(io, c, slot);
}

void MirrorPersonality::child_done(io::MemberIo& mio, int result) {
  auto& c = static_cast<Child&>(mio);
  ArrayIo& io = *c.parent;
  MirrorPersonality& self = *c.self;
  Io& st = static_cast<Io&>(*io.priv);
  if (self.core_.child_finished(c, result)) {
    if (c.write)
      ++st.segment_ok[c.segment];
    else
      io.served_by = c.member;
    self.finish_child(io);
    return;
  }
  if (!c.write) {
    // md's read-error handling: the member stays unless past the
    // threshold, the block is rewritten off this thread, and the read goes
    // to another copy (or fails with -EIO when none is left).
    (void)self.core_.read_failed(io, c.member, c.dev_sector, c.sectors, result);
    self.issue_read(io, c);
    return;
  }
  const bool failed = self.core_.member_failed(io, c.member, true, result, c.dev_sector);
  // A copy that missed the write but could not be failed (it holds the last
  // copy of other data) would serve stale bytes later: the write fails.
  if (!failed) io.error = -EIO;
  self.finish_child(io);
}

void MirrorPersonality::finish_child(ArrayIo& io) {
  Io& st = static_cast<Io&>(*io.priv);
  if (--st.outstanding > 0) return;
  if (io.write && io.error == 0) {
    // A write succeeds when every segment reached at least one copy.
    uint64_t sector = io.offset / kSectorBytes, left = io.length / kSectorBytes;
    for (size_t seg = 0; left > 0; ++seg) {
      const uint64_t n = std::min<uint64_t>(left, map_.sectors_to_boundary(sector));
      if (st.segment_ok[seg] == 0) io.error = -EIO;
      sector += n;
      left -= n;
    }
  }
  core_.complete(io, io.error ? io.error : int(io.length));
}

}  // namespace rs::mirror
