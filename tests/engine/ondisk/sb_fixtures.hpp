// Shared test fixtures for the ondisk tests: valid superblocks for each
// supported geometry, and an invariant checker written from the contract in
// superblock.hpp (independently of validate()).
#pragma once
#include <cstdint>
#include <string>

#include "ondisk/superblock.hpp"

namespace rs::ondisk::testing {

inline constexpr uint64_t kDevBytes = 64ull << 20;  // 64 MiB member
inline constexpr uint64_t kDevSectors = kDevBytes / 512;

struct Geometry {
  const char* name;
  int32_t level;
  uint32_t layout;
  uint32_t raid_disks;
  uint32_t chunksize;  // sectors
};

inline constexpr Geometry kRaid1x2{"raid1", 1, 0, 2, 0};
inline constexpr Geometry kRaid10n2{"raid10 n2", 10, 0x102, 4, 1024};
inline constexpr Geometry kRaid10f2{"raid10 f2", 10, 0x201, 4, 1024};
inline constexpr Geometry kRaid10o2{"raid10 o2", 10, 0x10201, 4, 1024};
inline constexpr Geometry kRaid5x3{"raid5", 5, 2, 3, 1024};

// A superblock as mdadm would write it for member `dev_number` of a
// kDevBytes device: data at 2048, size a multiple of 2 chunks, 384 roles.
inline Superblock make_sb(const Geometry& g, uint32_t dev_number = 0) {
  Superblock sb;
  sb.feature_map = 0;
  for (int i = 0; i < 16; ++i) {
    sb.set_uuid[i] = static_cast<uint8_t>(0x3a + 7 * i);
    sb.device_uuid[i] = static_cast<uint8_t>(0xc1 ^ (13 * i + dev_number));
  }
  sb.set_name = "raidscope-test:md7";
  sb.ctime = 1700000000;
  sb.utime = 1700000123;
  sb.level = g.level;
  sb.layout = g.layout;
  sb.chunksize = g.chunksize;
  sb.raid_disks = g.raid_disks;
  sb.data_offset = 2048;
  sb.data_size = kDevSectors - sb.data_offset;
  sb.size = (sb.data_size / 2048) * 2048 - 2048;  // 2 chunks of 512K below data_size
  sb.super_offset = 8;
  sb.dev_number = dev_number;
  sb.events = 17;
  sb.resync_offset = kMaxSector;
  sb.dev_roles.assign(384, kRoleSpare);
  for (uint32_t i = 0; i < g.raid_disks; ++i) sb.dev_roles[i] = static_cast<uint16_t>(i);
  return sb;
}

// The documented invariants of a decoded superblock (see validate() in
// superblock.hpp), re-stated here so the fuzz test checks decode() against
// the contract rather than against itself. Returns "" when all hold.
inline std::string check_invariants(const Superblock& sb, uint64_t device_bytes) {
  const uint64_t S = device_bytes / 512;
  const size_t max_dev = sb.dev_roles.size();
  auto bad = [](const char* what) { return std::string(what); };
  if (sb.major_version != 1) return bad("major_version");
  if (sb.feature_map & ~uint32_t{3}) return bad("feature_map");
  if (max_dev > 1920) return bad("max_dev");
  if (sb.super_offset != 8) return bad("super_offset");
  if (sb.level != 1 && sb.level != 5 && sb.level != 10) return bad("level");
  if (sb.raid_disks < 1 || sb.raid_disks > max_dev) return bad("raid_disks");
  const bool pow2 = sb.chunksize >= 8 && (sb.chunksize & (sb.chunksize - 1)) == 0;
  if (sb.level == 1 && (sb.layout != 0 || sb.chunksize != 0)) return bad("raid1 layout/chunk");
  if (sb.level == 5 && (sb.layout > 3 || sb.raid_disks < 2 || !pow2)) return bad("raid5 geometry");
  if (sb.level == 10) {
    const uint32_t n = sb.layout & 0xff, f = (sb.layout >> 8) & 0xff;
    if ((sb.layout >> 17) || n < 1 || f < 1 || n * f < 2 || n * f > sb.raid_disks || !pow2)
      return bad("raid10 geometry");
  }
  const uint64_t sb_end = 8 + (256 + 2 * max_dev + 511) / 512;
  if (sb.data_offset < sb_end) return bad("data_offset overlaps superblock");
  if (sb.size == 0 || sb.size > sb.data_size) return bad("size");
  if (sb.data_offset > S || sb.data_size > S - sb.data_offset) return bad("data past end of device");
  auto region_ok = [&](int32_t rel, uint64_t len) {
    const int64_t start = 8 + int64_t{rel};
    return start >= static_cast<int64_t>(sb_end) && static_cast<uint64_t>(start) + len <= sb.data_offset;
  };
  if ((sb.feature_map & 1) && !region_ok(sb.bitmap_offset, 1)) return bad("bitmap region");
  if (sb.bblog_size && !region_ok(sb.bblog_offset, sb.bblog_size)) return bad("bblog region");
  if ((sb.feature_map & 2) && sb.recovery_offset > sb.size) return bad("recovery_offset");
  // md's recovery_cp is in array sectors: raid1's array is `size` long,
  // striped levels' at most size x raid_disks.
  const uint64_t array_bound = sb.level == 1 ? sb.size : sb.size * sb.raid_disks;
  if (sb.resync_offset != kMaxSector && sb.resync_offset > array_bound) return bad("resync_offset");
  if (sb.dev_number >= max_dev) return bad("dev_number");
  std::vector<int> seen(sb.raid_disks, 0);
  for (uint16_t r : sb.dev_roles) {
    if (r >= 0xfffd) continue;
    if (r >= sb.raid_disks || seen[r]++) return bad("dev_roles");
  }
  if (sb.devflags & ~3) return bad("devflags");
  if (sb.set_name.size() > 32) return bad("set_name");
  if (sb.ctime >> 40 || sb.utime >> 40) return bad("time beyond 40 bits");
  return "";
}

}  // namespace rs::ondisk::testing
