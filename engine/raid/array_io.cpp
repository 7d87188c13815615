// The RAID1/RAID10 I/O path: split at chunk boundaries, reads to one mirror
// chosen by the read policy, writes to every working copy, errors fail the
// member and reads retry on another copy.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "raid/array.hpp"

namespace rs::raid {

void Array::prepare(ArrayIo& io, uint32_t max_length) const {
  const uint64_t max_sectors = max_length / kSectorBytes;
  size_t segments = 1;
  if (geo_.level == 10) segments = size_t(max_sectors / geo_.chunk_sectors + 2);
  io.children.assign(segments * size_t(geo_.copies()), {});
  io.segment_ok.assign(segments, 0);
  for (auto& c : io.children) {
    c.parent = &io;
    c.done = &Array::child_done;
    c.owner = const_cast<Array*>(this);
  }
  io.retry.parent = &io;
  io.retry.done = &Array::retry_done;
  io.retry.owner = const_cast<Array*>(this);
}

namespace {
// How long a write held at the resync barrier waits before it looks again:
// short next to copying one rebuild piece (about a millisecond or more).
constexpr uint64_t kBarrierRetryNs = 100000;
}  // namespace

bool Array::enter_barrier(ArrayIo& io, io::Backend& backend) {
  io.barrier = ArrayIo::Barrier::none;
  if (barrier_users_.load(std::memory_order_seq_cst) == 0) {
    // Count first, then look again: a rebuild that starts in between either
    // sees this count (and waits for it) or is seen here.
    unregistered_writes_.fetch_add(1, std::memory_order_seq_cst);
    if (barrier_users_.load(std::memory_order_seq_cst) == 0) {
      io.barrier = ArrayIo::Barrier::counted;
      return true;
    }
    unregistered_writes_.fetch_sub(1, std::memory_order_seq_cst);
  }
  const uint64_t lo = io.offset / kSectorBytes, hi = lo + io.length / kSectorBytes;
  std::lock_guard lock(barrier_mutex_);
  if (lo < barrier_hi_ && barrier_lo_ < hi) {
    io.backend = &backend;
    backend.queue_timer(io.retry, kBarrierRetryNs);
    return false;
  }
  io.barrier = ArrayIo::Barrier::registered;
  barrier_writes_.push_back(&io);
  return true;
}

void Array::leave_barrier(ArrayIo& io) {
  if (io.barrier == ArrayIo::Barrier::counted) {
    unregistered_writes_.fetch_sub(1, std::memory_order_seq_cst);
  } else if (io.barrier == ArrayIo::Barrier::registered) {
    std::lock_guard lock(barrier_mutex_);
    std::erase(barrier_writes_, &io);
    barrier_cv_.notify_all();
  }
  io.barrier = ArrayIo::Barrier::none;
}

void Array::retry_done(io::MemberIo& mio, int) {
  auto& c = static_cast<ArrayIo::Child&>(mio);
  static_cast<Array*>(c.owner)->submit(*c.parent, *c.parent->backend);
}

Array::BarrierPiece::BarrierPiece(Array& a, uint64_t lo, uint64_t hi) : array(a) {
  std::unique_lock lock(array.barrier_mutex_);
  // One piece at a time: a rebuild and a check running together take turns.
  array.barrier_cv_.wait(lock, [&] { return array.barrier_lo_ == array.barrier_hi_; });
  array.barrier_lo_ = lo;
  array.barrier_hi_ = hi;
  array.barrier_cv_.wait(lock, [&] {
    for (const ArrayIo* w : array.barrier_writes_) {
      const uint64_t wlo = w->offset / kSectorBytes, whi = wlo + w->length / kSectorBytes;
      if (wlo < hi && lo < whi) return false;
    }
    return true;
  });
}

Array::BarrierPiece::~BarrierPiece() {
  std::lock_guard lock(array.barrier_mutex_);
  array.barrier_lo_ = array.barrier_hi_ = 0;
  array.barrier_cv_.notify_all();
}

Array::BarrierScope::BarrierScope(Array& a) : array(a) {
  array.barrier_users_.fetch_add(1, std::memory_order_seq_cst);
  while (array.unregistered_writes_.load(std::memory_order_seq_cst) > 0)
    std::this_thread::sleep_for(std::chrono::microseconds(50));
}

Array::BarrierScope::~BarrierScope() {
  array.barrier_users_.fetch_sub(1, std::memory_order_seq_cst);
}

void Array::submit(ArrayIo& io, io::Backend& backend) {
  if (backend.members_version() != members_version_.load(std::memory_order_acquire)) [[unlikely]]
    update_backend(backend);
  if (io.write && !enter_barrier(io, backend)) return;  // held: tried again on a timer
  io.backend = &backend;
  io.error = 0;
  io.outstanding = 1;  // held until every child is queued, so none completes the parent early
  if (io.write && !dirty_.load(std::memory_order_acquire)) mark_dirty();

  uint64_t sector = io.offset / kSectorBytes;
  uint64_t left = io.length / kSectorBytes;
  uint8_t* buf = static_cast<uint8_t*>(io.buffer);
  size_t next_child = 0;
  uint16_t segment = 0;
  while (left > 0) {
    uint32_t n = uint32_t(std::min<uint64_t>(left, geo_.sectors_to_boundary(sector)));
    layout::DevAddress addr[kMaxCopies];
    int copies = geo_.map(sector, addr);
    if (io.write) {
      io.segment_ok[segment] = 0;
      for (int k = 0; k < copies; ++k) {
        Slot& s = *slots_[size_t(addr[k].disk)];
        SlotState st = s.st();
        // md writes to in-sync and recovering members alike; recovery copies
        // only what was there before.
        if (!s.present() || (st != SlotState::InSync && st != SlotState::Recovering)) continue;
        ArrayIo::Child& c = io.children[next_child++];
        c.write = true;
        c.member = addr[k].disk;
        c.array_sector = sector;
        c.dev_sector = addr[k].sector;
        c.sectors = n;
        c.segment = segment;
        c.offset = (geo_.data_offset + addr[k].sector) * kSectorBytes;
        c.length = n * uint32_t(kSectorBytes);
        c.buffer = buf;
        ++io.outstanding;
        s.counters.account_pending(backend.now_ns());
        s.counters.nr_pending.fetch_add(1, std::memory_order_relaxed);
        backend.queue(c);
      }
    } else {
      ArrayIo::Child& c = io.children[next_child++];
      c.write = false;
      c.array_sector = sector;
      c.sectors = n;
      c.segment = segment;
      c.length = n * uint32_t(kSectorBytes);
      c.buffer = buf;
      c.tried = 0;
      ++io.outstanding;
      issue_read(c);
    }
    sector += n;
    left -= n;
    buf += uint64_t(n) * kSectorBytes;
    ++segment;
  }
  finish_child(io);
}

void Array::issue_read(ArrayIo::Child& c) {
  ArrayIo& io = *c.parent;
  layout::DevAddress addr[kMaxCopies];
  int copies = geo_.map(c.array_sector, addr);
  balance::MemberSnapshot snap[kMaxCopies];
  for (int k = 0; k < copies; ++k) {
    const Slot& s = *slots_[size_t(addr[k].disk)];
    SlotState st = s.st();
    balance::MemberSnapshot& m = snap[k];
    m.slot = addr[k].disk;
    m.sector = addr[k].sector;
    m.readable = s.present() && !(c.tried & (1u << addr[k].disk)) &&
                 (st == SlotState::InSync ||
                  (st == SlotState::Recovering && addr[k].sector + c.sectors <= s.recovery_offset.load()));
    m.write_mostly = s.write_mostly.load(std::memory_order_relaxed);
    m.rotational = s.rotational();
    m.nr_pending = s.counters.nr_pending.load(std::memory_order_relaxed);
    m.head_position = s.counters.head_position.load(std::memory_order_relaxed);
    m.next_seq_sect = s.next_seq_sect.load(std::memory_order_relaxed);
    m.seq_start = s.seq_start.load(std::memory_order_relaxed);
    m.io_opt_sectors = s.io_opt() / uint32_t(kSectorBytes);
  }
  balance::ReadRequest req;
  req.sector = c.array_sector;
  req.sectors = c.sectors;
  req.job_id = io.job_id;
  // md reads the first copy while a resync is pending, so readers agree.
  // That is the array's rule, not the policy's: the btrfs policies know no
  // md resync, so md's read_balance stands in for them until the resync.
  req.resync_overlap = needs_resync();
  const balance::PolicyId pol = req.resync_overlap ? balance::PolicyId::MdLegacy : policy();
  balance::Choice choice = balance::choose(pol, req, {snap, size_t(copies)}, policy_state_, tunables());
  if (choice.index < 0) {
    io.error = -EIO;
    finish_child(io);
    return;
  }
  const int slot = snap[choice.index].slot;
  Slot& s = *slots_[size_t(slot)];
  // md's update_read_sectors: the chosen mirror's sequential-run state.
  const uint64_t dev_sector = snap[choice.index].sector;
  if (s.next_seq_sect.load(std::memory_order_relaxed) != dev_sector)
    s.seq_start.store(dev_sector, std::memory_order_relaxed);
  s.next_seq_sect.store(dev_sector + c.sectors, std::memory_order_relaxed);
  s.counters.account_pending(io.backend->now_ns());
  s.counters.nr_pending.fetch_add(1, std::memory_order_relaxed);
  c.tried |= 1u << slot;
  c.member = slot;
  c.dev_sector = dev_sector;
  c.offset = (geo_.data_offset + dev_sector) * kSectorBytes;
  io.backend->queue(c);
}

void Array::child_done(io::MemberIo& mio, int result) {
  auto& c = static_cast<ArrayIo::Child&>(mio);
  ArrayIo& io = *c.parent;
  Array& self = *static_cast<Array*>(c.owner);
  Slot& s = *self.slots_[size_t(c.member)];
  s.counters.account_pending(io.backend->now_ns());
  s.counters.nr_pending.fetch_sub(1, std::memory_order_relaxed);
  s.counters.head_position.store(c.dev_sector + c.sectors, std::memory_order_relaxed);
  const bool ok = result == int(c.length);
  if (ok) {
    if (c.write) {
      s.counters.writes.fetch_add(1, std::memory_order_relaxed);
      s.counters.write_bytes.fetch_add(c.length, std::memory_order_relaxed);
      ++io.segment_ok[c.segment];
    } else {
      s.counters.reads.fetch_add(1, std::memory_order_relaxed);
      s.counters.read_bytes.fetch_add(c.length, std::memory_order_relaxed);
    }
    self.finish_child(io);
    return;
  }
  self.on_member_error(c.member, c.write, result, c.dev_sector);
  if (!c.write) {
    self.issue_read(c);  // another copy, or -EIO when none is left
    return;
  }
  // A copy that missed the write but could not be failed (it holds the last
  // copy of other data) would serve stale bytes later: the write fails.
  if (s.st() != SlotState::Faulty) io.error = -EIO;
  self.finish_child(io);
}

void Array::finish_child(ArrayIo& io) {
  if (--io.outstanding > 0) return;
  if (io.write && io.error == 0) {
    // A write succeeds when every segment reached at least one copy.
    const size_t segments = io.length ? io.segment_ok.size() : 0;
    uint64_t sector = io.offset / kSectorBytes, left = io.length / kSectorBytes;
    for (size_t seg = 0; seg < segments && left > 0; ++seg) {
      uint64_t n = std::min<uint64_t>(left, geo_.sectors_to_boundary(sector));
      if (io.segment_ok[seg] == 0) io.error = -EIO;
      sector += n;
      left -= n;
    }
  }
  if (io.write) leave_barrier(io);
  io.done(io, io.error ? io.error : int(io.length));
}

// ---- blocking helpers for the CLI ----

namespace {
struct SyncState {
  int pending = 0;
  int error = 0;
  uint8_t* user = nullptr;  // reads land here
  uint64_t base = 0;        // array offset of user[0]
  std::vector<ArrayIo*> free;
};
void sync_done(ArrayIo& io, int result) {
  auto* st = static_cast<SyncState*>(io.owner);
  --st->pending;
  if (result < 0 && !st->error) st->error = result;
  if (result >= 0 && !io.write) std::memcpy(st->user + (io.offset - st->base), io.buffer, io.length);
  st->free.push_back(&io);
}
}  // namespace

static bool run_aligned(Array& arr, bool write, uint64_t offset, uint8_t* buf, size_t len,
                        std::string* error) {
  constexpr uint32_t kPiece = 1 << 20;
  constexpr int kDepth = 8;
  std::string note;
  if (len == 0) return true;
  auto backend = arr.make_backend(kDepth, &note);
  // Up to kDepth pieces in flight, no more slots or bounce bytes than the
  // transfer needs (the CLI makes many 4 KiB calls); the bounce buffers give
  // O_DIRECT alignment.
  const uint32_t piece = uint32_t(std::min<size_t>(kPiece, len));
  const size_t depth = std::min<size_t>(kDepth, (len + piece - 1) / piece);
  std::vector<ArrayIo> ios(depth);
  io::AlignedBuffer bounce(size_t(piece) * depth);
  SyncState st;
  st.user = buf;
  st.base = offset;
  for (size_t i = 0; i < depth; ++i) {
    arr.prepare(ios[i], piece);
    ios[i].buffer = bounce.data() + i * piece;
    st.free.push_back(&ios[i]);
  }
  size_t pos = 0;
  while (pos < len || st.pending > 0) {
    while (pos < len && !st.free.empty()) {
      ArrayIo& io = *st.free.back();
      st.free.pop_back();
      uint32_t n = uint32_t(std::min<size_t>(piece, len - pos));
      uint8_t* b = static_cast<uint8_t*>(io.buffer);
      if (write) std::memcpy(b, buf + pos, n);
      io.write = write;
      io.offset = offset + pos;
      io.length = n;
      io.buffer = b;
      io.done = sync_done;
      io.owner = &st;
      ++st.pending;
      arr.submit(io, *backend);
      pos += n;
    }
    if (st.error) break;
    backend->reap(1);
  }
  while (st.pending > 0) backend->reap(1);
  if (st.error) {
    *error = std::string(write ? "write" : "read") + " failed: " + std::strerror(-st.error) +
             " (no working copy of the data)";
    return false;
  }
  return true;
}

bool Array::read(uint64_t offset, void* buf, size_t len, std::string* error) {
  if (offset > size_bytes() || len > size_bytes() - offset) {  // no wrap-around
    *error = "read of " + std::to_string(len) + " bytes at " + std::to_string(offset) +
             " runs past the array end (" + std::to_string(size_bytes()) + " bytes)";
    return false;
  }
  const uint64_t start = offset / 4096 * 4096, end = (offset + len + 4095) / 4096 * 4096;
  std::vector<uint8_t> tmp(end - start);
  if (!run_aligned(*this, false, start, tmp.data(), tmp.size(), error)) return false;
  std::memcpy(buf, tmp.data() + (offset - start), len);
  return true;
}

bool Array::write(uint64_t offset, const void* buf, size_t len, std::string* error) {
  if (offset > size_bytes() || len > size_bytes() - offset) {  // no wrap-around
    *error = "write of " + std::to_string(len) + " bytes at " + std::to_string(offset) +
             " runs past the array end (" + std::to_string(size_bytes()) + " bytes)";
    return false;
  }
  const uint64_t start = offset / 4096 * 4096, end = (offset + len + 4095) / 4096 * 4096;
  std::vector<uint8_t> tmp(end - start);
  // Unaligned edges: read the partial 4 KiB blocks first, then patch.
  if (start != offset || end != offset + len) {
    if (!run_aligned(*this, false, start, tmp.data(), 4096, error)) return false;
    if (end - start > 4096 &&
        !run_aligned(*this, false, end - 4096, tmp.data() + tmp.size() - 4096, 4096, error))
      return false;
  }
  std::memcpy(tmp.data() + (offset - start), buf, len);
  return run_aligned(*this, true, start, tmp.data(), tmp.size(), error);
}

}  // namespace rs::raid
