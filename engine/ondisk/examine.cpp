// mdadm --examine look-alike for v1.2 members. The layout of each line
// (label right-aligned to column 15, " : ", value) and the choice of which
// lines appear are mdadm's, observed on Debian's mdadm 4.2.
#include "ondisk/examine.hpp"

#include <cstdio>
#include <ctime>
#include <limits>

#include "base/printable.hpp"
#include "base/strformat.hpp"

namespace rs::ondisk {
namespace {

void line(std::string& out, const char* label, const std::string& value) {
  out += strformat("%15s : ", label);
  out += value;
  out += '\n';
}

// ctime(3) without its trailing newline, as mdadm's "%.24s" prints it.
std::string ctime_text(uint64_t seconds) {
  const auto t = static_cast<time_t>(seconds);
  struct tm tm {};
  if (!localtime_r(&t, &tm)) return "-";
  char buf[64];
  std::strftime(buf, sizeof buf, "%a %b %e %H:%M:%S %Y", &tm);
  return buf;
}

std::string role_text(const Superblock& sb) {
  const uint16_t r = sb.role();  // a dev_number outside dev_roles reads as spare, like mdadm's faulty
  if (r >= kRoleFaulty) return "spare";
  if (r == kRoleJournal) return "Journal";
  return strformat("Active device %u", r);
}

std::string array_state(const Superblock& sb) {
  std::string s;
  for (uint32_t d = 0; d < sb.raid_disks; ++d) {
    int cnt = 0;
    for (uint16_t r : sb.dev_roles) cnt += r == d;
    s += cnt == 1 ? 'A' : cnt == 0 ? '.' : cnt == 2 ? 'R' : '?';
  }
  return s + " ('A' == active, '.' == missing, 'R' == replacing)";
}

}  // namespace

uint64_t array_sectors(const Superblock& sb) {
  switch (sb.level) {
    case 1:
      return sb.size;
    case 5:
      if (sb.chunksize == 0 || sb.raid_disks < 2) return 0;
      return sb.size / sb.chunksize * sb.chunksize * (sb.raid_disks - 1);
    case 6:
      if (sb.chunksize == 0 || sb.raid_disks < 4) return 0;
      return sb.size / sb.chunksize * sb.chunksize * (sb.raid_disks - 2);
    case 10: {
      const uint64_t near = sb.layout & 0xff, far = (sb.layout >> 8) & 0xff;
      if (near == 0 || far == 0 || sb.chunksize == 0) return 0;
      const uint64_t chunks = sb.size / sb.chunksize / far * sb.raid_disks / near;
      return chunks * sb.chunksize;
    }
    default:
      return 0;
  }
}

std::string human_size(uint64_t bytes) {
  // mdadm works in centi-units rounded half up: (bytes * 200 / unit + 1) / 2.
  auto centi = [](uint64_t b, uint64_t unit) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>(b) * 200 / unit + 1) / 2);
  };
  auto two = [&centi](uint64_t b, uint64_t bin, uint64_t dec, const char* bu, const char* du) {
    const uint64_t cb = centi(b, bin), cd = centi(b, dec);
    return strformat(" (%llu.%02llu %s %llu.%02llu %s)", ull(cb / 100), ull(cb % 100), bu, ull(cd / 100),
                     ull(cd % 100), du);
  };
  constexpr uint64_t Ki = 1024, Mi = Ki * Ki, Gi = Mi * Ki, Ti = Gi * Ki;
  if (bytes < 5000 * Ki) return "";
  if (bytes < 2 * Gi) return two(bytes, Mi, 1000000ull, "MiB", "MB");
  if (bytes < 2 * Ti) return two(bytes, Gi, 1000000000ull, "GiB", "GB");
  return two(bytes, Ti, 1000000000000ull, "TiB", "TB");
}

