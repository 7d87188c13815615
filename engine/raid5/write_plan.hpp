// How a stripe write gets its parity, chosen as md's handle_stripe_dirtying
// does: count the blocks each method must read first and take the cheaper.
//  - read-modify-write (rmw) reads the old contents of the blocks being
//    written and the old parity: P' = P ^ D_old ^ D_new;
//  - reconstruct-write (rcw) reads the data blocks not being written and
//    computes parity from all data: P' = XOR of every data block;
//  - a write of every data block (full-stripe write) is an rcw that needs
//    no reads.
// A block that cannot be read (failed member, or recovering beyond its
// recovery point) costs 2 * raid_disks, as in md, so the method that avoids
// it wins; md takes rmw only when it is strictly cheaper (rmw_level
// PARITY_ENABLE_RMW) and not free.
#pragma once
#include <cstdint>
#include <span>

namespace rs::raid5 {

enum class WriteMethod : uint8_t { full_stripe, rmw, rcw };
const char* write_method_name(WriteMethod m);

struct WriteChoice {
  WriteMethod method = WriteMethod::rcw;
  int prereads = 0;       // blocks the method reads first
  bool possible = true;   // false: every method needs a block that cannot be read
};

// One stripe: `written[i]` says member i's data block is written,
// `readable[i]` whether member i can be read; `pd` is the parity member,
// `qd` RAID6's Q member (-1 on RAID5): md's RAID6 rmw reads the old data,
// P and Q; its rcw the data not written.
// `cached[i]` (empty: none) says the stripe cache already holds member i's
// current block: md counts such a block (R5_UPTODATE) as no read at all.
// `unsynced`: the stripe is past the resync point, so its parity may not
// match its data: md forces rcw there (when every block it reads can be
// read), which makes the stripe agree; rmw would keep the bad parity.
WriteChoice choose_write(int pd, std::span<const uint8_t> written, std::span<const uint8_t> readable,
                         std::span<const uint8_t> cached = {}, bool unsynced = false, int qd = -1);

}  // namespace rs::raid5
