// Read-balancing policies: which mirror serves a read.
//
// Each policy is a pure function of the request, a snapshot of the mirrors
// that hold a copy of the data, the tunables, and an explicit PolicyState
// (the only thing a policy may change: counters such as md-rr's read_rr).
//
// Contract with the array (the caller):
//  - `mirrors` holds one MemberSnapshot per mirror holding a copy. RAID1:
//    every member slot in role order (an empty or failed slot is present with
//    readable=false). RAID10: the copies of the chunk in md copy order, with
//    `sector` set to the copy's device sector.
//  - choose() never picks a mirror with readable=false. It returns index -1
//    (and sectors 0) when no mirror can serve the first sector of the request,
//    and for an empty request (sectors == 0) or an empty span.
//  - Choice::sectors may be shorter than the request (md policies shorten a
//    read that would run into a bad block); the array reads the rest with a
//    further choose() call starting at sector + sectors.
//  - After choose() returns, the array does md's update_read_sectors on the
//    chosen member: nr_pending++, and if next_seq_sect != sector then
//    seq_start = sector; then next_seq_sect = sector + Choice::sectors (the
//    chosen copy's sector). head_position is set to the end of the I/O when it
//    completes, and nr_pending-- then. choose() itself never touches members.
//  - The only side effects are on PolicyState: md-rr bumps read_rr, btrfs-rr
//    counts the request's 4 KiB blocks into total_read_blocks (btrfs counts
//    read blocks at submission) and, with min_contig_read == 0, the request
//    into total_read_requests. Nothing else is written.
//  - Hot path: choose() allocates nothing and takes no lock; it may run
//    concurrently from several threads on one PolicyState.
//
// The array counts `nonrot_disks` (md) and "all rotational" (btrfs-qlen) from
// the snapshots, so a non-rotational member is only seen while it is readable:
// an unreadable snapshot may be an empty slot whose `rotational` means nothing.
#pragma once
#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "base/tunable_key.hpp"

namespace rs::balance {

inline constexpr uint64_t kMaxSector = ~uint64_t{0};

// What a policy sees of one mirror (one copy of the requested range).
struct MemberSnapshot {
  int slot = -1;         // the member's role (raid slot) in the array; btrfs-rr's devid
  uint64_t sector = 0;   // where this copy of the request starts on the member (512 B sectors)
  bool readable = true;  // present, not faulty, in sync for the requested range
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
  uint64_t sector = 0;  // array sector
  uint32_t sectors = 0;
  uint32_t job_id = 0;          // the submitting job (btrfs's current->pid)
  bool resync_overlap = false;  // a resync/recovery is running over this range (md: read first)
};

enum class PolicyId { MdLegacy, MdRr, BtrfsPid, BtrfsRr, BtrfsQlen };

struct Tunables {
  uint32_t min_contig_read =
      256 * 1024;                  // btrfs-rr: bytes read from one mirror before moving on; 0 = per request
  uint32_t rot_round_down = 8;     // btrfs-qlen: queue length rounding for rotational arrays
  uint32_t nonrot_round_down = 2;  // btrfs-qlen: ... for all-non-rotational arrays
};

// Mutable state shared by every submitter of one array. Atomic: several job
// threads choose concurrently, as kernel submitters do.
struct PolicyState {
  std::atomic<int> read_rr{-1};                  // md-rr start slot rotation (seed 000)
  std::atomic<uint64_t> total_read_blocks{0};    // btrfs-rr: 4 KiB blocks read so far (stats_read_blocks)
  std::atomic<uint64_t> total_read_requests{0};  // btrfs-rr with min_contig_read == 0: requests so far
};

struct Choice {
  int index = -1;        // index into the mirrors span, -1: no readable mirror
  uint32_t sectors = 0;  // how many sectors of the request it may serve (bad blocks can shorten it)
};

Choice choose(PolicyId policy, const ReadRequest& req, std::span<const MemberSnapshot> mirrors,
              PolicyState& state, const Tunables& tunables);

// The one reader of a policy's name: every edge that takes one from a user
// (the CLI's --policy, the read_policy tunable's text, a scenario file)
// calls it, and everything past the edge carries the PolicyId. Exact
// names only; Errc::invalid_argument naming the valid ones otherwise.
// tests/lint/check_policy_parse.py keeps it the only one.
Result<PolicyId> parse_policy(std::string_view name);
std::string_view policy_name(PolicyId id);
std::vector<std::string_view> policy_names();

// The read_policy tunable (the mirror personality's): its exact name and
// its value's type, for typed sets that parse nothing.
inline constexpr TunableKey<PolicyId> kReadPolicy{"read_policy"};
// Checks tunables: Errc::invalid_argument naming every bad value.
Status validate(const Tunables& tunables);

}  // namespace rs::balance
