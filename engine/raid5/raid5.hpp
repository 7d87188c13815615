// The RAID5 personality: md's four classic parity layouts (left/right,
// symmetric/asymmetric; address maths in layout/raid5.*), one parity chunk
// per stripe, parity through ISA-L.
//
// Writes go through md's stripe cache (stripe_cache.hpp): an array write is
// cut into 4 KiB blocks, each attached to the stripe head of its page
// column (waiting for a free head when stripe_cache_size heads are busy);
// raid5d (raid5d.cpp) takes heads off the handle/hold/delayed lists in
// the order stripe_queues.hpp gives (legacy or seed 004's
// get_priority_stripe) and hands them, in batches, to the I/O context of a
// bio attached to them, where stripe_batch.cpp pre-reads, computes parity
// as md's handle_stripe_dirtying chooses (write_plan.hpp) and writes, one
// member I/O per run of adjacent heads. Reads go straight to the data
// member (md's chunk_aligned_read); a block on a member that is missing,
// failed or not yet rebuilt there is reconstructed through its stripe
// head. A member write that fails fails its member (the front records
// it); a read or pre-read that fails is planned again without that member
// (reconstructed from the rest of the stripe), the member stays unless its
// read errors pass max_read_errors, and the block is rewritten
// (raid/read_errors.hpp: md's R5_ReadError, R5_ReWrite).
// Rebuild, check and repair work one stripe (chunk-row) at a time.
//
// Level 6 is served by the same personality, as md's raid5.c serves 4, 5
// and 6 from one conf (stripe_geometry.hpp): a second syndrome Q on ISA-L
// (pq_syndrome.hpp), two members short of sync at most, md's RAID6 rmw
// (P and Q updated from the old data) and rcw, and degraded stripes
// recovered from any two missing blocks.
#pragma once
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "raid/array_core.hpp"
#include "raid/personality.hpp"
#include "raid5/stripe_cache.hpp"
#include "raid5/stripe_geometry.hpp"
#include "raid5/stripe_queues.hpp"
#include "raid5/write_plan.hpp"
#include "raid5/write_streams.hpp"

namespace rs::raid5 {

// Cumulative counts, in md's stripe heads (one 4 KiB page per member).
struct StripeCounters {
  std::atomic<uint64_t> full_stripe{0}, rmw{0}, rcw{0}, prereads{0}, degraded_reads{0};
  // Pages the I/O path computed from the rest of their stripe (a lost
  // member's block a read or a write needed); check and rebuild not counted.
  std::atomic<uint64_t> recovered_pages{0};
  // RAID6 check: 4 KiB pages whose P, or Q, did not match the data.
  std::atomic<uint64_t> p_mismatches{0}, q_mismatches{0};
};

class Raid5Personality final : public raid::Personality {
 public:
  Raid5Personality(const raid::Shape& shape, const StripeGeometry& geometry, raid::ArrayCore& core);
  ~Raid5Personality() override;

  uint64_t array_sectors() const override;
  std::string describe() const override;
  std::string layout_name() const override;
  // The stripe cache moves data a 4 KiB page per member at a time.
  uint32_t io_unit_bytes() const override { return kPageBytes; }
  std::string io_unit_reason() const override {
    return level_name() + " moves data one 4 KiB stripe-cache page at a time";
  }
  uint64_t optimal_io_bytes() const override { return row_sectors() * raid::kSectorBytes; }
  bool can_run(const raid::MemberTable& table, const std::vector<uint64_t>& recovery_offsets) const override;
  bool can_resync(const raid::MemberTable& table) const override;

  void prepare(raid::ArrayIo& io, uint32_t max_length) const override;
  void submit(raid::ArrayIo& io) override;

  raid::PieceRange rebuild_range(int target, uint64_t dev_sector) const override;
  Status rebuild_piece(const raid::MemberTable& table, int target, uint64_t dev_sector,
                       const raid::PieceRange& range) override;
  // Level 6 with two targets: both recovered from one read of the rest.
  Status rebuild_pieces(const raid::MemberTable& table, const std::vector<int>& targets, uint64_t dev_sector,
                        const raid::PieceRange& range) override;
  raid::PieceRange check_range(uint64_t array_sector) const override;
  Result<raid::CheckPieceResult> check_piece(const raid::MemberTable& table, const raid::PieceRange& range,
                                             bool repair) override;
  raid::PieceRange fix_range(int slot, uint64_t dev_sector, uint64_t sectors) const override;
  Status fix_read_error(const raid::MemberTable& table, int slot, uint64_t dev_sector,
                        uint64_t sectors) override;

