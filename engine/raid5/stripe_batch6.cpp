// RAID6's side of a batch (stripe_batch.cpp), as md's handle_stripe does at
// level 6: a head with every block it needs readable writes by md's rmw (P
// and Q updated from the old data) or rcw (P and Q from all data), chosen
// by the same count as RAID5; a head short of blocks (a degraded read, or a
// write neither method can read for) reads every readable block and
// recovers the missing ones, at most two, before it is served (md's
// compute_block_2 / handle_stripe_fill at level 6), then writes by rcw.
#include <algorithm>
#include <cstring>

#include "raid5/pq_syndrome.hpp"
#include "raid5/raid5_internal.hpp"

namespace rs::raid5 {

void Raid5Personality::recover_pq(uint64_t dev, uint8_t* const* blocks, int lost_a, int lost_b, size_t bytes,
                                  int want) const {
  const uint64_t stripe = dev / geo_.chunk_sectors;
  const int disks = geo_.raid_disks, dd = geo_.data_disks();
  const StripeGeometry::Parity pq = geo_.parity(stripe);
  // Per thread, kept between calls: no allocation per stripe.
  static thread_local std::vector<uint8_t*> order;
  order.assign(size_t(disks), nullptr);
  auto place = [&](int member) {
    return member == pq.pd ? dd : member == pq.qd ? dd + 1 : geo_.syndrome_slot(stripe, member);
  };
  for (int i = 0; i < disks; ++i) order[size_t(place(i))] = blocks[i];
  const int a = place(lost_a), b = lost_b < 0 ? -1 : place(lost_b);
  if (want >= 0)
    pq_recover_one(order.data(), dd, a, b, place(want), bytes);
  else
    pq_recover(order.data(), dd, a, b, bytes);
}

// The head's missing blocks (at most two: plan_head6) from the pages read.
// A round that writes recovers them all (rcw needs every data block); a
// read-only one computes only the blocks its reads return: md's
// compute_block_2 makes both targets, but the second lost block and a lost
// syndrome are not returned, and computing them was a second GF row, or a
// P or P+Q regeneration, per read. What is not computed stays not uptodate
// (a later read or write computes it from the cached pages).
void Raid5Personality::recover_head6(StripeHead& h, uint8_t* const* pages) {
  const int disks = geo_.raid_disks;
  int lost[2] = {-1, -1}, n = 0;
  for (int i = 0; i < disks; ++i)
    if (!h.uptodate[size_t(i)]) lost[n++] = i;  // plan_head6 allowed at most two
  if (n == 0) return;
  const uint64_t dev = h.column * kPageSectors;
  const bool any_write = std::any_of(h.writing.begin(), h.writing.end(), [](uint8_t* p) { return p; });
  bool wanted[2] = {false, false};
  for (const HeadRead& r : h.reading)
    for (int k = 0; k < n; ++k) wanted[k] = wanted[k] || r.member == lost[k];
  if (any_write || (wanted[0] && (n == 1 || wanted[1]))) {
    recover_pq(dev, pages, lost[0], lost[1], kPageBytes);
    for (int k = 0; k < n; ++k) h.uptodate[size_t(lost[k])] = 1;
    counters_.recovered_pages.fetch_add(uint64_t(n), std::memory_order_relaxed);
    return;
  }
  for (int k = 0; k < n; ++k) {
    if (!wanted[k]) continue;
    recover_pq(dev, pages, lost[0], lost[1], kPageBytes, lost[k]);
    h.uptodate[size_t(lost[k])] = 1;
    counters_.recovered_pages.fetch_add(1, std::memory_order_relaxed);
  }
}

void Raid5Personality::plan_head6(Batch& b, size_t hi, const raid::MemberTable& table) {
  StripeHead& h = *b.heads[hi];
  const int disks = geo_.raid_disks;
  uint8_t* need = &b.io[hi * size_t(disks)];
  const uint64_t dev = h.column * kPageSectors;
  auto& written = b.scratch_written;
  auto& can_read = b.scratch_readable;
  bool any_write = false, any_read = false;
  for (int i = 0; i < disks; ++i) {
    written[size_t(i)] = h.writing[size_t(i)] != nullptr;
    can_read[size_t(i)] = !b.unreadable[size_t(i)] && readable(table, b.failed, i, dev, kPageSectors);
    any_write = any_write || written[size_t(i)];
  }
  for (const HeadRead& r : h.reading) any_read = any_read || !h.uptodate[size_t(r.member)];
  b.recover[hi] = 0;
  b.method[hi] = WriteMethod::rcw;
  if (any_write) {
    const WriteChoice c =
        choose_write(b.pd[hi], written, can_read, h.uptodate, column_unsynced(h.column), b.qd[hi]);
    b.method[hi] = c.method;
    if (c.possible && !any_read) {
      for (int i = 0; i < disks; ++i) {
        if (h.uptodate[size_t(i)]) continue;
        const bool w = written[size_t(i)], parity = i == b.pd[hi] || i == b.qd[hi];
        if (c.method == WriteMethod::rmw ? (w || parity) : (!w && !parity)) need[i] = 1;
      }
      return;
    }
    if (!c.possible) b.method[hi] = WriteMethod::rcw;
  }
  if (!any_write && !any_read) return;
  // Every readable block; the rest (at most two) recovered from them.
  int missing = 0;
  for (int i = 0; i < disks; ++i) {
    if (h.uptodate[size_t(i)]) continue;
    if (can_read[size_t(i)])
      need[i] = 1;
    else
      ++missing;
  }
  if (missing > geo_.max_degraded()) b.error[hi] = 1;
  b.recover[hi] = 1;
  b.reconstructs = true;
}

void Raid5Personality::compute_head6(Batch& b, size_t hi) {
  const raid::MemberTable& table = core_.table(*b.parent);
  StripeHead& h = *b.heads[hi];
  const int disks = geo_.raid_disks, pd = b.pd[hi], qd = b.qd[hi];
  const uint64_t dev = h.column * kPageSectors, stripe = dev / geo_.chunk_sectors;
  static thread_local std::vector<uint8_t*> pages, data;
  pages.assign(size_t(disks), nullptr);
  for (int i = 0; i < disks; ++i) pages[size_t(i)] = cache_.page(i, h.slot);
  if (b.recover[hi]) recover_head6(h, pages.data());
  for (const HeadRead& r : h.reading) std::memcpy(r.dest, pages[size_t(r.member)], kPageBytes);
  bool any_write = false;
  for (int i = 0; i < disks; ++i) any_write = any_write || h.writing[size_t(i)];
  if (!any_write) return;
  if (b.method[hi] == WriteMethod::rmw) {  // md's RAID6 rmw: P ^= D_old ^ D_new, Q ^= g^k (D_old ^ D_new)
    for (int i = 0; i < disks; ++i)
      if (h.writing[size_t(i)])
        pq_update(geo_.syndrome_slot(stripe, i), pages[size_t(i)], h.writing[size_t(i)], pages[size_t(pd)],
                  pages[size_t(qd)], kPageBytes);
  } else {  // P and Q of every data block, new where written
    data.assign(size_t(geo_.data_disks()), nullptr);
    for (int i = 0; i < disks; ++i)
      if (i != pd && i != qd)
        data[size_t(geo_.syndrome_slot(stripe, i))] =
            h.writing[size_t(i)] ? h.writing[size_t(i)] : pages[size_t(i)];
    pq_generate(data.data(), geo_.data_disks(), pages[size_t(pd)], pages[size_t(qd)], kPageBytes);
  }
  h.uptodate[size_t(pd)] = h.uptodate[size_t(qd)] = 1;
  // As RAID5: a full-stripe write goes out straight from the bio; a partial
  // one drains the new data into the pages.
  const bool direct = b.method[hi] == WriteMethod::full_stripe;
  uint8_t* out = &b.io[hi * size_t(disks)];
  uint8_t** from = &b.buf[hi * size_t(disks)];
  for (int i = 0; i < disks; ++i) {
    uint8_t* d = h.writing[size_t(i)];
    const bool parity = i == pd || i == qd;
    if (d && !direct) std::memcpy(pages[size_t(i)], d, kPageBytes);
    if (d) h.uptodate[size_t(i)] = !direct;
    out[i] = (d || parity) && writable(table, b.failed, i);
    from[i] = parity || !direct ? pages[size_t(i)] : d;
  }
  auto& counter = b.method[hi] == WriteMethod::rmw   ? counters_.rmw
                  : b.method[hi] == WriteMethod::rcw ? counters_.rcw
                                                     : counters_.full_stripe;
  counter.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace rs::raid5
