// md v1.2 superblock: byte layout and checksum against hand-made buffers
// (offsets and checksum rule from engine/ondisk/README.md), round trips,
// and one rejection per validation rule with its reason.
#include <catch2/catch.hpp>
#include <cstring>
#include <functional>
#include <set>
#include <vector>

#include "../../common/result_helpers.hpp"
#include "ondisk/superblock.hpp"
#include "sb_fixtures.hpp"

using namespace rs::ondisk;
using namespace rs::ondisk::testing;

namespace {

// Little-endian writers for the hand-made buffers (deliberately not the
// engine's le.hpp).
void w16(uint8_t* b, size_t off, uint16_t v) {
  b[off] = v & 0xff;
  b[off + 1] = v >> 8;
}
void w32(uint8_t* b, size_t off, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[off + i] = (v >> (8 * i)) & 0xff;
}
void w64(uint8_t* b, size_t off, uint64_t v) {
  for (int i = 0; i < 8; ++i) b[off + i] = (v >> (8 * i)) & 0xff;
}

// The checksum rule as engine/ondisk/README.md states it: with sb_csum taken as 0, sum
// the little-endian 32-bit words of the first 256 + 2*max_dev bytes (a
// trailing half word as 16 bits) into 64 bits, then fold the carry once.
uint32_t reference_csum(const uint8_t* b, uint32_t max_dev) {
  const size_t len = 256 + 2 * size_t{max_dev};
  uint64_t sum = 0;
  size_t i = 0;
  for (; i + 4 <= len; i += 4) {
    const uint32_t word = b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (uint32_t{b[i + 3]} << 24);
    sum += i == 216 ? 0 : word;
  }
  if (len - i == 2) sum += b[i] | (b[i + 1] << 8);
  return static_cast<uint32_t>((sum & 0xffffffffu) + (sum >> 32));
}

std::array<uint8_t, 4096> recsum(std::array<uint8_t, 4096> b) {
  uint32_t max_dev = b[220] | (b[221] << 8) | (b[222] << 16) | (uint32_t{b[223]} << 24);
  if (max_dev > 1920) max_dev = 1920;
  w32(b.data(), 216, reference_csum(b.data(), max_dev));
  return b;
}

}  // namespace

TEST_CASE("checksum: literal known answers", "[superblock][checksum]") {
  SECTION("trailing half word is added as 16 bits") {
    std::array<uint8_t, 4096> b{};
    w32(b.data(), 0, 0xa92b4efc);
    w32(b.data(), 4, 1);
    w32(b.data(), 220, 1);  // max_dev 1: 258 bytes, ends in a half word
    w16(b.data(), 256, 1);
    w16(b.data(), 258, 0x7777);  // beyond max_dev: not summed
    CHECK(checksum(b) == 0xa92b4efcu + 1 + 1 + 1);
  }
  SECTION("carry out of 32 bits is folded back in; sb_csum is ignored") {
    std::array<uint8_t, 4096> b{};
    w32(b.data(), 0, 0xa92b4efc);
    std::memset(b.data() + 16, 0xff, 16);  // four 0xffffffff words
    std::memset(b.data() + 216, 0xff, 4);  // stale sb_csum
    // 0xa92b4efc + 4 * 0xffffffff = 0x4_a92b4ef8 -> 0xa92b4ef8 + 4
    CHECK(checksum(b) == 0xa92b4efcu);
  }
  SECTION("short buffers are summed only as far as they go") {
    std::array<uint8_t, 100> b{};
    b[0] = 5;
    CHECK(checksum(b) == 5);
    std::array<uint8_t, 300> c{};
    w32(c.data(), 220, 1920);  // claims 4096 bytes, only 300 present
    w32(c.data(), 296, 9);
    CHECK(checksum(c) == 1920 + 9);
  }
}

