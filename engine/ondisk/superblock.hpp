// md v1.2 superblock (struct mdp_superblock_1): encode, decode, validate.
// Pure: no I/O. Field names follow md. See README.md in this folder.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/result.hpp"

namespace rs::ondisk {

inline constexpr uint32_t kSbMagic = 0xa92b4efc;
inline constexpr uint64_t kSbOffsetBytes = 4096;  // v1.2: 4 KiB from the member start
inline constexpr uint64_t kSbOffsetSectors = 8;
inline constexpr uint64_t kMaxSector = ~uint64_t{0};
inline constexpr uint16_t kRoleSpare = 0xffff;
inline constexpr uint16_t kRoleFaulty = 0xfffe;
inline constexpr uint16_t kRoleJournal = 0xfffd;
inline constexpr uint32_t kMaxDevLimit = (4096 - 256) / 2;  // the kernel's bound on max_dev
inline constexpr uint32_t kFeatureBitmapOffset = 1;
inline constexpr uint32_t kFeatureRecoveryOffset = 2;
// The feature bits RaidScope reads and writes. decode() rejects any other
// bit (reshape, bad blocks recorded, replacement, journal, PPL, ...) with a
// reason naming it, rather than silently mishandling an array in that state.
inline constexpr uint32_t kFeaturesSupported = kFeatureBitmapOffset | kFeatureRecoveryOffset;
inline constexpr uint8_t kDevflagWriteMostly = 1;
inline constexpr uint8_t kDevflagFailFast = 2;  // md's FailFast1
inline constexpr uint8_t kDevflagsKnown = kDevflagWriteMostly | kDevflagFailFast;

using Uuid = std::array<uint8_t, 16>;

struct Superblock {
  uint32_t major_version = 1;
  uint32_t feature_map = 0;
  Uuid set_uuid{};
  std::string set_name;  // at most 32 bytes ("host:name")
  uint64_t ctime = 0;    // seconds (low 40 bits)
  int32_t level = 1;
  uint32_t layout = 0;
  uint64_t size = 0;       // used sectors per member
  uint32_t chunksize = 0;  // sectors
  uint32_t raid_disks = 0;
  int32_t bitmap_offset = 0;  // sectors from the superblock, signed
  uint64_t data_offset = 0;   // sectors
  uint64_t data_size = 0;     // sectors
  uint64_t super_offset = kSbOffsetSectors;
  uint64_t recovery_offset = 0;  // sectors (valid when feature bit 2 is set)
  uint32_t dev_number = 0;       // index into dev_roles
  uint32_t cnt_corrected_read = 0;
  Uuid device_uuid{};
  uint8_t devflags = 0;
  uint64_t utime = 0;
  uint64_t events = 0;
  uint64_t resync_offset = kMaxSector;  // kMaxSector = clean
  std::vector<uint16_t> dev_roles;      // size() is max_dev

  // Bad block log location (mdadm reserves one by default; md only records
  // entries there and sets feature bit 8, which we reject). Kept so that
  // rewriting an mdadm-made member does not drop the reservation.
  uint8_t bblog_shift = 0;
  uint16_t bblog_size = 0;   // sectors, 0 = no log
  int32_t bblog_offset = 0;  // sectors from the superblock, signed

  bool operator==(const Superblock&) const = default;
  uint16_t role() const { return dev_number < dev_roles.size() ? dev_roles[dev_number] : kRoleSpare; }
};

// Bytes the superblock occupies: 256 + 2 * max_dev (the checksummed part).
size_t superblock_bytes(const Superblock& sb);

// Encodes into a 4096-byte block (zero padded) with sb_csum computed.
// set_name is cut at 32 bytes, dev_roles at kMaxDevLimit entries, ctime and
// utime at 40 bits (the microsecond bits are written as 0, as md does).
// encode() does not validate: call validate() first when the input is not
// known good.
std::array<uint8_t, 4096> encode(const Superblock& sb);

// md's checksum over the first 256 + 2*max_dev bytes, with the sb_csum field taken as 0.
// Never reads past block.size(): a block shorter than the checksummed range
// (or than 256 bytes) is summed as far as it goes.
uint32_t checksum(std::span<const uint8_t> block);

// Decodes the 4 KiB block read at byte 4096 of a member of `device_bytes`
// bytes and validates every field against that device: magic, version,
// checksum, max_dev bound, super_offset, data_offset/data_size/size inside
// the device, bitmap inside the metadata area, level/layout/chunk sanity,
// raid_disks within max_dev, dev_number within max_dev, roles in range.
// On success every invariant listed at validate() holds for the result; a
// rejection is Errc::corrupt naming the field, e.g. "not an md superblock
// (magic 0x00000000, expected 0xa92b4efc)".
Result<Superblock> decode(std::span<const uint8_t> block, uint64_t device_bytes);

// The field checks decode() applies after the checksum, usable on a
// Superblock built in memory before it is written. Returns the first reason
// it is not valid (Errc::corrupt).  Invariants of a valid superblock on a device of
// device_bytes (S = device_bytes / 512 sectors):
//   major_version 1; feature_map only kFeaturesSupported bits; max_dev
//   (dev_roles.size()) <= kMaxDevLimit; super_offset == 8;
//   level 1, 5 or 10; 1 <= raid_disks <= max_dev (raid5: >= 2);
//   raid1: layout 0, chunksize 0; raid5: layout 0..3; raid10: layout bits
//   above 16 clear, near, far >= 1, 2 <= near*far <= raid_disks;
//   raid5/raid10: chunksize a power of two >= 8;
//   super_offset + ceil((256 + 2*max_dev) / 512) <= data_offset;
//   0 < size <= data_size and data_offset + data_size <= S;
//   bitmap (if feature bit 0) and bad block log (if bblog_size) start after
//   the superblock and end at or before data_offset;
//   recovery_offset <= size when feature bit 1 is set;
//   resync_offset (array sectors) <= size (raid1) or size x raid_disks,
//   or kMaxSector; dev_number < max_dev;
//   every dev_roles entry is < raid_disks or spare/faulty/journal, and no
//   active role appears twice; devflags only kDevflagsKnown bits.
Status validate(const Superblock& sb, uint64_t device_bytes);

// Level / layout helpers for printing like mdadm.
std::string level_name(int32_t level);            // "raid1", "raid10", "raid5"
std::string raid10_layout_name(uint32_t layout);  // "near=2", "far=2", "offset=2", "near=2, far=2"
std::string raid5_layout_name(uint32_t layout);   // "left-symmetric", ...; "-unknown-" otherwise
// mdadm's r6layout name ("left-symmetric-6", ...); "-unknown-" otherwise.
std::string raid6_layout_name(uint32_t layout);
std::string uuid_to_string(const Uuid& u);        // mdadm style "xxxxxxxx:xxxxxxxx:xxxxxxxx:xxxxxxxx"
Uuid random_uuid();  // 16 bytes from std::random_device (the kernel's entropy on Linux)

}  // namespace rs::ondisk
