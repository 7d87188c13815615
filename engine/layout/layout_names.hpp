// The --layout spellings mdadm takes, to and from md's layout word. Pure.
//
// Only mdadm's own spellings are accepted, character for character (mdadm
// compares with strcmp and parse_layout_10 wants a letter then a number), so
// a layout typed for mdadm means the same here and a typo is an error rather
// than a different layout. Errors are Errc::invalid_argument naming the
// option and the valid choices, e.g. "--layout=n99999999999: copies must be
// 2..4"; no text, however long, makes these functions throw.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.hpp"

namespace rs::layout {

// RAID10: "n<C>", "f<C>" or "o<C>" (near, far, offset; lower case, C in
// decimal digits only) into md's layout word: bits 0-7 near copies, 8-15 far
// copies, bit 16 offset. n2 = 0x102, f2 = 0x201, o2 = 0x10201.
// C must be 2..raid_disks (md needs two copies for redundancy and cannot
// place more copies than members) and fit the word's 8 bits (<= 255).
// mdadm's strtoul also lets through "n+2" and "n 2"; those are refused here.
Result<uint32_t> parse_raid10_layout(std::string_view text, int raid_disks);

// mdadm's spelling of `word` ("n2", "f3", "o2"; parse_raid10_layout takes
// it back when the array has enough members), or "" when mdadm has none: near and far copies both above 1,
// far sets (bit 17) or other unknown bits. Not mdadm --examine's "near=2": that text is
// ondisk::raid10_layout_name.
std::string raid10_layout_name(uint32_t word);

// RAID5: mdadm's r5layout names into md's ALGORITHM_* number:
//   left-asymmetric  la  ddf-N-restart      0
//   right-asymmetric ra  ddf-zero-restart   1
//   left-symmetric   ls  ddf-N-continue  default  2 (mdadm's default)
//   right-symmetric  rs                     3
// mdadm's parity-first and parity-last (md layouts 4 and 5) are known but
// not implemented by RaidScope: Errc::unsupported saying so.
Result<int> parse_raid5_layout(std::string_view text);

// mdadm's long name for a raid5 algorithm 0..3 ("left-symmetric"), "" for
// any other number.
std::string raid5_layout_name(int algorithm);

// RAID6: mdadm's r6layout names into md's ALGORITHM_* number: the RAID5
// names above (same numbers; "default" is left-symmetric, 2) and the -6
// layouts with Q on the last member:
//   left-asymmetric-6 16, right-asymmetric-6 17, left-symmetric-6 18,
//   right-symmetric-6 19.
// mdadm's parity-first, parity-last, parity-first-6 and the ddf-* layouts
// (which are different layouts on RAID6) are known but not implemented by
// RaidScope: Errc::unsupported saying so.
Result<int> parse_raid6_layout(std::string_view text);

// mdadm's long name for a raid6 algorithm ("left-symmetric-6"), "" for any
// number parse_raid6_layout does not return.
std::string raid6_layout_name(int algorithm);

}  // namespace rs::layout
