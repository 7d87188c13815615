// Sequential write streams, one per submitter (an array port): which
// stripe each stream is still filling, so that a partial stripe it will
// complete with its next writes is not pre-read first.
//
// Why: a sequential writer fills a stripe one write at a time. Its first
// chunk alone would need the stripe's other blocks read back (rcw) before
// the parity can be written; once the next chunks arrive the stripe is a
// full-stripe write that needs no read at all. md gets this from the block
// layer's plugging: a submitter's queued writes reach the stripe cache
// together, before the plug is released. Our submitters reach the cache one
// write at a time, as their earlier writes complete, so an unplug could
// release the stream's leading stripe between two of its chunks and cost
// two pre-reads per page for nothing. A stripe is held only while its
// stream can still reach it: the stream's last write ended inside it and
// the stream has other writes in flight (whose completions let it go on);
// the moment the stream breaks, stops or has nothing else in flight, the
// stripe is released as before. Pure bookkeeping: its owner serialises
// calls.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

namespace rs::raid5 {

class WriteStreams {
 public:
  // What a write was counted as: give it back to write_done().
  struct Ticket {
    const void* submitter = nullptr;  // null: not counted (no stream slot, or empty)
    uint64_t last_stripe = 0;         // the stripe its last sector is in
  };

  // `stripe_sectors`: an array stripe's data sectors (chunk x data disks).
  explicit WriteStreams(uint64_t stripe_sectors) : stripe_sectors_(stripe_sectors) {}

  // A write of array sectors [begin, end) from `submitter` starts.
  Ticket write_started(const void* submitter, uint64_t begin, uint64_t end);
  // That write completed (or failed).
  void write_done(const Ticket& ticket);
  // Whether a write of `submitter` now waiting on array stripe `stripe`
  // should stay off the pre-read path until the stream writes array sector
  // `needed` (the first block that stripe still lacks): the stream
  // continued itself at least once, its last write ended inside `stripe`,
  // and `needed` is within what its writes in flight elsewhere (ending in
  // another stripe) let it send next: one more write of its last size for
  // each of them, as a writer at a steady queue depth does when they
  // complete. A stream of writes smaller than a chunk comes back to a page
  // column only a chunk later: with its queue depth spent inside the
  // stripe, nothing it has in flight elsewhere brings it there, so the
  // stripe goes.
  bool holds(const void* submitter, uint64_t stripe, uint64_t needed) const;

 private:
  static constexpr uint64_t kNone = UINT64_MAX;
  // At most this many submitters are followed; a write from another,
  // while every slot has writes in flight, is simply not counted.
  static constexpr size_t kMaxStreams = 64;
  struct Stream {
    const void* submitter = nullptr;
    uint64_t next = kNone;      // where a write continuing it starts (its tail: the stripe `next` is inside)
    uint64_t last_sectors = 0;  // its last write's length
    unsigned in_flight = 0;     // its writes not yet done
    bool continued = false;     // its last write started where the one before ended
    // Its writes in flight by the stripe their last sector is in (a
    // count per stripe; few: at most its queue depth).
    std::vector<std::pair<uint64_t, unsigned>> ending_in;
    unsigned ending_in_stripe(uint64_t stripe) const;
  };
  Stream* find(const void* submitter);
  const Stream* find(const void* submitter) const;
  Stream* slot_for(const void* submitter);

  uint64_t stripe_sectors_;
  std::vector<Stream> streams_;
};

}  // namespace rs::raid5
