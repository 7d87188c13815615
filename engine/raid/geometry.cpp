#include "raid/geometry.hpp"

#include "layout/raid1.hpp"
#include "ondisk/superblock.hpp"

namespace rs::raid {

std::optional<Geometry> Geometry::make(int level, int raid_disks, uint32_t layout, uint32_t chunk_sectors,
                                       uint64_t dev_sectors, uint64_t data_offset, std::string* error) {
  Geometry g;
  g.level = level;
  g.raid_disks = raid_disks;
  g.layout = layout;
  g.chunk_sectors = chunk_sectors;
  g.dev_sectors = dev_sectors;
  g.data_offset = data_offset;
  if (level == 1) {
    if (raid_disks < 2 || raid_disks > 32) {
      *error = "raid1 needs 2 to 32 mirrors, got " + std::to_string(raid_disks);
      return std::nullopt;
    }
    g.chunk_sectors = 0;
    return g;
  }
  if (level == 10) {
    auto r10 = layout::raid10_from_layout(layout, raid_disks, chunk_sectors, dev_sectors, error);
    if (!r10) return std::nullopt;
    if (r10->copies() > kMaxCopies) {
      *error = "raid10 with more than " + std::to_string(kMaxCopies) + " copies is not supported";
      return std::nullopt;
    }
    g.r10 = *r10;
    return g;
  }
  *error = "level " + std::to_string(level) + " is not supported by this data path (raid1, raid10)";
  return std::nullopt;
}

uint64_t Geometry::array_sectors() const {
  return level == 10 ? layout::raid10_array_sectors(r10) : dev_sectors;
}

uint64_t Geometry::sectors_to_boundary(uint64_t array_sector) const {
  if (level != 10) return ~uint64_t{0};
  return chunk_sectors - array_sector % chunk_sectors;
}

int Geometry::map(uint64_t array_sector, layout::DevAddress* out) const {
  if (level == 10) return layout::raid10_map(r10, array_sector, out);
  for (int d = 0; d < raid_disks; ++d) out[d] = layout::DevAddress{d, array_sector};
  return raid_disks;
}

uint64_t Geometry::find_virt(int disk, uint64_t dev_sector) const {
  return level == 10 ? layout::raid10_find_virt(r10, disk, dev_sector) : dev_sector;
}

std::string Geometry::layout_name() const {
  return level == 10 ? ondisk::raid10_layout_name(layout) : "";
}

std::optional<uint32_t> parse_raid10_layout(const std::string& text, std::string* error) {
  std::string kind, digits;
  for (char c : text) (std::isdigit(static_cast<unsigned char>(c)) ? digits : kind) += c;
  int copies = digits.empty() ? 0 : std::stoi(digits);
  if (copies < 1 || copies > 8) {
    *error = "layout '" + text + "': copies must be 1..8 (use n2, f2 or o2)";
    return std::nullopt;
  }
  uint32_t c = uint32_t(copies);
  if (kind == "n" || kind == "near") return 0x100u | c;
  if (kind == "f" || kind == "far") return (c << 8) | 1u;
  if (kind == "o" || kind == "offset") return 0x10000u | (c << 8) | 1u;
  *error = "unknown raid10 layout '" + text + "' (use n2, f2 or o2)";
  return std::nullopt;
}

}  // namespace rs::raid