TEST_CASE("encode matches a hand-made md v1.2 superblock byte for byte", "[superblock][checksum]") {
  // Every field at its md offset, max_dev odd so the checksum ends on a
  // half word.
  std::array<uint8_t, 4096> hand{};
  uint8_t* b = hand.data();
  const Uuid set_uuid{0x3a, 0x2b, 0x1c, 0x0d, 0xfe, 0xef, 0xd0, 0xc1,
                      0xb2, 0xa3, 0x94, 0x85, 0x76, 0x67, 0x58, 0x49};
  const Uuid dev_uuid{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  w32(b, 0, 0xa92b4efc);
  w32(b, 4, 1);
  w32(b, 8, 3);  // bitmap + recovery offset
  std::memcpy(b + 16, set_uuid.data(), 16);
  std::memcpy(b + 32, "box:data", 8);
  w64(b, 64, 1712345678);
  w32(b, 72, 10);
  w32(b, 76, 0x10201);
  w64(b, 80, 120832);
  w32(b, 88, 256);
  w32(b, 92, 4);
  w32(b, 96, 8);
  w64(b, 128, 4096);
  w64(b, 136, 126976);
  w64(b, 144, 8);
  w64(b, 152, 65536);
  w32(b, 160, 2);
  w32(b, 164, 7);
  std::memcpy(b + 168, dev_uuid.data(), 16);
  b[184] = 1;
  b[185] = 9;
  w16(b, 186, 8);
  w32(b, 188, 4000);
  w64(b, 192, 1712349999);
  w64(b, 200, 0x123456789ull);
  w64(b, 208, 5000);
  w32(b, 220, 5);
  const uint16_t roles[5] = {0, 1, 2, 0xfffe, 3};
  for (int i = 0; i < 5; ++i) w16(b, 256 + 2 * i, roles[i]);
  const uint32_t expected = reference_csum(b, 5);
  w32(b, 216, expected);

  Superblock sb;
  sb.feature_map = 3;
  sb.set_uuid = set_uuid;
  sb.set_name = "box:data";
  sb.ctime = 1712345678;
  sb.level = 10;
  sb.layout = 0x10201;
  sb.size = 120832;
  sb.chunksize = 256;
  sb.raid_disks = 4;
  sb.bitmap_offset = 8;
  sb.data_offset = 4096;
  sb.data_size = 126976;
  sb.super_offset = 8;
  sb.recovery_offset = 65536;
  sb.dev_number = 2;
  sb.cnt_corrected_read = 7;
  sb.device_uuid = dev_uuid;
  sb.devflags = 1;
  sb.bblog_shift = 9;
  sb.bblog_size = 8;
  sb.bblog_offset = 4000;
  sb.utime = 1712349999;
  sb.events = 0x123456789ull;
  sb.resync_offset = 5000;
  sb.dev_roles.assign(roles, roles + 5);

  CHECK(superblock_bytes(sb) == 266);
  CHECK(checksum(hand) == expected);
  const auto enc = encode(sb);
  for (size_t i = 0; i < hand.size(); ++i) {
    INFO("byte " << i);
    REQUIRE(enc[i] == hand[i]);
  }
  const auto d = decode(hand, (131072 + 8192) * 512ull);
  INFO(rs::test::error_text(d));
  REQUIRE(d.ok());
  CHECK(*d == sb);
  CHECK(d->role() == 2);
}

TEST_CASE("encode/decode round trip of every field", "[superblock]") {
  const Geometry geos[] = {kRaid1x2, kRaid10n2, kRaid10f2, kRaid10o2, kRaid5x3};
  for (const auto& g : geos) {
    for (uint32_t dev = 0; dev < g.raid_disks; ++dev) {
      DYNAMIC_SECTION(g.name << " member " << dev) {
        Superblock sb = make_sb(g, dev);
        sb.feature_map = kFeatureBitmapOffset | kFeatureRecoveryOffset;
        sb.bitmap_offset = 8;
        sb.recovery_offset = 12345;
        sb.cnt_corrected_read = 0xdeadbeef;
        sb.devflags = kDevflagWriteMostly;
        sb.bblog_shift = 9;
        sb.bblog_size = 8;
        sb.bblog_offset = 1992;
        sb.events = 0xfedcba9876543210ull;
        sb.resync_offset = 777;
        sb.ctime = (uint64_t{1} << 40) - 1;  // largest 40-bit time
        sb.utime = 1 + dev;
        sb.dev_roles[g.raid_disks] = kRoleFaulty;
        sb.dev_roles[383] = kRoleJournal;
        const auto block = encode(sb);
        const auto d = decode(block, kDevBytes);
        INFO(rs::test::error_text(d));
        REQUIRE(d.ok());
        CHECK(*d == sb);
        CHECK(d->role() == dev);
        CHECK(encode(*d) == block);
      }
    }
  }
}

TEST_CASE("names, times and the uuid", "[superblock]") {
  SECTION("a 32-byte name has no NUL and still round-trips; longer is cut") {
    Superblock sb = make_sb(kRaid1x2);
    sb.set_name = std::string(32, 'n');
    auto d = decode(encode(sb), kDevBytes);
    REQUIRE(d.ok());
    CHECK(d->set_name == sb.set_name);
    sb.set_name = std::string(40, 'x');
    d = decode(encode(sb), kDevBytes);
    REQUIRE(d.ok());
    CHECK(d->set_name == std::string(32, 'x'));
    CHECK(rs::test::error_text(validate(sb, kDevBytes)).find("set_name is 40 bytes") != std::string::npos);
  }
  SECTION("ctime/utime: microseconds in the top 24 bits are dropped") {
    auto b = encode(make_sb(kRaid1x2));
    w64(b.data(), 64, (uint64_t{999999} << 40) | 1700000000);
    w64(b.data(), 192, (uint64_t{5} << 40) | 1700000001);
    const auto d = decode(recsum(b), kDevBytes);
    REQUIRE(d.ok());
    CHECK(d->ctime == 1700000000);
    CHECK(d->utime == 1700000001);
    Superblock sb = make_sb(kRaid1x2);
    sb.ctime = (uint64_t{3} << 40) | 42;
    const auto e = encode(sb);
    CHECK(e[64] == 42);
    CHECK(e[69] == 0);  // byte 5 = bits 40..47: zero
  }
  SECTION("uuid_to_string is mdadm's 4 x 8 hex digits") {
    const Uuid u{0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
                 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff};
    CHECK(uuid_to_string(u) == "00112233:44556677:8899aabb:ccddeeff");
  }
  SECTION("random_uuid differs between calls") {
    std::set<Uuid> seen;
    for (int i = 0; i < 16; ++i) seen.insert(random_uuid());
    CHECK(seen.size() == 16);
  }
  SECTION("level and layout names as mdadm prints them") {
    CHECK(level_name(1) == "raid1");
    CHECK(level_name(5) == "raid5");
    CHECK(level_name(10) == "raid10");
    CHECK(level_name(7) == "-unknown-");
    CHECK(raid10_layout_name(0x102) == "near=2");
    CHECK(raid10_layout_name(0x201) == "far=2");
    CHECK(raid10_layout_name(0x10201) == "offset=2");
    CHECK(raid10_layout_name(0x301) == "far=3");
    CHECK(raid10_layout_name(0x202) == "near=2, far=2");
    CHECK(raid10_layout_name(0x101) == "NO REDUNDANCY");
    CHECK(raid5_layout_name(0) == "left-asymmetric");
    CHECK(raid5_layout_name(1) == "right-asymmetric");
    CHECK(raid5_layout_name(2) == "left-symmetric");
    CHECK(raid5_layout_name(3) == "right-symmetric");
    CHECK(raid5_layout_name(4) == "-unknown-");
    // mdadm's r6layout, first name per number.
    CHECK(raid6_layout_name(2) == "left-symmetric");
    CHECK(raid6_layout_name(16) == "left-asymmetric-6");
    CHECK(raid6_layout_name(19) == "right-symmetric-6");
    CHECK(raid6_layout_name(8) == "ddf-zero-restart");
    CHECK(raid6_layout_name(20) == "parity-first-6");
    CHECK(raid6_layout_name(6) == "-unknown-");
  }
}

TEST_CASE("decode rejects each invalid field with its reason", "[superblock][validate]") {
  struct Case {
    const char* name;
    Geometry geo;
    std::function<void(Superblock&)> mutate;
    std::string reason;  // substring expected in the error
    uint64_t device_bytes = kDevBytes;
  };
  const std::vector<Case> cases = {
      {"bad version", kRaid1x2, [](Superblock& s) { s.major_version = 0; }, "unsupported major_version 0"},
      {"level 7", kRaid1x2, [](Superblock& s) { s.level = 7; },
       "level 7 is not supported (raid1, raid10, raid5, raid6)"},
      {"level 0", kRaid10n2, [](Superblock& s) { s.level = 0; }, "level 0 is not supported"},
      {"raid10 layout 0", kRaid10n2, [](Superblock& s) { s.layout = 0; }, "raid10 layout 0x0 is invalid"},
      {"raid10 one copy", kRaid10n2, [](Superblock& s) { s.layout = 0x101; }, "no redundancy"},
      {"raid10 more copies than disks", kRaid10n2, [](Superblock& s) { s.layout = 0x105; },
       "raid10 layout 0x105 is invalid: 5 copies need at least 5 devices, raid_disks is 4"},
      {"raid10 far sets", kRaid10f2, [](Superblock& s) { s.layout = 0x20201; },
       "raid10 layout 0x20201 is invalid"},
      {"raid10 chunk not power of two", kRaid10o2, [](Superblock& s) { s.chunksize = 12; },
       "raid10 chunksize 12 sectors is invalid: it must be a power of two >= 8 sectors"},
      {"raid10 chunk below a page", kRaid10n2, [](Superblock& s) { s.chunksize = 4; }, "chunksize 4 sectors"},
      {"raid5 chunk 0", kRaid5x3, [](Superblock& s) { s.chunksize = 0; }, "raid5 chunksize 0 sectors"},
      {"raid5 layout 4", kRaid5x3, [](Superblock& s) { s.layout = 4; }, "raid5 layout 4 is not supported"},
      {"raid5 one disk", kRaid5x3, [](Superblock& s) { s.raid_disks = 1; }, "raid5 needs at least 2 devices"},
      {"raid6 of 3", kRaid5x3, [](Superblock& s) { s.level = 6; }, "raid6 needs at least 4 devices, raid_disks is 3"},
      {"raid6 layout 20", kRaid10n2, [](Superblock& s) { s.level = 6, s.layout = 20; },
       "raid6 layout 20 is not supported"},
      {"raid6 layout 5", kRaid10n2, [](Superblock& s) { s.level = 6, s.layout = 5; },
       "raid6 layout 5 is not supported"},
      {"raid1 chunk", kRaid1x2, [](Superblock& s) { s.chunksize = 128; }, "raid1 chunksize 128 is invalid"},
      {"raid1 layout", kRaid1x2, [](Superblock& s) { s.layout = 1; }, "raid1 layout 0x1 is invalid"},
      {"raid_disks 0", kRaid1x2, [](Superblock& s) { s.raid_disks = 0; }, "raid_disks is 0"},
      {"raid_disks > max_dev", kRaid10n2, [](Superblock& s) { s.dev_roles.resize(3); },
       "raid_disks 4 exceeds max_dev 3"},
      {"dev_number out of range", kRaid1x2, [](Superblock& s) { s.dev_number = 384; },
       "dev_number 384 is outside dev_roles (max_dev 384)"},
      {"role above raid_disks", kRaid10n2, [](Superblock& s) { s.dev_roles[5] = 9; },
       "dev_roles[5] = 9 is >= raid_disks 4 and is not spare (0xffff), faulty (0xfffe) or journal (0xfffd)"},
      {"role claimed twice", kRaid10n2, [](Superblock& s) { s.dev_roles[7] = 1; },
       "role 1 is claimed by both dev_roles[1] and dev_roles[7]"},
      {"super_offset", kRaid1x2, [](Superblock& s) { s.super_offset = 0; }, "super_offset 0 is wrong"},
      {"data_offset inside the superblock", kRaid1x2, [](Superblock& s) { s.data_offset = 9; },
       "data_offset 9 overlaps the superblock (which ends at sector 10)"},
      {"size 0", kRaid1x2, [](Superblock& s) { s.size = 0; }, "size is 0"},
      {"size > data_size", kRaid1x2, [](Superblock& s) { s.data_size = s.size - 1; }, "exceeds data_size"},
      {"data_size past the end", kRaid1x2, [](Superblock& s) { s.data_size = kDevSectors; },
       "data_offset 2048 + data_size 131072 sectors runs past the end of the device (131072 sectors)"},
      {"data_offset past the end", kRaid1x2, [](Superblock& s) { s.data_offset = ~uint64_t{0} - 4; },
       "runs past the end of the device"},
      {"bitmap before the superblock end", kRaid1x2,
       [](Superblock& s) {
         s.feature_map = kFeatureBitmapOffset;
         s.bitmap_offset = -8;
       },
       "bitmap at sector 0 (offset -8 from the superblock"},
      {"bitmap in the data", kRaid1x2,
       [](Superblock& s) {
         s.feature_map = kFeatureBitmapOffset;
         s.bitmap_offset = 2040;
       },
       "bitmap at sector 2048"},
      {"bad block log in the data", kRaid5x3,
       [](Superblock& s) {
         s.bblog_size = 8;
         s.bblog_offset = 2036;
       },
       "bad block log at sector 2044"},
      {"recovery_offset past size", kRaid1x2,
       [](Superblock& s) {
         s.feature_map = kFeatureRecoveryOffset;
         s.recovery_offset = s.size + 1;
       },
       "recovery_offset"},
      {"resync_offset past size", kRaid1x2, [](Superblock& s) { s.resync_offset = s.size + 1; },
       "resync_offset"},
      {"reshape feature", kRaid5x3, [](Superblock& s) { s.feature_map = 4; },
       "feature_map 0x4 uses features RaidScope does not support: reshape-active"},
      {"bad blocks recorded", kRaid1x2, [](Superblock& s) { s.feature_map = 1 | 8; }, "bad-blocks"},
      {"unknown feature bit", kRaid1x2, [](Superblock& s) { s.feature_map = 1u << 20; }, "unknown bit 20"},
      {"devflags", kRaid1x2, [](Superblock& s) { s.devflags = 0x80; }, "devflags 0x80 has unknown bits"},
      {"data past end of a small device", kRaid1x2, [](Superblock&) {},
       "data_offset 2048 + size 126976 sectors runs past the end of the device (65536 sectors)", 32ull << 20},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.name) {
      Superblock sb = make_sb(c.geo, 1);
      c.mutate(sb);
      const auto d = decode(encode(sb), c.device_bytes);
      CHECK_FALSE(d.ok());
      INFO("error: " << rs::test::error_text(d));
      CHECK(rs::test::error_text(d).find(c.reason) != std::string::npos);
      CHECK(rs::test::error_text(validate(sb, c.device_bytes)) == rs::test::error_text(d));
    }
  }
}