std::string examine_text(const Superblock& sb, const std::string& device_path, uint64_t device_bytes) {
  const uint64_t dev_sectors = device_bytes / 512;
  std::string out = device_path + ":\n";
  line(out, "Magic", strformat("%08x", kSbMagic));
  line(out, "Version", sb.super_offset <= 4 ? "1.1" : sb.super_offset <= 8 ? "1.2" : "1.0");
  line(out, "Feature Map", strformat("0x%x", sb.feature_map));
  line(out, "Array UUID", uuid_to_string(sb.set_uuid));
  line(out, "Name", printable(sb.set_name, 32));  // a name from a disk: never a line of its own
  line(out, "Creation Time", ctime_text(sb.ctime));
  line(out, "Raid Level", level_name(sb.level));
  line(out, "Raid Devices", std::to_string(sb.raid_disks));
  out += '\n';
  line(out, "Avail Dev Size", strformat("%llu sectors", ull(sb.data_size)) + human_size(sb.data_size << 9));
  if (sb.level > 0) {
    if (const uint64_t a = array_sectors(sb); a != 0)
      line(out, "Array Size", strformat("%llu KiB", ull(a / 2)) + human_size(a << 9));
    if (sb.size != sb.data_size)
      line(out, "Used Dev Size", strformat("%llu sectors", ull(sb.size)) + human_size(sb.size << 9));
  }
  if (sb.data_offset) line(out, "Data Offset", strformat("%llu sectors", ull(sb.data_offset)));
  line(out, "Super Offset", strformat("%llu sectors", ull(sb.super_offset)));
  if (sb.feature_map & kFeatureRecoveryOffset)
    line(out, "Recovery Offset", strformat("%llu sectors", ull(sb.recovery_offset)));

  // mdadm's getinfo_super1 for a superblock before the data (1.1/1.2):
  // metadata may use up to 80 sectors (md's minimum), or up to the end of
  // the bad block log if that reaches further.
  uint64_t space_before = 0, space_after = 0;
  if (sb.data_offset > sb.super_offset) {
    uint64_t earliest = sb.super_offset + (32 + 4) * 2;
    if (sb.bblog_offset && sb.bblog_size) {
      const uint64_t bbend =
          sb.super_offset + static_cast<uint64_t>(static_cast<int64_t>(sb.bblog_offset)) + sb.bblog_size;
      if (bbend > earliest) earliest = bbend;
    }
    space_before = earliest < sb.data_offset ? sb.data_offset - earliest : 0;
    const uint64_t used = sb.level <= 0 ? sb.data_size : sb.size;
    space_after = dev_sectors - used - sb.data_offset;  // wraps when the device is too small, as in mdadm
    if (space_before == 0 && space_after == 0) space_after = 1;  // mdadm's "no room" marker: line omitted
  } else {
    space_after = 1;  // v1.0 layouts: not computed here
  }
  const bool truncated = space_after > static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (space_after != 1) {
    std::string v = strformat("before=%llu sectors, ", ull(space_before));
    v += truncated ? strformat("after=-%llu sectors DEVICE TOO SMALL", ull(~space_after))
                   : strformat("after=%llu sectors", ull(space_after));
    line(out, "Unused Space", v);
  }
  line(out, "State",
       std::string(sb.resync_offset == kMaxSector ? "clean" : "active") +
           (truncated ? " TRUNCATED DEVICE" : ""));
  line(out, "Device UUID", uuid_to_string(sb.device_uuid));
  out += '\n';
  if (sb.feature_map & kFeatureBitmapOffset)
    line(out, "Internal Bitmap",
         strformat("%ld sectors from superblock", static_cast<long>(sb.bitmap_offset)));
  if (sb.devflags) {
    std::string f;
    if (sb.devflags & kDevflagWriteMostly) f += " write-mostly";
    if (sb.devflags & kDevflagFailFast) f += " failfast";
    out += strformat("%15s :", "Flags") + f + '\n';
  }
  line(out, "Update Time", ctime_text(sb.utime));
  if (sb.bblog_size && sb.bblog_offset)
    line(out, "Bad Block Log",
         strformat("%d entries available at offset %ld sectors", sb.bblog_size * 512 / 8,
                   static_cast<long>(sb.bblog_offset)));
  line(out, "Checksum", strformat("%x - correct", checksum(encode(sb))));
  line(out, "Events", std::to_string(sb.events));
  out += '\n';
  if (sb.level == 5) line(out, "Layout", raid5_layout_name(sb.layout));
  if (sb.level == 6) line(out, "Layout", raid6_layout_name(sb.layout));
  if (sb.level == 10) line(out, "Layout", raid10_layout_name(sb.layout));
  switch (sb.level) {
    case 0:
    case 4:
    case 5:
    case 6:
    case 10:
      line(out, "Chunk Size", strformat("%uK", sb.chunksize / 2));
      break;
    case -1:
      line(out, "Rounding", strformat("%uK", sb.chunksize / 2));
      break;
    default:
      break;
  }
  out += '\n';
  // mdadm indents these two one column less than the rest.
  out += "   Device Role : " + role_text(sb) + '\n';
  out += "   Array State : " + array_state(sb) + '\n';
  return out;
}

}  // namespace rs::ondisk
