// Read-balancing policies: which mirror serves a read.
//
// Each policy is a pure function of the request, a snapshot of the mirrors
// that hold a copy of the data, the tunables, and an explicit PolicyState
// (the only thing a policy may change: counters such as md-rr's read_rr).
// The array takes the snapshot, calls choose(), then updates the chosen
// member's own state (nr_pending, next_seq_sect, seq_start) itself.
#pragma once
#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rs::balance {

inline constexpr uint64_t kMaxSector = ~uint64_t{0};

// What a policy sees of one mirror (one copy of the requested range).
struct MemberSnapshot {
  int slot = -1;                    // the member's role (raid slot) in the array
  uint64_t sector = 0;              // where this copy of the request starts on the member (512 B sectors)
  bool readable = true;             // present, not faulty, in sync for the requested range
  bool write_mostly = false;
  bool rotational = false;
  uint32_t bad_sectors_from = ~0u;  // the request hits a bad block this many sectors in (~0u: none)
  uint32_t nr_pending = 0;          // member I/Os in flight
  uint64_t head_position = 0;       // sector where the last completed I/O ended
  uint64_t next_seq_sect = 0;       // sector right after the last read issued to it
  uint64_t seq_start = kMaxSector;  // start of the current sequential run (kMaxSector: none)
  uint32_t io_opt_sectors = 0;      // optimal I/O size in sectors (override applied), 0 = none
};

struct ReadRequest {
  uint64_t sector = 0;              // array sector
  uint32_t sectors = 0;
  uint32_t job_id = 0;              // the submitting job (btrfs's current->pid)
  bool resync_overlap = false;      // a resync/recovery is running over this range (md: read first)
};

enum class PolicyId { MdLegacy, MdRr, BtrfsPid, BtrfsRr, BtrfsQlen };

struct Tunables {
  uint32_t min_contig_read = 256 * 1024;  // btrfs-rr: bytes read from one mirror before moving on; 0 = per request
  uint32_t rot_round_down = 8;            // btrfs-qlen: queue length rounding for rotational arrays
  uint32_t nonrot_round_down = 2;         // btrfs-qlen: ... for all-non-rotational arrays
};

// Mutable state shared by every submitter of one array. Atomic: several job
// threads choose concurrently, as kernel submitters do.
struct PolicyState {
  std::atomic<int> read_rr{-1};                  // md-rr start slot rotation (seed 000)
  std::atomic<uint64_t> total_read_blocks{0};    // btrfs-rr: 4 KiB blocks read so far (stats_read_blocks)
};

struct Choice {
  int index = -1;          // index into the mirrors span, -1: no readable mirror
  uint32_t sectors = 0;    // how many sectors of the request it may serve (bad blocks can shorten it)
};

Choice choose(PolicyId policy, const ReadRequest& req, std::span<const MemberSnapshot> mirrors,
              PolicyState& state, const Tunables& tunables);

std::optional<PolicyId> policy_from_name(std::string_view name);
std::string_view policy_name(PolicyId id);
std::vector<std::string_view> policy_names();
// Checks tunables; returns an error message naming the bad value, or "".
std::string validate(const Tunables& tunables);

}  // namespace rs::balance
