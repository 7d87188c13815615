// A member's v1.2 superblock printed the way Debian's `mdadm --examine`
// (4.2) prints it, so a user can compare RaidScope's view with mdadm's
// line by line. Pure: formats, does no I/O.
#pragma once
#include <cstdint>
#include <string>

#include "ondisk/superblock.hpp"

namespace rs::ondisk {

// The array's capacity in sectors as md computes it from this member's
// superblock: raid1 `size`; raid5 `size` rounded down to a chunk times
// (raid_disks - 1); raid10 md's raid10_size (whole chunks per member,
// divided by far copies, times raid_disks, divided by near copies).
// 0 for a level or geometry md would not run (zero copies or chunk).
uint64_t array_sectors(const Superblock& sb);

// mdadm's human_size(): "" below 5000 KiB, else " (62.50 MiB 65.54 MB)",
// GiB/GB from 2 GiB, TiB/TB from 2 TiB, centi-units rounded half up.
std::string human_size(uint64_t bytes);

// The text of `mdadm --examine <device_path>` for a member of device_bytes
// bytes carrying `sb`, starting with the "<device_path>:" line and ending
// with a newline. Fields and order follow mdadm 4.2: Magic, Version,
// Feature Map, Array UUID, Name, Creation Time, Raid Level, Raid Devices,
// Avail Dev Size, Array Size, Used Dev Size (when size != data_size),
// Data Offset, Super Offset, Recovery Offset, Unused Space, State, Device
// UUID, Internal Bitmap, Flags, Update Time, Bad Block Log, Checksum
// (of encode(sb), so always "- correct"), Events, Layout (raid5/raid10),
// Chunk Size, Device Role ("Active device N", "spare", "Journal") and
// Array State (A active, . missing, R replacing, ? inconsistent).
// Times are printed in the local time zone, as ctime(3) does.
// Differences from mdadm, by design:
//  - Array Size is array_sectors() (what md would really export); mdadm
//    prints size * data disks without md's chunk rounding, so the two
//    differ when size is not a multiple of chunk (raid5) or of
//    chunk * far copies (raid10).
//  - Unused Space "before=" assumes the bitmap ends within md's 80-sector
//    minimum metadata area (the bitmap's length needs its own superblock,
//    which this function does not see).
//  - No "(local to host ...)" suffix on Name.
//  - A device smaller than data_offset + size shows "after=-N sectors
//    DEVICE TOO SMALL" and "State : clean TRUNCATED DEVICE" as newer mdadm
//    does; 4.2 prints the wrapped unsigned number instead.
std::string examine_text(const Superblock& sb, const std::string& device_path, uint64_t device_bytes);

}  // namespace rs::ondisk
