// The write-intent bitmap as a stage of the array front (md-bitmap.c's
// job): before a write reaches any member, the bits of the bitmap chunks it
// touches are set and their page is durable on every member; once a chunk
// has had no writes for daemon_sleep its bit is cleared again; after an
// unclean stop only the chunks whose bits are set are resynced.
//
// This class is the bitmap's state: the on-disk image (bitmap superblock and
// bits), a write counter and last-write time per chunk, and per 4 KiB page
// whether it is dirty, being written, durable, and who waits for it. It
// does no I/O itself: the front issues the page writes (on whichever I/O
// context needs them: a write's port, the daemon's) and reports them back.
// Thread-safe: one mutex per page (md's bitmap counts lock); a write takes
// the locks of the pages its chunks live in, never two at once.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "io/member_device.hpp"
#include "ondisk/bitmap.hpp"

namespace rs::raid {

struct BitmapLayout {
  uint64_t offset_bytes = 0;  // from the member's start (superblock + bitmap_offset)
  uint64_t space_bytes = 0;   // from there to the data
  uint64_t sync_size = 0;     // sectors the bitmap covers (the personality's bitmap space)
  uint32_t chunk_bytes = 0;
};

class WriteIntentBitmap {
 public:
  // `image` holds the bitmap as on disk (superblock + bits), or is empty for
  // a new one (all clean).
  WriteIntentBitmap(const BitmapLayout& layout, const ondisk::BitmapSuper& sb, std::vector<uint8_t> image);

  const BitmapLayout& layout() const { return layout_; }
  uint64_t chunks() const { return chunks_; }
  uint64_t pages() const { return pages_.size(); }
  uint64_t chunk_sectors() const { return layout_.chunk_bytes / 512; }
  // Bytes of page `p` that hold bitmap (the last one is partial).
  uint32_t page_bytes(uint64_t p) const;
  uint64_t dirty_bits() const { return dirty_.load(std::memory_order_relaxed); }
  bool bit(uint64_t chunk) const;

  // ---- the write path ----
  // Counts a write over bitmap sectors [lo, hi) and sets the bits it needs.
  // Returns, for each page whose new content must be durable first, the
  // page and the content epoch to wait for (empty: the write may go now).
  std::vector<std::pair<uint64_t, uint64_t>> start_write(uint64_t lo, uint64_t hi);
  // The write is done: counters down, chunks idle from `now_ns`. A write
  // that failed where it may have reached some members only (`keep_bits`)
  // leaves its chunks needing a resync: their bits are never cleared while
  // the array runs (md's NEEDED after bitmap_endwrite of a failed write).
  void end_write(uint64_t lo, uint64_t hi, uint64_t now_ns, bool keep_bits = false);

  // ---- page writes ----
  uint64_t content_epoch(uint64_t p) const;
  // Runs `fn` (without locks held) once page `p` holds content epoch `e`
  // on disk; at once when it already does.
  void when_durable(uint64_t p, uint64_t e, std::function<void()> fn);
  // Takes page `p` for writing when it has undurable content and no write
  // in flight: copies it into `out` (with the bitmap superblock stamped
  // with `events`) and returns true; the caller writes it to every member
  // and then calls page_written(). False: nothing to do now (a write in
  // flight re-takes the page when it ends, via page_written()'s result).
  bool take_page(uint64_t p, uint64_t events, io::AlignedBuffer& out);
  // The write of page `p` finished on every member. Returns true when the
  // page changed meanwhile and must be taken again.
  bool page_written(uint64_t p);

  // ---- the daemon ----
  // Clears the bits of chunks idle since before `idle_before_ns`; returns
  // the pages that changed (to be written). The caller does not call it
  // while the array is degraded (md keeps the bits a missing member needs).
  std::vector<uint64_t> clear_idle(uint64_t idle_before_ns);
  // Whether clear_idle(idle_before_ns) would clear anything now.
  bool any_idle(uint64_t idle_before_ns) const;

  // ---- resync after an unclean stop ----
  // The bits as they are now: what a resync must cover.
  std::vector<uint8_t> snapshot_bits() const;

  // ---- settings and telemetry ----
  std::atomic<uint32_t> daemon_sleep_s{ondisk::kBitmapDefaultDaemonSleep};
  std::atomic<bool> io_opt_sizing{true};  // seed 001: size the last page write to io_opt
  void count_write(uint32_t bytes);
  std::map<uint32_t, uint64_t> write_sizes() const;  // bytes -> page writes so far
  ondisk::BitmapSuper super() const;
  // md's events_cleared: the array's events when bits were last cleared.
  // True when it changed: page 0 (the bitmap superblock) then has new
  // content to write.
  bool set_events_cleared(uint64_t e);
  // The array's event count changed: page 0 (the bitmap superblock, which
  // take_page() stamps with it) has new content. Returns its epoch.
  uint64_t touch_super();

 private:
  struct Waiter {
    uint64_t epoch;
    std::function<void()> fn;
  };
  struct Page {
    std::mutex m;
    uint64_t content = 0;  // bumped at every change
    uint64_t durable = 0;  // content epoch known to be on disk
    uint64_t writing = 0;  // content epoch of the write in flight (0: none)
    std::vector<Waiter> waiters;
  };
  Page& page_of_chunk(uint64_t chunk) { return *pages_[(ondisk::kBitmapSuperBytes + chunk / 8) / 4096]; }
  uint64_t page_index(uint64_t chunk) const { return (ondisk::kBitmapSuperBytes + chunk / 8) / 4096; }
  bool get_bit(uint64_t chunk) const {
    return image_[ondisk::kBitmapSuperBytes + chunk / 8] & (1u << (chunk % 8));
  }
  void put_bit(uint64_t chunk, bool v);
  // Chunks [first, last) whose bits live in page p.
  std::pair<uint64_t, uint64_t> page_chunks(uint64_t p) const;
  // A set bit with no write in flight since before `before_ns` (page lock held).
  bool idle(uint64_t chunk, uint64_t before_ns) const {
    return get_bit(chunk) && counters_[chunk] == 0 && idle_since_[chunk] != kNeedsResync &&
           idle_since_[chunk] <= before_ns;
  }
  // A chunk end_write(keep_bits) marked: idle_since_ holds this instead of
  // a time, and it is never idle.
  static constexpr uint64_t kNeedsResync = ~uint64_t{0};

  BitmapLayout layout_;
  uint64_t chunks_ = 0;
  std::vector<uint8_t> image_;        // superblock + bits, page-padded; each byte under its page's lock
  std::vector<uint32_t> counters_;    // per chunk, under its page's lock
  std::vector<uint64_t> idle_since_;  // per chunk, under its page's lock
  std::vector<std::unique_ptr<Page>> pages_;
  std::atomic<uint64_t> dirty_{0};  // bits set
  mutable std::mutex meta_;         // the superblock fields and the size counts
  ondisk::BitmapSuper sb_;
  std::map<uint32_t, uint64_t> sizes_;
};

}  // namespace rs::raid
