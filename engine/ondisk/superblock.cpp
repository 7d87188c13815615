// md v1.2 superblock codec. Field offsets are those of the kernel's
// struct mdp_superblock_1 (include/uapi/linux/raid/md_p.h); the checks
// follow what md's super_1_load / super_1_validate and the personalities
// refuse, plus what RaidScope itself cannot handle (named as such).
#include "ondisk/superblock.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>
#include <utility>

#include "base/strformat.hpp"
#include "ondisk/le.hpp"

namespace rs::ondisk {
namespace {

// Byte offsets inside struct mdp_superblock_1.
enum Off : size_t {
  kMagic = 0,
  kMajorVersion = 4,
  kFeatureMap = 8,
  kPad0 = 12,
  kSetUuid = 16,
  kSetName = 32,
  kCtime = 64,
  kLevel = 72,
  kLayout = 76,
  kSize = 80,
  kChunksize = 88,
  kRaidDisks = 92,
  kBitmapOffset = 96,
  // 100..127: new_level, reshape_position, delta_disks, new_layout,
  // new_chunk, new_offset: meaningful only with reshape, which we reject.
  kDataOffset = 128,
  kDataSize = 136,
  kSuperOffset = 144,
  kRecoveryOffset = 152,
  kDevNumber = 160,
  kCntCorrectedRead = 164,
  kDeviceUuid = 168,
  kDevflags = 184,
  kBblogShift = 185,
  kBblogSize = 186,
  kBblogOffset = 188,
  kUtime = 192,
  kEvents = 200,
  kResyncOffset = 208,
  kSbCsum = 216,
  kMaxDev = 220,
  kPad3 = 224,
  kDevRoles = 256,
};
constexpr size_t kHeaderBytes = 256;
constexpr size_t kNameBytes = 32;
constexpr size_t kPad3Bytes = 32;
constexpr uint64_t kTime40 = (uint64_t{1} << 40) - 1;

bool is_pow2(uint64_t v) {
  return v != 0 && (v & (v - 1)) == 0;
}

uint64_t div_round_up(uint64_t a, uint64_t b) {
  return a / b + (a % b != 0);
}

// Sectors the superblock occupies from super_offset (md rounds the same
// way to the logical block size; 512 is the smallest it can be).
uint64_t sb_sectors(size_t max_dev) {
  return div_round_up(kHeaderBytes + 2 * max_dev, 512);
}

std::string feature_names(uint32_t bits) {
  static constexpr const char* kNames[] = {
      "bitmap",       "recovery-offset", "reshape-active", "bad-blocks", "replacement", "reshape-backwards",
      "new-offset",   "recovery-bitmap", "clustered",      "journal",    "ppl",         "multiple-ppls",
      "raid0-layout",
  };
  std::string out;
  for (unsigned i = 0; i < 32; ++i) {
    if (!(bits & (1u << i))) continue;
    if (!out.empty()) out += ", ";
    out += i < std::size(kNames) ? kNames[i] : strformat("unknown bit %u", i);
  }
  return out;
}

std::string check_level_geometry(const Superblock& sb) {
  switch (sb.level) {
    case 1:
      if (sb.layout != 0)
        return strformat("raid1 layout 0x%x is invalid: raid1 has no layout (must be 0)", sb.layout);
      if (sb.chunksize != 0)
        return strformat("raid1 chunksize %u is invalid: raid1 has no chunks (must be 0)", sb.chunksize);
      return "";
    case 5:
      if (sb.raid_disks < 2)
        return strformat("raid5 needs at least 2 devices, raid_disks is %u", sb.raid_disks);
      if (sb.layout > 3)
        return strformat(
            "raid5 layout %u is not supported (0 left-asymmetric, 1 right-asymmetric, "
            "2 left-symmetric, 3 right-symmetric)",
            sb.layout);
      break;
    case 6:
      // mdadm: "at least 4 raid-devices needed for level 6".
      if (sb.raid_disks < 4) return strformat("raid6 needs at least 4 devices, raid_disks is %u", sb.raid_disks);
      if (sb.layout > 3 && (sb.layout < 16 || sb.layout > 19))
        return strformat(
            "raid6 layout %u is not supported (0 left-asymmetric, 1 right-asymmetric, 2 left-symmetric, "
            "3 right-symmetric, 16-19 the same with Q on the last device)",
            sb.layout);
      break;
    case 10: {
      const uint32_t near = sb.layout & 0xff, far = (sb.layout >> 8) & 0xff;
      if (sb.layout >> 17)
        return strformat(
            "raid10 layout 0x%x is invalid: far-set layouts (bits 17-18) and bits above are not supported",
            sb.layout);
      if (near == 0 || far == 0)
        return strformat("raid10 layout 0x%x is invalid: near copies %u and far copies %u must both be >= 1",
                         sb.layout, near, far);
      if (near * far < 2)
        return strformat("raid10 layout 0x%x is invalid: %u copy gives no redundancy (need near*far >= 2)",
                         sb.layout, near * far);
      if (near * far > sb.raid_disks)
        return strformat(
            "raid10 layout 0x%x is invalid: %u copies need at least %u devices, raid_disks is %u", sb.layout,
            near * far, near * far, sb.raid_disks);
      break;
    }
    default:
      return strformat("level %d is not supported (raid1, raid10, raid5, raid6)", sb.level);
  }
  // raid5, raid6 and raid10: md needs a power-of-two chunk of at least a page.
  if (!is_pow2(sb.chunksize) || sb.chunksize < 8)
    return strformat("%s chunksize %u sectors is invalid: it must be a power of two >= 8 sectors (4 KiB)",
                     level_name(sb.level).c_str(), sb.chunksize);
  return "";
}

// A metadata region [start, start + len) given in sectors relative to the
// superblock must sit between the end of the superblock and data_offset.
std::string check_meta_region(const Superblock& sb, const char* what, int32_t rel, uint64_t len) {
  const int64_t start = static_cast<int64_t>(sb.super_offset) + rel;  // super_offset == 8 here
  const uint64_t sb_end = sb.super_offset + sb_sectors(sb.dev_roles.size());
  if (start < 0 || static_cast<uint64_t>(start) < sb_end ||
      static_cast<uint64_t>(start) + len > sb.data_offset)
    return strformat(
        "%s at sector %lld (offset %d from the superblock, %llu sectors) is not between the end of the "
        "superblock (sector %llu) and data_offset %llu",
        what, static_cast<long long>(start), rel, ull(len), ull(sb_end), ull(sb.data_offset));
  return "";
}

}  // namespace

size_t superblock_bytes(const Superblock& sb) {
  return kHeaderBytes + 2 * std::min<size_t>(sb.dev_roles.size(), kMaxDevLimit);
}

uint32_t checksum(std::span<const uint8_t> block) {
  const size_t max_dev = block.size() >= kMaxDev + 4 ? le::get32(block.data() + kMaxDev) : 0;
  // max_dev is untrusted: bound the range by what was actually read.
  size_t len = kHeaderBytes + 2 * std::min<size_t>(max_dev, block.size());
  len = std::min(len, block.size());
  uint64_t sum = 0;
  size_t i = 0;
  for (; i + 4 <= len; i += 4)
    if (i != kSbCsum) sum += le::get32(block.data() + i);
  if (len - i >= 2) sum += le::get16(block.data() + i);
  return static_cast<uint32_t>((sum & 0xffffffffu) + (sum >> 32));
}

std::array<uint8_t, 4096> encode(const Superblock& sb) {
  std::array<uint8_t, 4096> b{};
  uint8_t* p = b.data();
  const size_t max_dev = std::min<size_t>(sb.dev_roles.size(), kMaxDevLimit);
  le::put32(p + kMagic, kSbMagic);
  le::put32(p + kMajorVersion, sb.major_version);
  le::put32(p + kFeatureMap, sb.feature_map);
  std::memcpy(p + kSetUuid, sb.set_uuid.data(), 16);
  std::memcpy(p + kSetName, sb.set_name.data(), std::min(sb.set_name.size(), kNameBytes));
  le::put64(p + kCtime, sb.ctime & kTime40);
  le::put32(p + kLevel, static_cast<uint32_t>(sb.level));
  le::put32(p + kLayout, sb.layout);
  le::put64(p + kSize, sb.size);
  le::put32(p + kChunksize, sb.chunksize);
  le::put32(p + kRaidDisks, sb.raid_disks);
  le::put32(p + kBitmapOffset, static_cast<uint32_t>(sb.bitmap_offset));
  le::put64(p + kDataOffset, sb.data_offset);
  le::put64(p + kDataSize, sb.data_size);
  le::put64(p + kSuperOffset, sb.super_offset);
  le::put64(p + kRecoveryOffset, sb.recovery_offset);
  le::put32(p + kDevNumber, sb.dev_number);
  le::put32(p + kCntCorrectedRead, sb.cnt_corrected_read);
  std::memcpy(p + kDeviceUuid, sb.device_uuid.data(), 16);
  p[kDevflags] = sb.devflags;
  p[kBblogShift] = sb.bblog_shift;
  le::put16(p + kBblogSize, sb.bblog_size);
  le::put32(p + kBblogOffset, static_cast<uint32_t>(sb.bblog_offset));
  le::put64(p + kUtime, sb.utime & kTime40);
  le::put64(p + kEvents, sb.events);
  le::put64(p + kResyncOffset, sb.resync_offset);
  le::put32(p + kMaxDev, static_cast<uint32_t>(max_dev));
  for (size_t i = 0; i < max_dev; ++i) le::put16(p + kDevRoles + 2 * i, sb.dev_roles[i]);
  le::put32(p + kSbCsum, checksum(b));
  return b;
}

namespace {

// The first reason `sb` is not valid on a device of `device_bytes`, or "".
std::string first_problem(const Superblock& sb, uint64_t device_bytes) {
  const uint64_t dev_sectors = device_bytes / 512;
  const size_t max_dev = sb.dev_roles.size();
  if (sb.major_version != 1)
    return strformat("unsupported major_version %u (only 1 is supported)", sb.major_version);
  if (max_dev > kMaxDevLimit) return strformat("max_dev %zu exceeds %u", max_dev, kMaxDevLimit);
  if (sb.feature_map & ~kFeaturesSupported)
    return strformat("feature_map 0x%x uses features RaidScope does not support: %s", sb.feature_map,
                     feature_names(sb.feature_map & ~kFeaturesSupported).c_str());
  if (sb.super_offset != kSbOffsetSectors)
    return strformat("super_offset %llu is wrong: a v1.2 superblock is at sector %llu", ull(sb.super_offset),
                     ull(kSbOffsetSectors));
  if (sb.set_name.size() > kNameBytes)
    return strformat("set_name is %zu bytes, more than %zu", sb.set_name.size(), kNameBytes);

  if (sb.level != 1 && sb.level != 5 && sb.level != 6 && sb.level != 10)
    return strformat("level %d is not supported (raid1, raid10, raid5, raid6)", sb.level);
  if (sb.raid_disks == 0) return "raid_disks is 0";
  if (sb.raid_disks > max_dev) return strformat("raid_disks %u exceeds max_dev %zu", sb.raid_disks, max_dev);
  if (auto e = check_level_geometry(sb); !e.empty()) return e;

  const uint64_t sb_end = sb.super_offset + sb_sectors(max_dev);
  if (sb.data_offset < sb_end)
    return strformat("data_offset %llu overlaps the superblock (which ends at sector %llu)",
                     ull(sb.data_offset), ull(sb_end));
  if (sb.size == 0) return "size is 0: the member holds no array data";
  if (sb.data_offset > dev_sectors || sb.size > dev_sectors - sb.data_offset)
    return strformat("data_offset %llu + size %llu sectors runs past the end of the device (%llu sectors)",
                     ull(sb.data_offset), ull(sb.size), ull(dev_sectors));
  if (sb.data_size > dev_sectors - sb.data_offset)
    return strformat(
        "data_offset %llu + data_size %llu sectors runs past the end of the device (%llu sectors)",
        ull(sb.data_offset), ull(sb.data_size), ull(dev_sectors));
  if (sb.size > sb.data_size)
    return strformat("size %llu sectors exceeds data_size %llu: the member is smaller than the array needs",
                     ull(sb.size), ull(sb.data_size));
  if (sb.feature_map & kFeatureBitmapOffset)
    // The bitmap superblock (one sector) at least must fit; its bits'
    // extent is the bitmap module's to check against the same bound.
    if (auto e = check_meta_region(sb, "bitmap", sb.bitmap_offset, 1); !e.empty()) return e;
  if (sb.bblog_size != 0)
    if (auto e = check_meta_region(sb, "bad block log", sb.bblog_offset, sb.bblog_size); !e.empty()) return e;
  if ((sb.feature_map & kFeatureRecoveryOffset) && sb.recovery_offset > sb.size)
    return strformat("recovery_offset %llu is past size %llu", ull(sb.recovery_offset), ull(sb.size));
  // resync_offset is md's recovery_cp, in array sectors: raid1's array is
  // `size` long, striped levels' at most size x raid_disks.
  const uint64_t array_bound = sb.level == 1 ? sb.size : sb.size * sb.raid_disks;
  if (sb.resync_offset != kMaxSector && sb.resync_offset > array_bound)
    return strformat("resync_offset %llu is past the array's end (%llu sectors; MaxSector means clean)",
                     ull(sb.resync_offset), ull(array_bound));

  if (sb.dev_number >= max_dev)
    return strformat("dev_number %u is outside dev_roles (max_dev %zu)", sb.dev_number, max_dev);
  // Which slot holds each active role, to catch a role claimed twice.
  std::vector<int32_t> holder(sb.raid_disks, -1);
  for (size_t i = 0; i < max_dev; ++i) {
    const uint16_t r = sb.dev_roles[i];
    if (r == kRoleSpare || r == kRoleFaulty || r == kRoleJournal) continue;
    if (r >= sb.raid_disks)
      return strformat(
          "dev_roles[%zu] = %u is >= raid_disks %u and is not spare (0xffff), faulty (0xfffe) or "
          "journal (0xfffd)",
          i, r, sb.raid_disks);
    if (holder[r] >= 0)
      return strformat("role %u is claimed by both dev_roles[%d] and dev_roles[%zu]", r, holder[r], i);
    holder[r] = static_cast<int32_t>(i);
  }
  if (sb.devflags & ~kDevflagsKnown) return strformat("devflags 0x%02x has unknown bits", sb.devflags);
  return "";
}

}  // namespace

Status validate(const Superblock& sb, uint64_t device_bytes) {
  if (std::string why = first_problem(sb, device_bytes); !why.empty()) return make_error(Errc::corrupt, why);
  return {};
}

Result<Superblock> decode(std::span<const uint8_t> block, uint64_t device_bytes) {
  auto fail = [](std::string why) { return make_error(Errc::corrupt, std::move(why)); };
  if (block.size() < kHeaderBytes)
    return fail(strformat("superblock buffer is %zu bytes, shorter than the 256-byte header", block.size()));
  if (device_bytes < kSbOffsetBytes + kHeaderBytes)
    return fail(strformat("device is %llu bytes: too small to hold a v1.2 superblock at byte %llu",
                          ull(device_bytes), ull(kSbOffsetBytes)));
  const uint8_t* p = block.data();
  const uint32_t magic = le::get32(p + kMagic);
  if (magic != kSbMagic)
    return fail(strformat("not an md superblock (magic 0x%08x, expected 0x%08x)", magic, kSbMagic));
  const uint32_t major = le::get32(p + kMajorVersion);
  if (major != 1) return fail(strformat("unsupported major_version %u (only 1 is supported)", major));
  const uint32_t max_dev = le::get32(p + kMaxDev);
  if (max_dev > kMaxDevLimit) return fail(strformat("max_dev %u exceeds %u", max_dev, kMaxDevLimit));
  const size_t need = kHeaderBytes + 2 * size_t{max_dev};
  if (block.size() < need)
    return fail(strformat("superblock with max_dev %u needs %zu bytes but the buffer holds %zu", max_dev,
                          need, block.size()));
  if (device_bytes < kSbOffsetBytes + need)
    return fail(strformat("device is %llu bytes: it ends inside the superblock (needs %llu bytes)",
                          ull(device_bytes), ull(kSbOffsetBytes + need)));
  const uint32_t stored = le::get32(p + kSbCsum), computed = checksum(block.first(need));
  if (stored != computed)
    return fail(
        strformat("superblock checksum 0x%08x does not match computed 0x%08x: the superblock is corrupt",
                  stored, computed));
  // md reserves these for future features and refuses a superblock that
  // uses them; so do we.
  if (le::get32(p + kPad0) != 0) return fail("reserved field pad0 is not zero (unknown newer format?)");
  if (std::any_of(p + kPad3, p + kPad3 + kPad3Bytes, [](uint8_t c) { return c != 0; }))
    return fail("reserved field pad3 is not zero (unknown newer format?)");

  Superblock sb;
  sb.major_version = major;
  sb.feature_map = le::get32(p + kFeatureMap);
  std::memcpy(sb.set_uuid.data(), p + kSetUuid, 16);
  const auto* name = reinterpret_cast<const char*>(p + kSetName);
  sb.set_name.assign(name, strnlen(name, kNameBytes));
  // ctime/utime: low 40 bits are seconds; md may put microseconds in the
  // top 24, which we drop (md and mdadm write 0 there).
  sb.ctime = le::get64(p + kCtime) & kTime40;
  sb.level = static_cast<int32_t>(le::get32(p + kLevel));
  sb.layout = le::get32(p + kLayout);
  sb.size = le::get64(p + kSize);
  sb.chunksize = le::get32(p + kChunksize);
  sb.raid_disks = le::get32(p + kRaidDisks);
  sb.bitmap_offset = static_cast<int32_t>(le::get32(p + kBitmapOffset));
  sb.data_offset = le::get64(p + kDataOffset);
  sb.data_size = le::get64(p + kDataSize);
  sb.super_offset = le::get64(p + kSuperOffset);
  sb.recovery_offset = le::get64(p + kRecoveryOffset);
  sb.dev_number = le::get32(p + kDevNumber);
  sb.cnt_corrected_read = le::get32(p + kCntCorrectedRead);
  std::memcpy(sb.device_uuid.data(), p + kDeviceUuid, 16);
  sb.devflags = p[kDevflags];
  sb.bblog_shift = p[kBblogShift];
  sb.bblog_size = le::get16(p + kBblogSize);
  sb.bblog_offset = static_cast<int32_t>(le::get32(p + kBblogOffset));
  sb.utime = le::get64(p + kUtime) & kTime40;
  sb.events = le::get64(p + kEvents);
  sb.resync_offset = le::get64(p + kResyncOffset);
  sb.dev_roles.resize(max_dev);
  for (size_t i = 0; i < max_dev; ++i) sb.dev_roles[i] = le::get16(p + kDevRoles + 2 * i);

  if (Status st = validate(sb, device_bytes); !st) return st.error();
  return sb;
}

std::string level_name(int32_t level) {
  // mdadm's names for every md level, so a foreign member prints sensibly.
  switch (level) {
    case -5:
      return "faulty";
    case -4:
      return "multipath";
    case -1:
      return "linear";
    case 0:
      return "raid0";
    case 1:
      return "raid1";
    case 4:
      return "raid4";
    case 5:
      return "raid5";
    case 6:
      return "raid6";
    case 10:
      return "raid10";
    default:
      return "-unknown-";
  }
}

std::string raid10_layout_name(uint32_t layout) {
  // As mdadm's print_r10_layout: copies of 1 are not mentioned.
  const uint32_t near = layout & 0xff, far = (layout >> 8) & 0xff;
  std::string out;
  if (near != 1) out = "near=" + std::to_string(near);
  if (far != 1) {
    if (!out.empty()) out += ", ";
    out += std::string(layout & 0x10000 ? "offset=" : "far=") + std::to_string(far);
  }
  if (near * far == 1) out = "NO REDUNDANCY";
  return out;
}

std::string raid5_layout_name(uint32_t layout) {
  static constexpr const char* kNames[] = {"left-asymmetric", "right-asymmetric", "left-symmetric",
                                           "right-symmetric"};
  return layout < std::size(kNames) ? kNames[layout] : "-unknown-";
}

std::string raid6_layout_name(uint32_t layout) {
  // mdadm's r6layout: the first name map_num finds for each number.
  static constexpr std::pair<uint32_t, const char*> kNames[] = {
      {0, "left-asymmetric"},     {1, "right-asymmetric"},    {2, "left-symmetric"},
      {3, "right-symmetric"},     {4, "parity-first"},        {5, "parity-last"},
      {8, "ddf-zero-restart"},    {9, "ddf-N-restart"},       {10, "ddf-N-continue"},
      {16, "left-asymmetric-6"},  {17, "right-asymmetric-6"}, {18, "left-symmetric-6"},
      {19, "right-symmetric-6"},  {20, "parity-first-6"},
  };
  for (const auto& [word, name] : kNames)
    if (word == layout) return name;
  return "-unknown-";
}

std::string uuid_to_string(const Uuid& u) {
  std::string s;
  s.reserve(35);
  static constexpr char kHex[] = "0123456789abcdef";
  for (size_t i = 0; i < u.size(); ++i) {
    if (i != 0 && i % 4 == 0) s += ':';
    s += kHex[u[i] >> 4];
    s += kHex[u[i] & 0xf];
  }
  return s;
}

Uuid random_uuid() {
  std::random_device rd;  // libstdc++ reads getrandom()/urandom on Linux
  Uuid u;
  for (size_t i = 0; i < u.size(); i += 4) {
    const uint32_t v = rd();
    for (int k = 0; k < 4; ++k) u[i + k] = static_cast<uint8_t>(v >> (8 * k));
  }
  return u;
}

}  // namespace rs::ondisk