  uint64_t bitmap_sectors() const override;
  std::pair<uint64_t, uint64_t> bitmap_range(uint64_t array_lo, uint64_t array_hi) const override;
  std::pair<uint64_t, uint64_t> array_range_of_bitmap(uint64_t lo, uint64_t hi) const override;

  void register_tunables(telemetry::TunableRegistry& registry) override;
  void read_sections(std::vector<telemetry::Section>& out) const override;

  // Level 5's map (the tests' view of md's placement).
  const layout::Raid5Geometry& geometry() const { return geo_.r5; }
  const StripeGeometry& stripe_geometry() const { return geo_; }
  const StripeCounters& counters() const { return counters_; }
  // Stripe heads in use: md's stripe_cache_active.
  size_t active_stripes() const;
  int stripe_cache_size() const { return cache_size_.load(std::memory_order_relaxed); }
  int bypass_threshold() const { return bypass_threshold_.load(std::memory_order_relaxed); }
  Scheduling scheduling() const { return Scheduling(scheduling_.load(std::memory_order_relaxed)); }
  bool hold_stream_stripes() const { return hold_streams_.load(std::memory_order_relaxed); }

 private:
  friend Result<std::unique_ptr<raid::Personality>> make_raid5(const raid::Shape& shape,
                                                               raid::ArrayCore& core);
  struct Io;
  struct Child;
  struct Seg;
  struct Piece;
  struct Batch;
  std::string level_name() const { return geo_.level == 6 ? "RAID6" : "RAID5"; }
  uint64_t row_sectors() const { return uint64_t(geo_.chunk_sectors) * uint64_t(geo_.data_disks()); }
  // Whether the stripe of page column `column` may not be in sync yet (past
  // the resync point): its writes reconstruct parity (md forces rcw there).
  bool column_unsynced(uint64_t column) const {
    const uint64_t stripe = column * kPageSectors / geo_.chunk_sectors;
    return core_.unsynced(stripe * row_sectors(), row_sectors());
  }
  bool readable(const raid::MemberTable& table, const std::vector<uint8_t>& failed, int slot,
                uint64_t dev_sector, uint64_t n) const;
  // The stripe's block of `slot` over [dev, +bytes) as the XOR of the
  // other members' blocks (read into blocks[i]), into `out`; an error
  // when another member is not in sync or cannot read it.
  Status reconstruct(const raid::MemberTable& table, int slot, uint64_t dev, uint64_t bytes,
                     const std::vector<uint8_t*>& blocks, uint8_t* out);
  // Level 6: blocks[i] holds member i's block of the stripe at `dev` (the
  // members lost_a and lost_b, when >= 0, are overwritten with theirs),
  // through ISA-L's P+Q recovery in md's syndrome order.
  // `want` >= 0 (a data member, lost_a or lost_b): only its block is
  // rebuilt (pq_recover_one), the other lost block left as it was.
  void recover_pq(uint64_t dev, uint8_t* const* blocks, int lost_a, int lost_b, size_t bytes,
                  int want = -1) const;
  // RAID6's reconstruct (any one block from the rest, one other member may
  // be short too) and check (which syndrome is wrong; repair writes both).
  Status reconstruct6(const raid::MemberTable& table, int slot, uint64_t dev, uint64_t bytes,
                      const std::vector<uint8_t*>& blocks, uint8_t* out);
  Result<raid::CheckPieceResult> check_piece6(const raid::MemberTable& table, const raid::PieceRange& range,
                                              bool repair);
  // "members a, b and c": where a reconstructed block came from.
  std::string stripe_sources(const raid::MemberTable& table, int slot) const;
  bool writable(const raid::MemberTable& table, const std::vector<uint8_t>& failed, int slot) const;

  // ---- raid5_io.cpp: array I/O in, reads straight to the members ----
  void start_read(raid::ArrayIo& io);
  bool plan_read(raid::ArrayIo& io);
  void plan_write(raid::ArrayIo& io);
  // The bio is about to put work on stripe heads: its completion state
  // (under mutex_) starts over.
  void begin_head_work(raid::ArrayIo& io, bool direct_done);
  static void read_child_done(io::MemberIo& mio, int result);
  // The direct reads are done; the bio ends once its heads are done too.
  void direct_reads_done(raid::ArrayIo& io);
  void finish_bio(raid::ArrayIo& io);

