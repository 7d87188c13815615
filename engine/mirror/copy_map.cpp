#include "mirror/copy_map.hpp"

#include <algorithm>

#include "layout/raid1.hpp"
#include "ondisk/superblock.hpp"

namespace rs::mirror {

namespace {
constexpr uint64_t kMaxPieceSectors = 2048;  // 1 MiB
}

Result<CopyMap> CopyMap::make(const raid::Shape& shape) {
  CopyMap m;
  m.level_ = shape.level;
  m.raid_disks_ = shape.raid_disks;
  m.layout_ = shape.layout;
  m.dev_sectors_ = shape.dev_sectors;
  if (shape.level == 1) {
    if (shape.layout != 0 || shape.chunk_sectors != 0)
      return make_error(Errc::corrupt, "raid1 has no layout or chunk (layout " +
                                           std::to_string(shape.layout) + ", chunk " +
                                           std::to_string(shape.chunk_sectors) + " sectors)");
    return m;
  }
  if (shape.level == 10) {
    auto r10 =
        layout::raid10_from_layout(shape.layout, shape.raid_disks, shape.chunk_sectors, shape.dev_sectors);
    if (!r10) return r10.take_error();
    m.r10_ = *r10;
    return m;
  }
  return make_error(Errc::unsupported, "level " + std::to_string(shape.level) + " is not a mirrored level");
}

uint64_t CopyMap::array_sectors() const {
  return level_ == 10 ? layout::raid10_array_sectors(r10_) : dev_sectors_;
}

uint64_t CopyMap::sectors_to_boundary(uint64_t array_sector) const {
  if (level_ != 10) return ~uint64_t{0};
  return r10_.chunk_sectors - array_sector % r10_.chunk_sectors;
}

int CopyMap::map(uint64_t array_sector, layout::DevAddress* out) const {
  if (level_ == 10) return layout::raid10_map(r10_, array_sector, out);
  layout::Raid1Geometry g{raid_disks_, dev_sectors_};
  return layout::raid1_map(g, array_sector, out);
}

uint64_t CopyMap::find_virt(int disk, uint64_t dev_sector) const {
  return level_ == 10 ? layout::raid10_find_virt(r10_, disk, dev_sector) : dev_sector;
}

uint64_t CopyMap::piece_sectors() const {
  return level_ == 10 ? std::min<uint64_t>(r10_.chunk_sectors, kMaxPieceSectors) : kMaxPieceSectors;
}

std::string CopyMap::layout_name() const {
  return level_ == 10 ? ondisk::raid10_layout_name(layout_) : "";
}

std::string CopyMap::describe() const {
  if (level_ != 10) return std::to_string(raid_disks_) + " mirrors";
  return "layout " + layout_name() + ", chunk " + std::to_string(r10_.chunk_sectors / 2) + "K";
}

}  // namespace rs::mirror
