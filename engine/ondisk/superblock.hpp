// md v1.2 superblock (struct mdp_superblock_1): encode, decode, validate.
// Pure: no I/O. Field names follow md. See ../shared/reference/md-ondisk.md.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace rs::ondisk {

inline constexpr uint32_t kSbMagic = 0xa92b4efc;
inline constexpr uint64_t kSbOffsetBytes = 4096;         // v1.2: 4 KiB from the member start
inline constexpr uint64_t kSbOffsetSectors = 8;
inline constexpr uint64_t kMaxSector = ~uint64_t{0};
inline constexpr uint16_t kRoleSpare = 0xffff;
inline constexpr uint16_t kRoleFaulty = 0xfffe;
inline constexpr uint16_t kRoleJournal = 0xfffd;
inline constexpr uint32_t kMaxDevLimit = (4096 - 256) / 2;  // the kernel's bound on max_dev
inline constexpr uint32_t kFeatureBitmapOffset = 1;
inline constexpr uint32_t kFeatureRecoveryOffset = 2;
inline constexpr uint8_t kDevflagWriteMostly = 1;

using Uuid = std::array<uint8_t, 16>;

struct Superblock {
  uint32_t major_version = 1;
  uint32_t feature_map = 0;
  Uuid set_uuid{};
  std::string set_name;            // at most 32 bytes ("host:name")
  uint64_t ctime = 0;              // seconds (low 40 bits)
  int32_t level = 1;
  uint32_t layout = 0;
  uint64_t size = 0;               // used sectors per member
  uint32_t chunksize = 0;          // sectors
  uint32_t raid_disks = 0;
  int32_t bitmap_offset = 0;       // sectors from the superblock, signed
  uint64_t data_offset = 0;        // sectors
  uint64_t data_size = 0;          // sectors
  uint64_t super_offset = kSbOffsetSectors;
  uint64_t recovery_offset = 0;    // sectors (valid when feature bit 2 is set)
  uint32_t dev_number = 0;         // index into dev_roles
  uint32_t cnt_corrected_read = 0;
  Uuid device_uuid{};
  uint8_t devflags = 0;
  uint64_t utime = 0;
  uint64_t events = 0;
  uint64_t resync_offset = kMaxSector;  // kMaxSector = clean
  std::vector<uint16_t> dev_roles;      // size() is max_dev

  uint16_t role() const { return dev_number < dev_roles.size() ? dev_roles[dev_number] : kRoleSpare; }
};

// Bytes the superblock occupies: 256 + 2 * max_dev (the checksummed part).
size_t superblock_bytes(const Superblock& sb);

// Encodes into a 4096-byte block (zero padded) with sb_csum computed.
std::array<uint8_t, 4096> encode(const Superblock& sb);

// md's checksum over the first 256 + 2*max_dev bytes, with the sb_csum field taken as 0.
uint32_t checksum(std::span<const uint8_t> block);

struct DecodeResult {
  bool ok = false;
  std::string error;   // why it was rejected, e.g. "bad magic 0x00000000 (expected 0xa92b4efc)"
  Superblock sb;
};

// Decodes the 4 KiB block read at byte 4096 of a member of `device_bytes`
// bytes and validates every field against that device: magic, version,
// checksum, max_dev bound, super_offset, data_offset/data_size/size inside
// the device, bitmap inside the metadata area, level/layout/chunk sanity,
// raid_disks within max_dev, dev_number within max_dev, roles in range.
DecodeResult decode(std::span<const uint8_t> block, uint64_t device_bytes);

// Level / layout helpers for printing like mdadm.
std::string level_name(int32_t level);             // "raid1", "raid10", "raid5"
std::string raid10_layout_name(uint32_t layout);   // "near=2", "far=2", "offset=2"
std::string uuid_to_string(const Uuid& u);         // mdadm style "xxxxxxxx:xxxxxxxx:xxxxxxxx:xxxxxxxx"
Uuid random_uuid();

}  // namespace rs::ondisk