TEST_CASE("decode rejects damaged blocks and devices", "[superblock][validate]") {
  const auto good = encode(make_sb(kRaid10o2, 3));
  REQUIRE(decode(good, kDevBytes).ok());

  SECTION("one flipped byte: checksum, with both numbers") {
    auto b = good;
    b[40] ^= 0x20;  // in set_name
    const uint32_t stored = b[216] | (b[217] << 8) | (b[218] << 16) | (uint32_t{b[219]} << 24);
    const uint32_t computed = reference_csum(b.data(), 384);
    REQUIRE(stored != computed);
    char want[128];
    std::snprintf(want, sizeof want,
                  "superblock checksum 0x%08x does not match computed 0x%08x: the superblock is corrupt",
                  stored, computed);
    const auto d = decode(b, kDevBytes);
    CHECK_FALSE(d.ok());
    CHECK(rs::test::error_text(d) == want);
  }
  SECTION("a flipped dev_roles byte is covered by the checksum") {
    auto b = good;
    b[256 + 2 * 383] ^= 1;  // last role counted by max_dev 384
    CHECK(rs::test::error_text(decode(b, kDevBytes)).find("checksum") != std::string::npos);
    auto c = good;
    c[256 + 2 * 384] ^= 1;  // beyond max_dev: not part of the superblock
    CHECK(decode(c, kDevBytes).ok());
  }
  SECTION("bad magic") {
    auto b = good;
    std::memset(b.data(), 0, 4);
    CHECK(rs::test::error_text(decode(b, kDevBytes)) ==
          "not an md superblock (magic 0x00000000, expected 0xa92b4efc)");
    std::array<uint8_t, 4096> zero{};
    CHECK(rs::test::error_text(decode(zero, kDevBytes)).find("not an md superblock (magic 0x00000000") == 0);
  }
  SECTION("max_dev beyond the kernel's bound") {
    auto b = good;
    w32(b.data(), 220, 5000);
    CHECK(rs::test::error_text(decode(b, kDevBytes)) == "max_dev 5000 exceeds 1920");
    w32(b.data(), 220, 1921);
    CHECK(rs::test::error_text(decode(b, kDevBytes)) == "max_dev 1921 exceeds 1920");
  }
  SECTION("reserved padding must be zero") {
    auto b = good;
    b[12] = 1;
    CHECK(rs::test::error_text(decode(recsum(b), kDevBytes)).find("pad0") != std::string::npos);
    auto c = good;
    c[250] = 1;
    CHECK(rs::test::error_text(decode(recsum(c), kDevBytes)).find("pad3") != std::string::npos);
  }
  SECTION("truncated device") {
    CHECK(rs::test::error_text(decode(good, 4096 + 100)).find("too small to hold a v1.2 superblock") !=
          std::string::npos);
    CHECK(rs::test::error_text(decode(good, 4096 + 512))
              .find("ends inside the superblock (needs 5120 bytes)") != std::string::npos);
    CHECK(decode(good, 0).ok() == false);
  }
  SECTION("short buffer") {
    CHECK(rs::test::error_text(decode(std::span(good).first(100), kDevBytes))
              .find("shorter than the 256-byte header") != std::string::npos);
    CHECK(rs::test::error_text(decode(std::span(good).first(600), kDevBytes)) ==
          "superblock with max_dev 384 needs 1024 bytes but the buffer holds 600");
    CHECK(decode(std::span(good).first(1024), kDevBytes).ok());
  }
}