  // ---- raid5d.cpp: the stripe cache's queues and raid5d ----
  // Attaches io's blocks to their heads from where it stopped; parks io
  // (resumed by a released head) when no head is free.
  void attach(raid::ArrayIo& io);
  // A head got work (or finished a round with more waiting): onto the
  // list md's release_stripe/handle_stripe put it on. `here`: the
  // context running this (for plug_locked; null off the I/O path).
  void queue_head_locked(StripeHead* head, io::IoContext* here);
  bool needs_prereads(const StripeHead& head) const;
  void apply_tunables_locked();
  // Heads the cache gave up (taken over for another column, or dropped)
  // lose their stripe state, as md's init_stripe clears it.
  void forget_evicted_locked();
  // One raid5d pass: takes every head the scheduling gives now, grouped
  // into one batch per context (chained through Batch::next).
  Batch* take_pass_locked(io::IoContext* here);
  Batch* new_batch_locked(io::IoContext* context, raid::ArrayIo* parent);
  // Starts each batch of a pass: posted to its context, then here the one
  // whose context is `here`.
  void start_batches(Batch* first, io::IoContext* here);
  void raid5d(io::IoContext* here);
  // md's unplug: releases the delayed heads (raid5_activate_delayed).
  void unplug(io::IoContext* here);
  void plug_locked(io::IoContext* here);
  // A context with a bio waiting on a delayed head: `here` when it has
  // one, else the first delayed head's; null when none has a bio.
  io::IoContext* unplug_context_locked(io::IoContext* here) const;
  void post_unplug(io::IoContext* at);
  // Whether a delayed head stays plugged at an unplug: a sequential
  // writer waiting on it is still filling its stripe (write_streams.hpp).
  bool stream_holds_locked(uint64_t column) const;
  std::optional<uint64_t> first_unwritten_sector(const StripeHead& head) const;
  // A write's bio is done (under mutex_): its stream stops counting it.
  void write_done_locked(raid::ArrayIo& io);
  // A batch's heads have their parity and their writes go out: they stop
  // counting as pre-read active (md's handle_stripe at drain_result), so
  // the delayed heads' pre-reads may start while these writes are in flight.
  void batch_prereads_over(Batch& batch);
  void batch_finished(Batch* batch);

  // ---- stripe_batch.cpp: one batch of heads on one context ----
  void batch_start(Batch& b);
  void batch_plan(Batch& b);
  void batch_issue(Batch& b, bool write);
  void batch_compute(Batch& b);
  // RAID6's side of batch_plan / batch_compute for one head (stripe_batch6.cpp).
  void plan_head6(Batch& b, size_t hi, const raid::MemberTable& table);
  void compute_head6(Batch& b, size_t hi);
  void recover_head6(StripeHead& head, uint8_t* const* pages);
  static void batch_child_done(io::MemberIo& mio, int result);

  raid::Shape shape_;
  StripeGeometry geo_;
  raid::ArrayCore& core_;
  StripeCounters counters_;
  // The stripe cache and raid5d's lists, under mutex_.
  mutable std::mutex mutex_;
  StripeCache cache_;
  StripeQueues queues_;
  WriteStreams streams_;
  std::vector<raid::ArrayIo*> waiters_;  // bios waiting for a free head
  size_t in_round_ = 0;                  // heads a batch is handling
  // An unplug is posted (to unplug_at_ until it is sent) to a context with
  // a bio on a delayed head; cleared when it runs or that may not hold.
  bool unplug_pending_ = false;
  io::IoContext* unplug_at_ = nullptr;
  uint64_t touch_pass_ = 0;
  std::vector<std::unique_ptr<Batch>> batches_;  // every batch made; reused
  Batch* spare_batches_ = nullptr;               // the idle ones, chained through Batch::next
  // needs_prereads' view of a head: every member readable; which it writes.
  std::vector<uint8_t> all_readable_;
  mutable std::vector<uint8_t> towrite_scratch_;
  std::atomic<int> cache_size_{256};  // md's default stripe_cache_size
  std::atomic<int> bypass_threshold_{kDefaultBypassThreshold};
  std::atomic<uint8_t> scheduling_{uint8_t(Scheduling::priority)};
  std::atomic<bool> hold_streams_{true};
  // read_sections() turns cumulative counts into per-interval ones.
  mutable uint64_t last_full_ = 0, last_rmw_ = 0, last_rcw_ = 0, last_prereads_ = 0;
};

// For levels/: the factory the front finds raid5 and raid6 by (the shape's
// level picks the map).
Result<std::unique_ptr<raid::Personality>> make_raid5(const raid::Shape& shape, raid::ArrayCore& core);
Result<uint64_t> raid5_used_dev_sectors(const raid::Shape& shape, uint64_t member_sectors);

}  // namespace rs::raid5
