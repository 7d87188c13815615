// md's stripe cache: stripe heads of one 4 KiB page per member, found by
// their page column (the member sector / 8, md's sh->sector), at most
// stripe_cache_size of them. A head with work is active; one without goes
// to the inactive list (least recently used first) keeping its pages, so a
// later write to the same column finds the blocks it already holds
// (md's R5_UPTODATE) and reads nothing for them. A new column takes a head
// that was never used while fewer than stripe_cache_size exist, else the
// least recently used inactive one; none left means the caller waits (md's
// get_active_stripe sleeping on wait_for_stripe).
//
// Pages live in one arena per member, indexed by the head's slot, and a
// new head prefers the slot after its left neighbour's: the pages of a
// sequential run of columns are then adjacent in memory, so one member I/O
// carries a whole run (the block layer's merging, which md relies on).
//
// Bookkeeping only, not thread-safe: its owner (raid5d.cpp) holds a lock.
#pragma once
#include <cstdint>
#include <list>
#include <memory>
#include <set>
#include <unordered_map>
#include <vector>

#include "base/result.hpp"

namespace rs::raid {
struct ArrayIo;
}
namespace rs::io {
class Backend;
}

namespace rs::raid5 {

inline constexpr uint32_t kPageBytes = 4096;
inline constexpr uint32_t kPageSectors = kPageBytes / 512;
inline constexpr int kMaxStripeCache = 32768;  // md's limit for stripe_cache_size

// A degraded read waiting on a head: member `member`'s block, copied to `dest`.
struct HeadRead {
  int member = -1;
  uint8_t* dest = nullptr;
};

struct StripeHead {
  uint64_t column = 0;    // member sector / kPageSectors
  uint32_t slot = 0;      // its pages: StripeCache::page(member, slot)
  bool active = false;    // has pending work or a round in progress (not on the inactive list)
  bool in_round = false;  // a batch owns its pages (raid5d handed it out)
  uint64_t generation = 0;
  uint64_t touch_pass = 0;        // the attach pass that last gave it work
  std::vector<uint8_t> uptodate;  // per member: the page holds that member's current block
  // Attached since the last round started (under the owner's lock):
  std::vector<uint8_t*> towrite;  // per member: where the new block comes from; null: not written
  std::vector<HeadRead> toread;
  std::vector<raid::ArrayIo*> bios;  // bios the pending work belongs to (each once)
  // The round a batch is running (the batch's context only):
  std::vector<uint8_t*> writing;
  std::vector<HeadRead> reading;
  std::vector<raid::ArrayIo*> round_bios;
  std::list<StripeHead*>::iterator lru;  // on the inactive list when !active
  bool has_pending() const { return !bios.empty(); }
};

class StripeCache {
 public:
  // Reserve() must succeed before any other call.
  explicit StripeCache(int disks) : disks_(disks) {}
  ~StripeCache();
  // Reserves the page arena (address space only: pages are touched as
  // heads use them). Errc::out_of_memory when the mapping is refused.
  Status reserve();
  StripeCache(const StripeCache&) = delete;
  StripeCache& operator=(const StripeCache&) = delete;

  uint8_t* page(int member, uint32_t slot) const {
    return arena_ + (size_t(member) * kMaxStripeCache + slot) * kPageBytes;
  }
  // Registers each member's pages of slots [0, slots) with `backend`
  // (io_uring's registered buffers: a member read into them skips the
  // kernel's pinning of the page on every request), replacing a smaller
  // registration of them; an address lookup per member when done already.
  // The backend keeps the arena mapped while it holds them. Touches only
  // the arena, which never moves: callable without the owner's lock, on the
  // backend's thread. Pages past `slots`, or ones the backend refuses, are
  // read the usual way.
  void register_pages(io::Backend& backend, uint32_t slots) const;
  // The active or cached head of `column`, or a free one made its head
  // (made active); null when every head is active (the caller waits).
  StripeHead* get(uint64_t column);
  StripeHead* find(uint64_t column) const;
  // The head has no work left: inactive, pages kept (dropped if the cache
  // is over its size).
  void release(StripeHead* head);
  // stripe_cache_size; shrinking drops inactive heads at once, active ones
  // when they are released.
  void set_capacity(int heads);
  int capacity() const { return capacity_; }
  // Cached pages can no longer be trusted (a maintenance piece wrote the
  // members behind the cache): inactive heads forget them.
  void invalidate() { ++generation_; }
  // Columns whose heads were taken over for another column or dropped,
  // since the owner last cleared this: their stripe state goes with them
  // (md's init_stripe), while a head that merely went inactive keeps it.
  std::vector<uint64_t>& evicted() { return evicted_; }

  size_t active() const { return size_t(total_) - inactive_.size(); }
  size_t inactive() const { return inactive_.size(); }
  // md's inactive_list: cached heads plus those never used.
  size_t free_heads() const { return size_t(std::max(0, capacity_ - total_)) + inactive_.size(); }

 private:
  StripeHead* take_slot(uint32_t slot);
  bool slot_free(uint32_t slot) const;
  void claim_free(uint32_t slot);
  void drop(StripeHead* head);
  void reset(StripeHead* head, uint64_t column);

  int disks_;
  uint8_t* arena_ = nullptr;
  // Unmaps the arena when the last of the cache and the backends holding
  // its pages registered (register_pages) lets go.
  std::shared_ptr<const void> arena_mapping_;
  int capacity_ = 256;
  int total_ = 0;  // heads that exist (active + inactive)
  uint64_t generation_ = 0;
  std::vector<std::unique_ptr<StripeHead>> heads_;  // by slot; null: free
  std::set<uint32_t> free_below_;                   // free slots below next_fresh_
  uint32_t next_fresh_ = 0;                         // slots from here on were never used
  std::unordered_map<uint64_t, StripeHead*> by_column_;
  std::list<StripeHead*> inactive_;  // least recently used first
  std::vector<uint64_t> evicted_;
};

}  // namespace rs::raid5
