// One batch of stripe heads on one I/O context, as md's handle_stripe
// does for each head: plan (pre-reads by handle_stripe_dirtying's count,
// or every other block for a degraded read), read, compute (reconstruct,
// then parity: rmw P ^= D_old ^ D_new, rcw P = XOR of the data), write.
// Pages of adjacent heads are adjacent in the cache's arena
// (stripe_cache.hpp), and a full-stripe write's data goes out straight
// from its bio, so a run of heads is one member I/O per member.
#include <algorithm>
#include <cerrno>
#include <cstring>

#include "raid/array_port.hpp"
#include "raid5/parity.hpp"
#include "raid5/raid5_internal.hpp"

namespace rs::raid5 {

namespace {
constexpr uint32_t kMaxRunPages = 256;  // 1 MiB per member I/O
}

// A batch is reused: its vectors keep their room from one pass to the next.
void Raid5Personality::batch_start(Batch& b) {
  std::sort(b.heads.begin(), b.heads.end(),
            [](const StripeHead* x, const StripeHead* y) { return x->column < y->column; });
  const size_t n = b.heads.size(), disks = size_t(geo_.raid_disks);
  b.failed.assign(disks, 0);
  b.unreadable.assign(disks, 0);
  b.error.assign(n, 0);
  b.method.assign(n, WriteMethod::rcw);
  b.pd.assign(n, -1);
  b.qd.assign(n, -1);
  b.recover.assign(n, 0);
  b.io.assign(n * disks, 0);
  b.buf.assign(n * disks, nullptr);
  if (b.children.size() < n * disks) b.children.resize(n * disks);
  b.scratch_written.resize(disks);
  b.scratch_readable.resize(disks);
  b.replan = false;
  batch_plan(b);
  batch_issue(b, false);
}

// Which pages each head must read first; a head that cannot be served
// (two members short) is marked failed.
void Raid5Personality::batch_plan(Batch& b) {
  const raid::MemberTable& table = core_.table(*b.parent);
  const int disks = geo_.raid_disks;
  std::fill(b.io.begin(), b.io.end(), 0);
  b.reconstructs = false;
  for (size_t hi = 0; hi < b.heads.size(); ++hi) {
    StripeHead& h = *b.heads[hi];
    uint8_t* need = &b.io[hi * size_t(disks)];
    const uint64_t dev = h.column * kPageSectors;
    const StripeGeometry::Parity pq = geo_.parity(dev / geo_.chunk_sectors);
    b.pd[hi] = pq.pd;
    b.qd[hi] = pq.qd;
    if (b.error[hi]) continue;
    if (geo_.level == 6) {
      plan_head6(b, hi, table);
      continue;
    }
    auto& written = b.scratch_written;
    auto& can_read = b.scratch_readable;
    bool any_write = false;
    for (int i = 0; i < disks; ++i) {
      written[size_t(i)] = h.writing[size_t(i)] != nullptr;
      can_read[size_t(i)] = !b.unreadable[size_t(i)] && readable(table, b.failed, i, dev, kPageSectors);
      any_write = any_write || written[size_t(i)];
    }
    for (const HeadRead& r : h.reading) {  // a degraded read: every other block
      if (h.uptodate[size_t(r.member)]) continue;
      b.reconstructs = true;
      for (int i = 0; i < disks; ++i) {
        if (i == r.member || h.uptodate[size_t(i)]) continue;
        if (!can_read[size_t(i)]) b.error[hi] = 1;
        need[i] = 1;
      }
    }
    if (any_write && !b.error[hi]) {
      const WriteChoice c = choose_write(b.pd[hi], written, can_read, h.uptodate, column_unsynced(h.column));
      if (!c.possible) {
        b.error[hi] = 1;
        continue;
      }
      b.method[hi] = c.method;
      for (int i = 0; i < disks; ++i) {
        if (h.uptodate[size_t(i)]) continue;
        const bool w = written[size_t(i)];
        if (c.method == WriteMethod::rmw ? (w || i == b.pd[hi]) : (!w && i != b.pd[hi])) need[i] = 1;
      }
    }
  }
  // Survivor reads land in the cache's pages: registered, they go as
  // READ_FIXED (no page pinning per read; the job's own buffers already are).
  if (b.reconstructs)
    cache_.register_pages(b.parent->port->backend(), uint32_t(cache_size_.load(std::memory_order_relaxed)));
}

// The flagged pages of b.io, one member I/O per run of heads whose columns
// and buffers are both consecutive.
void Raid5Personality::batch_issue(Batch& b, bool write) {
  const int disks = geo_.raid_disks;
  size_t next_child = 0;
  uint64_t prereads = 0;
  b.writing = write;
  b.outstanding = 1;  // held until every I/O is queued
  for (int m = 0; m < disks; ++m) {
    size_t hi = 0;
    while (hi < b.heads.size()) {
      if (!b.io[hi * size_t(disks) + size_t(m)]) {
        ++hi;
        continue;
      }
      const size_t first = hi;
      const StripeHead* start = b.heads[hi];
      uint8_t* const start_buf = write ? b.buf[hi * size_t(disks) + size_t(m)] : cache_.page(m, start->slot);
      uint32_t count = 0;
      for (; hi < b.heads.size() && b.io[hi * size_t(disks) + size_t(m)] && count < kMaxRunPages;
           ++hi, ++count) {
        const StripeHead* h = b.heads[hi];
        const uint8_t* buf = write ? b.buf[hi * size_t(disks) + size_t(m)] : cache_.page(m, h->slot);
        if (count && (h->column != start->column + count || buf != start_buf + size_t(count) * kPageBytes))
          break;
        if (!write && std::any_of(h->writing.begin(), h->writing.end(), [](uint8_t* p) { return p; }))
          ++prereads;
      }
      Child& c = b.children[next_child++];
      c.parent = b.parent;
      c.self = this;
      c.batch = &b;
      c.done = &Raid5Personality::batch_child_done;
      c.write = write;
      c.dev_sector = start->column * kPageSectors;
      c.sectors = count * kPageSectors;
      c.array_sector = 0;
      c.buffer = start_buf;
      c.first = uint32_t(first);
      c.count = count;
      ++b.outstanding;
      core_.issue(*b.parent, c, m);
    }
  }
  if (prereads) counters_.prereads.fetch_add(prereads, std::memory_order_relaxed);
  // Drop the hold: the phase may already be over (nothing to do).
  Child hold;
  hold.batch = &b;
  hold.self = this;
  hold.member = -1;
  batch_child_done(hold, 0);
}

void Raid5Personality::batch_child_done(io::MemberIo& mio, int result) {
  auto& c = static_cast<Child&>(mio);
  Batch& b = *c.batch;
  Raid5Personality& self = *c.self;
  if (c.member >= 0) {
    const bool ok = self.core_.child_finished(c, result);
    if (ok && !c.write) {
      for (uint32_t k = 0; k < c.count; ++k) b.heads[c.first + k]->uptodate[size_t(c.member)] = 1;
    } else if (!c.write) {
      // A kept member is still written (its block is rewritten with it or
      // later), only not read again here: plan again without it; the pages
      // read so far stay.
      const bool failed = self.core_.read_failed(*b.parent, c.member, c.dev_sector, c.sectors, result);
      (failed ? b.failed : b.unreadable)[size_t(c.member)] = 1;
      b.replan = true;
    } else if (!ok) {
      const bool failed = self.core_.member_failed(*b.parent, c.member, true, result, c.dev_sector);
      b.failed[size_t(c.member)] = 1;
      if (!failed) {
        // Parity covers a missed write only once the member is recorded
        // failed; one that could not be failed would serve stale data.
        for (uint32_t k = 0; k < c.count; ++k) b.error[c.first + k] = 1;
      }
    }
  }
  if (--b.outstanding > 0) return;
  if (b.writing) {
    self.batch_finished(&b);
  } else if (b.replan) {
    b.replan = false;
    self.batch_plan(b);
    self.batch_issue(b, false);
  } else {
    self.batch_compute(b);
    // Before the writes are queued: once queued, the batch may end (and be
    // reused) before this returns.
    self.batch_prereads_over(b);
    self.batch_issue(b, true);
  }
}

// Reconstructs what degraded reads want, drains the new data into the
// pages, computes parity, and flags the pages to write.
void Raid5Personality::batch_compute(Batch& b) {
  const raid::MemberTable& table = core_.table(*b.parent);
  const int disks = geo_.raid_disks;
  // Per thread, kept between calls: no allocation per batch.
  static thread_local std::vector<uint8_t*> vec;
  vec.assign(size_t(disks) * 2 + 1, nullptr);
  alignas(64) static thread_local uint8_t scratch[kPageBytes];
  std::fill(b.io.begin(), b.io.end(), 0);
  for (size_t hi = 0; hi < b.heads.size(); ++hi) {
    if (b.error[hi]) continue;
    if (geo_.level == 6) {
      compute_head6(b, hi);
      continue;
    }
    StripeHead& h = *b.heads[hi];
    const int pd = b.pd[hi];
    auto page = [&](int m) { return cache_.page(m, h.slot); };
    for (const HeadRead& r : h.reading) {
      if (!h.uptodate[size_t(r.member)]) {
        int n = 0;
        for (int i = 0; i < disks; ++i)
          if (i != r.member) vec[size_t(n++)] = page(i);
        xor_into(page(r.member), vec.data(), n, kPageBytes);
        h.uptodate[size_t(r.member)] = 1;
        counters_.recovered_pages.fetch_add(1, std::memory_order_relaxed);
      }
      std::memcpy(r.dest, page(r.member), kPageBytes);
    }
    bool any_write = false;
    for (int i = 0; i < disks; ++i) any_write = any_write || h.writing[size_t(i)];
    if (!any_write) continue;
    int n = 0;
    if (b.method[hi] == WriteMethod::rmw) {  // P' = P ^ D_old ^ D_new over the blocks written
      vec[size_t(n++)] = page(pd);
      for (int i = 0; i < disks; ++i)
        if (h.writing[size_t(i)]) {
          vec[size_t(n++)] = page(i);
          vec[size_t(n++)] = h.writing[size_t(i)];
        }
      xor_into(scratch, vec.data(), n, kPageBytes);
      std::memcpy(page(pd), scratch, kPageBytes);
    } else {  // P' = XOR of every data block, new where written
      for (int i = 0; i < disks; ++i)
        if (i != pd) vec[size_t(n++)] = h.writing[size_t(i)] ? h.writing[size_t(i)] : page(i);
      xor_into(page(pd), vec.data(), n, kPageBytes);
    }
    h.uptodate[size_t(pd)] = 1;
    // A full-stripe write goes out straight from the bio, and its pages are
    // stale from then on; a partial one drains the new data into the pages
    // (md's biodrain), which keeps the head whole for the write that
    // completes the stripe (no second pre-read).
    const bool direct = b.method[hi] == WriteMethod::full_stripe;
    uint8_t* out = &b.io[hi * size_t(disks)];
    uint8_t** from = &b.buf[hi * size_t(disks)];
    for (int i = 0; i < disks; ++i) {
      uint8_t* data = h.writing[size_t(i)];
      if (data && !direct) std::memcpy(page(i), data, kPageBytes);
      if (data) h.uptodate[size_t(i)] = !direct;
      out[i] = (data || i == pd) && writable(table, b.failed, i);
      from[i] = i == pd || !direct ? page(i) : data;
    }
    auto& counter = b.method[hi] == WriteMethod::rmw   ? counters_.rmw
                    : b.method[hi] == WriteMethod::rcw ? counters_.rcw
                                                       : counters_.full_stripe;
    counter.fetch_add(1, std::memory_order_relaxed);
  }
}

}  // namespace rs::raid5
