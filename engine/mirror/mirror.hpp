// The RAID1 / RAID10 personality: mirrored copies placed by a CopyMap.
// Reads go to one copy chosen by the read policy (balance/), writes to
// every copy that takes writes; a failed read is retried on another copy
// and the unreadable block rewritten from it (md's fix_read_error; the
// member is failed only past max_read_errors), a failed write fails its
// member (the write succeeds while one copy of each piece got it). Rebuild
// copies from an in-sync copy; check compares every in-sync copy with the
// first readable one, and repair rewrites the others from it; a copy that
// cannot be read there is rewritten from it too.
#pragma once
#include <atomic>
#include <memory>
#include <vector>

#include "balance/policy.hpp"
#include "mirror/copy_map.hpp"
#include "raid/array_core.hpp"
#include "raid/personality.hpp"

namespace rs::mirror {

class MirrorPersonality final : public raid::Personality {
 public:
  MirrorPersonality(const raid::Shape& shape, CopyMap map, raid::ArrayCore& core);

  uint64_t array_sectors() const override { return map_.array_sectors(); }
  std::string describe() const override { return map_.describe(); }
  std::string layout_name() const override { return map_.layout_name(); }
  bool can_run(const raid::MemberTable& table, const std::vector<uint64_t>& recovery_offsets) const override;

  void prepare(raid::ArrayIo& io, uint32_t max_length) const override;
  void submit(raid::ArrayIo& io) override;

  raid::PieceRange rebuild_range(int target, uint64_t dev_sector) const override;
  Status rebuild_piece(const raid::MemberTable& table, int target, uint64_t dev_sector,
                       const raid::PieceRange& range) override;
  raid::PieceRange check_range(uint64_t array_sector) const override;
  Result<raid::CheckPieceResult> check_piece(const raid::MemberTable& table, const raid::PieceRange& range,
                                             bool repair) override;
  raid::PieceRange fix_range(int slot, uint64_t dev_sector, uint64_t sectors) const override;
  Status fix_read_error(const raid::MemberTable& table, int slot, uint64_t dev_sector, uint64_t sectors) override;

  void register_tunables(telemetry::TunableRegistry& registry) override;
  void read_sections(std::vector<telemetry::Section>& out) const override;

  // Read policy (also a tunable), switchable while I/O runs.
  void set_policy(balance::PolicyId p) { policy_.store(int(p), std::memory_order_relaxed); }
  balance::PolicyId policy() const { return balance::PolicyId(policy_.load(std::memory_order_relaxed)); }
  balance::Tunables balance_tunables() const;
  Status set_balance_tunables(const balance::Tunables& t);

 private:
  struct Io;
  struct Child;
  // md's per-mirror read-balance state (update_read_sectors).
  struct MirrorState {
    std::atomic<uint64_t> next_seq_sect{0};
    std::atomic<uint64_t> seq_start{balance::kMaxSector};
  };
  static void child_done(io::MemberIo& mio, int result);
  void issue_read(raid::ArrayIo& io, Child& c);
  void finish_child(raid::ArrayIo& io);
  void fill_snapshots(const raid::MemberTable& table, Io& state, Child& c, int copies) const;

  raid::Shape shape_;
  CopyMap map_;
  raid::ArrayCore& core_;
  std::vector<std::unique_ptr<MirrorState>> mirrors_;
  std::atomic<int> policy_{int(balance::PolicyId::MdLegacy)};
  balance::PolicyState policy_state_;
  std::atomic<uint32_t> min_contig_read_{256 * 1024}, rot_round_down_{8}, nonrot_round_down_{2};
};

// For levels/: the factories the front finds raid1 and raid10 by.
Result<std::unique_ptr<raid::Personality>> make_mirror(const raid::Shape& shape, raid::ArrayCore& core);
Result<uint64_t> mirror_used_dev_sectors(const raid::Shape& shape, uint64_t member_sectors);

}  // namespace rs::mirror
