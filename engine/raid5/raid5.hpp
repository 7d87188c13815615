// The RAID5 personality: md's four classic parity layouts (left/right,
// symmetric/asymmetric; address maths in layout/raid5.*), one parity chunk
// per stripe, parity through ISA-L.
//
// An array I/O is cut into stripe segments: runs of 4 KiB page columns of
// one stripe (one chunk-row) that the I/O writes on the same set of
// members. A write segment gets its parity as md's handle_stripe_dirtying
// chooses (write_plan.hpp): full-stripe, read-modify-write or
// reconstruct-write; its stripes are locked from the pre-reads to the last
// member write (stripe_locks.hpp). Reads go straight to the data member;
// data on a member that is missing, failed or not yet rebuilt there is
// reconstructed from the rest of its stripe. A member I/O that fails fails
// its member (the front records it); a failed pre-read or read makes the
// I/O plan again without that member. Rebuild, check and repair work one
// stripe (chunk-row) at a time.
#pragma once
#include <atomic>
#include <memory>
#include <vector>

#include "layout/raid5.hpp"
#include "raid/array_core.hpp"
#include "raid/personality.hpp"
#include "raid5/stripe_locks.hpp"
#include "raid5/stripe_queues.hpp"
#include "raid5/write_plan.hpp"

namespace rs::raid5 {

// Cumulative counts, in md's stripe heads (one 4 KiB page per member).
struct StripeCounters {
  std::atomic<uint64_t> full_stripe{0}, rmw{0}, rcw{0}, prereads{0}, degraded_reads{0};
};

class Raid5Personality final : public raid::Personality {
 public:
  Raid5Personality(const raid::Shape& shape, const layout::Raid5Geometry& geometry, raid::ArrayCore& core);

  uint64_t array_sectors() const override;
  std::string describe() const override;
  std::string layout_name() const override;
  bool can_run(const raid::MemberTable& table, const std::vector<uint64_t>& recovery_offsets) const override;

  void prepare(raid::ArrayIo& io, uint32_t max_length) const override;
  void submit(raid::ArrayIo& io) override;

  raid::PieceRange rebuild_range(int target, uint64_t dev_sector) const override;
  Status rebuild_piece(const raid::MemberTable& table, int target, uint64_t dev_sector,
                       const raid::PieceRange& range) override;
  raid::PieceRange check_range(uint64_t array_sector) const override;
  Result<raid::CheckPieceResult> check_piece(const raid::MemberTable& table, const raid::PieceRange& range,
                                             bool repair) override;

  uint64_t bitmap_sectors() const override;
  std::pair<uint64_t, uint64_t> bitmap_range(uint64_t array_lo, uint64_t array_hi) const override;
  std::pair<uint64_t, uint64_t> array_range_of_bitmap(uint64_t lo, uint64_t hi) const override;

  void register_tunables(telemetry::TunableRegistry& registry) override;
  void read_sections(std::vector<telemetry::Section>& out) const override;

  const layout::Raid5Geometry& geometry() const { return geo_; }
  const StripeCounters& counters() const { return counters_; }
  // Stripes locked by I/O in flight: md's active stripes.
  size_t active_stripes() const { return locks_.held(); }
  int stripe_cache_size() const { return cache_size_.load(std::memory_order_relaxed); }
  int bypass_threshold() const { return bypass_threshold_.load(std::memory_order_relaxed); }
  Scheduling scheduling() const { return Scheduling(scheduling_.load(std::memory_order_relaxed)); }

 private:
  struct Io;
  struct Child;
  struct Seg;
  uint64_t row_sectors() const { return uint64_t(geo_.chunk_sectors) * uint64_t(geo_.data_disks()); }
  bool readable(const raid::MemberTable& table, const Io& st, int slot, uint64_t dev_sector, uint64_t n) const;
  bool writable(const raid::MemberTable& table, const Io& st, int slot) const;
  // (Re)plans io from scratch with the members st.failed excludes and takes
  // its stripe locks; false when it waits for a lock (it resumes itself).
  void start(raid::ArrayIo& io);
  bool plan(raid::ArrayIo& io);
  bool plan_read(raid::ArrayIo& io);
  bool plan_write(raid::ArrayIo& io);
  void issue_reads(raid::ArrayIo& io);
  void after_reads(raid::ArrayIo& io);
  void issue_writes(raid::ArrayIo& io);
  void finish(raid::ArrayIo& io, int result);
  void child_finished(raid::ArrayIo& io);
  void issue_child(raid::ArrayIo& io, bool write, int slot, uint64_t dev_sector, uint64_t sectors, uint8_t* buf);
  static void child_done(io::MemberIo& mio, int result);

  raid::Shape shape_;
  layout::Raid5Geometry geo_;
  raid::ArrayCore& core_;
  StripeLocks locks_;
  StripeCounters counters_;
  std::atomic<int> cache_size_{256};  // md's default stripe_cache_size
  std::atomic<int> bypass_threshold_{kDefaultBypassThreshold};
  std::atomic<uint8_t> scheduling_{uint8_t(Scheduling::priority)};
  // read_sections() turns cumulative counts into per-interval ones.
  mutable uint64_t last_full_ = 0, last_rmw_ = 0, last_rcw_ = 0, last_prereads_ = 0;
};

// For levels/: the factory the front finds raid5 by.
Result<std::unique_ptr<raid::Personality>> make_raid5(const raid::Shape& shape, raid::ArrayCore& core);
Result<uint64_t> raid5_used_dev_sectors(const raid::Shape& shape, uint64_t member_sectors);

}  // namespace rs::raid5
