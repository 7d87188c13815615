#include "raid5/stripe_cache.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "io/backend.hpp"

namespace rs::raid5 {

// The arena is reserved, not committed: only pages of slots in use are
// ever touched (stripe_cache_size 256 of 4 members: 4 MiB).
Status StripeCache::reserve() {
  const size_t bytes = size_t(disks_) * kMaxStripeCache * kPageBytes;
  void* p =
      ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    return make_error(Errc::out_of_memory, "the stripe cache cannot reserve " + std::to_string(bytes >> 20) +
                                               " MiB of address space: " + std::strerror(errno));
  arena_ = static_cast<uint8_t*>(p);
  arena_mapping_ =
      std::shared_ptr<const void>(p, [bytes](const void* q) { ::munmap(const_cast<void*>(q), bytes); });
  heads_.resize(kMaxStripeCache);
  return {};
}

StripeCache::~StripeCache() = default;

void StripeCache::register_pages(io::Backend& backend, uint32_t slots) const {
  const size_t bytes = size_t(slots) * kPageBytes;
  for (int m = 0; m < disks_; ++m) {
    uint8_t* base = page(m, 0);
    if (backend.registered_buffer(base, bytes) >= 0) continue;
    // Registered for a smaller cache: that one goes only once the larger
    // one is in (a refusal leaves the smaller in use). The kernel keeps
    // the old mapping for reads in flight.
    const int smaller = backend.registered_buffer(base, kPageBytes);
    if (backend.register_owned_buffer(base, bytes, arena_mapping_) < 0) return;  // refused, or no room left
    if (smaller >= 0) backend.unregister_buffer(smaller);
  }
}

StripeHead* StripeCache::find(uint64_t column) const {
  auto it = by_column_.find(column);
  return it == by_column_.end() ? nullptr : it->second;
}

bool StripeCache::slot_free(uint32_t slot) const {
  return slot >= next_fresh_ ? slot == next_fresh_ : free_below_.count(slot) > 0;
}

void StripeCache::claim_free(uint32_t slot) {
  if (slot == next_fresh_)
    ++next_fresh_;
  else
    free_below_.erase(slot);
}

void StripeCache::reset(StripeHead* h, uint64_t column) {
  if (h->active || h->in_round) return;  // never: only inactive or new heads are reset
  if (by_column_.erase(h->column)) evicted_.push_back(h->column);
  h->column = column;
  h->generation = generation_;
  std::fill(h->uptodate.begin(), h->uptodate.end(), 0);
  by_column_[column] = h;
}

// A slot's head for a new column: the free slot made a head, or the
// inactive head there taken over.
StripeHead* StripeCache::take_slot(uint32_t slot) {
  StripeHead* h = heads_[slot].get();
  if (!h) {
    claim_free(slot);
    heads_[slot] = std::make_unique<StripeHead>();
    h = heads_[slot].get();
    h->slot = slot;
    h->uptodate.assign(size_t(disks_), 0);
    h->towrite.assign(size_t(disks_), nullptr);
    h->writing.assign(size_t(disks_), nullptr);
    h->column = ~uint64_t{0};
    ++total_;
  } else {
    inactive_.erase(h->lru);
  }
  return h;
}

StripeHead* StripeCache::get(uint64_t column) {
  if (StripeHead* h = find(column)) {
    if (!h->active) {
      inactive_.erase(h->lru);
      h->active = true;
      if (h->generation != generation_) {
        std::fill(h->uptodate.begin(), h->uptodate.end(), 0);
        h->generation = generation_;
      }
    }
    return h;
  }
  StripeHead* h = nullptr;
  // Next to the left neighbour's pages, when that slot can be had.
  if (StripeHead* left = column ? find(column - 1) : nullptr;
      left && left->slot + 1 < uint32_t(kMaxStripeCache)) {
    const uint32_t want = left->slot + 1;
    StripeHead* there = heads_[want].get();
    if (there ? !there->active && !there->in_round : total_ < capacity_ && slot_free(want))
      h = take_slot(want);
  }
  if (!h && total_ < capacity_) h = take_slot(free_below_.empty() ? next_fresh_ : *free_below_.begin());
  if (!h && !inactive_.empty()) h = take_slot(inactive_.front()->slot);
  if (!h) return nullptr;
  reset(h, column);
  h->active = true;
  return h;
}

void StripeCache::drop(StripeHead* h) {
  if (by_column_.erase(h->column)) evicted_.push_back(h->column);
  const uint32_t slot = h->slot;
  heads_[slot].reset();
  --total_;
  if (slot + 1 == next_fresh_)
    --next_fresh_;
  else
    free_below_.insert(slot);
  // Keep next_fresh_ minimal so slot_free() stays exact.
  while (next_fresh_ > 0 && free_below_.count(next_fresh_ - 1)) free_below_.erase(--next_fresh_);
}

void StripeCache::release(StripeHead* h) {
  h->active = false;
  if (total_ > capacity_) {
    drop(h);
    return;
  }
  h->lru = inactive_.insert(inactive_.end(), h);
}

void StripeCache::set_capacity(int heads) {
  capacity_ = std::clamp(heads, 1, kMaxStripeCache);
  while (total_ > capacity_ && !inactive_.empty()) {
    StripeHead* h = inactive_.front();
    inactive_.pop_front();
    drop(h);
  }
}

}  // namespace rs::raid5