TEST_CASE("valid but unusual superblocks are accepted", "[superblock][validate]") {
  SECTION("raid10 near=2 far=2 on 4 devices") {
    Superblock sb = make_sb(kRaid10n2);
    sb.layout = 0x202;
    CHECK(validate(sb, kDevBytes).ok());
  }
  SECTION("spare, faulty and journal roles beyond raid_disks") {
    Superblock sb = make_sb(kRaid5x3, 4);
    sb.dev_roles[3] = kRoleFaulty;
    sb.dev_roles[4] = kRoleJournal;
    const auto d = decode(encode(sb), kDevBytes);
    REQUIRE(d.ok());
    CHECK(d->role() == kRoleJournal);
  }
  SECTION("a degraded array (a role nobody holds)") {
    Superblock sb = make_sb(kRaid1x2);
    sb.dev_roles[1] = kRoleFaulty;
    CHECK(decode(encode(sb), kDevBytes).ok());
  }
  SECTION("max_dev at the kernel bound fills the 4 KiB block") {
    Superblock sb = make_sb(kRaid1x2);
    sb.dev_roles.resize(kMaxDevLimit, kRoleSpare);
    CHECK(superblock_bytes(sb) == 4096);
    const auto d = decode(encode(sb), kDevBytes);
    INFO(rs::test::error_text(d));
    REQUIRE(d.ok());
    CHECK(d->dev_roles.size() == kMaxDevLimit);
    sb.data_offset = 8 + 7;  // the superblock needs 8 sectors now
    CHECK(rs::test::error_text(validate(sb, kDevBytes)).find("overlaps the superblock") != std::string::npos);
  }
  SECTION("smallest raid1: one device, one role, data right after the superblock") {
    Superblock sb = make_sb(Geometry{"raid1x1", 1, 0, 1, 0});
    sb.dev_roles = {0};
    sb.data_offset = 9;
    sb.data_size = sb.size = 100;
    const auto d = decode(encode(sb), 4096 + 109 * 512 - 4096);
    INFO(rs::test::error_text(d));
    CHECK(d.ok());
  }
  SECTION("a resync checkpoint inside the array") {
    Superblock sb = make_sb(kRaid5x3);
    sb.resync_offset = sb.size;
    CHECK(decode(encode(sb), kDevBytes).ok());
  }
}
