// A RAID level, as md's struct md_personality is: a table of operations over
// the array front (ArrayCore), plus its declared limits. The front owns the
// members, superblocks, state, the resync barrier, metadata updates and
// telemetry; a personality owns the data layout: mapping a request onto
// members, the write fan-out (or stripe handling), degraded reads, one piece
// of rebuild / check / repair, its read-balance or stripe state, and its
// own tunables and telemetry section. The front never asks "which level am
// I": adding a level is a new folder implementing this interface and one
// row in levels/levels.cpp (raid/level_info.hpp).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/result.hpp"
#include "io/context.hpp"
#include "raid/array_io.hpp"
#include "raid/member_table.hpp"
#include "telemetry/sample.hpp"
#include "telemetry/tunables.hpp"

namespace rs::raid {

inline constexpr uint64_t kSectorBytes = 512;

// The data shape every level has: what the superblock says.
struct Shape {
  int level = 1;
  int raid_disks = 0;
  uint32_t layout = 0;         // md's layout word (0 for raid1)
  uint32_t chunk_sectors = 0;  // 0 for raid1
  uint64_t dev_sectors = 0;    // md's `size`: used sectors per member
  uint64_t data_offset = 0;    // sectors from the member start
};

// A range of array sectors a maintenance piece reads or writes, which the
// resync barrier holds writes off while the piece runs.
struct PieceRange {
  uint64_t dev_sectors = 0;             // rebuild: device sectors the piece covers
  uint64_t array_lo = 0, array_hi = 0;  // array sectors it touches; empty when lo == hi
};

struct CheckPieceResult {
  uint64_t sectors = 0;     // array sectors the piece covered
  uint64_t mismatches = 0;  // md's mismatch_cnt contribution, in sectors
  // Levels with two syndromes (RAID6): of the 4 KiB pages that disagreed,
  // those whose P and those whose Q was wrong (a damaged data block makes
  // both wrong). Zero where the level cannot tell (one parity, copies).
  uint64_t p_wrong_pages = 0, q_wrong_pages = 0;
};

class ArrayCore;

class Personality {
 public:
  virtual ~Personality() = default;

  virtual uint64_t array_sectors() const = 0;
  // "layout near=2, chunk 512K", "2 mirrors": for detail and reports.
  virtual std::string describe() const = 0;
  // md's layout name for the level ("near=2", "left-symmetric"), "" when none.
  virtual std::string layout_name() const = 0;
  // Whether the array can serve every sector with these members (recovering
  // members count up to their recovery_offset): an array that cannot must
  // not run, and a member whose failure would make it false is not failed.
  virtual bool can_run(const MemberTable& table, const std::vector<uint64_t>& recovery_offsets) const = 0;
  // Whether md's resync can make the redundancy agree with these members.
  // Mirrors compare whatever copies are there (a copy alone is the data).
  // RAID5 rebuilds a missing member's data from parity, so with a member
  // short it cannot: its unsynced stripes stay unsynced, and such an array
  // is "dirty degraded" (md refuses to start it unless forced).
  virtual bool can_resync(const MemberTable& table) const {
    (void)table;
    return true;
  }

  // The smallest span the level addresses on its own (md's 512-byte
  // sector; a stripe cache's page), and why, for messages.
  virtual uint32_t io_unit_bytes() const { return uint32_t(kSectorBytes); }
  virtual std::string io_unit_reason() const { return "the level addresses 512-byte sectors"; }
  // The write size that costs least (md's io_opt): a full stripe where
  // parity makes smaller writes read first; 0 when no size is better.
  virtual uint64_t optimal_io_bytes() const { return 0; }

  // ---- the I/O path (the port's context thread) ----
  // Sizes io.priv for requests up to max_length bytes.
  virtual void prepare(ArrayIo& io, uint32_t max_length) const = 0;
  // Starts io (the front has passed it through the write gate). Member I/Os
  // go out through core.issue(); when every one has finished, the
  // personality calls core.complete(io, result).
  virtual void submit(ArrayIo& io) = 0;

  // ---- maintenance (a task's thread; synchronous member I/O) ----
  // The piece of rebuild onto `target` that starts at device sector `dev_sector`.
  virtual PieceRange rebuild_range(int target, uint64_t dev_sector) const = 0;
  // Copies/reconstructs that piece onto `target` from the in-sync members.
  virtual Status rebuild_piece(const MemberTable& table, int target, uint64_t dev_sector,
                               const PieceRange& range) = 0;
  // The same piece onto several targets whose pieces share `range` (one
  // recovery pass rebuilding them all). The default rebuilds each in turn;
  // a level that can recover them all from one read of the rest (RAID6's
  // two lost blocks) overrides it.
  virtual Status rebuild_pieces(const MemberTable& table, const std::vector<int>& targets,
                                uint64_t dev_sector, const PieceRange& range) {
    for (int t : targets)
      if (Status s = rebuild_piece(table, t, dev_sector, range); !s) return s;
    return {};
  }
  // The piece of check/repair/resync that starts at `array_sector`.
  virtual PieceRange check_range(uint64_t array_sector) const = 0;
  // Compares the redundancy of that piece; with `repair` makes it agree
  // again (md's resync is a repair that does not report).
  virtual Result<CheckPieceResult> check_piece(const MemberTable& table, const PieceRange& range,
                                               bool repair) = 0;

  // ---- read-error correction (md's fix_read_error), a thread of the
  // front's, synchronous member I/O ----
  // The array sectors a rewrite of member `slot`'s device sectors
  // [dev_sector, +sectors) touches: the resync barrier holds writes there.
  virtual PieceRange fix_range(int slot, uint64_t dev_sector, uint64_t sectors) const = 0;
  // Rewrites those sectors, which the member could not read, from another
  // copy or the rest of the stripe, through ArrayCore::correct_block().
  virtual Status fix_read_error(const MemberTable& table, int slot, uint64_t dev_sector,
                                uint64_t sectors) = 0;

  // ---- the write-intent bitmap's space (md's sync_size and the sectors
  // md_bitmap_startwrite is called with). The default, array sectors, is
  // what raid1 and raid10 use; raid5 counts per-member stripe sectors. ----
  virtual uint64_t bitmap_sectors() const { return array_sectors(); }
  // Bitmap sectors an array write over [array_lo, array_hi) dirties.
  virtual std::pair<uint64_t, uint64_t> bitmap_range(uint64_t array_lo, uint64_t array_hi) const {
    return {array_lo, array_hi};
  }
  // Array sectors a resync of bitmap sectors [lo, hi) must make agree.
  virtual std::pair<uint64_t, uint64_t> array_range_of_bitmap(uint64_t lo, uint64_t hi) const {
    return {lo, hi};
  }

  // ---- live session ----
  // Adds the level's tunables (read_policy, stripe_cache_size, ...).
  virtual void register_tunables(telemetry::TunableRegistry& registry) { (void)registry; }
  // The level's telemetry sections for a sample.
  virtual void read_sections(std::vector<telemetry::Section>& out) const { (void)out; }
};

}  // namespace rs::raid
