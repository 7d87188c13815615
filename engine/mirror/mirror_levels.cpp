#include "mirror/mirror_levels.hpp"

#include "layout/layout_names.hpp"
#include "mirror/mirror.hpp"

namespace rs::mirror {
namespace {

// md takes up to 384 roles in a v1.2 superblock; RaidScope writes 128-entry
// role tables, enough for every member plus replacements.
constexpr int kMaxMembers = 128;

std::vector<std::string> raid10_layouts(int raid_disks) {
  std::vector<std::string> out;
  for (int copies = 2; copies <= std::min(raid_disks, 4); ++copies)
    for (const char* kind : {"n", "f", "o"}) out.push_back(kind + std::to_string(copies));
  return out;
}

}  // namespace

const raid::LevelInfo& raid1_level() {
  static const raid::LevelInfo info{
      .level = 1,
      .name = "raid1",
      .min_members = 2,
      .max_members = kMaxMembers,
      .make = &make_mirror,
      .used_dev_sectors = &mirror_used_dev_sectors,
  };
  return info;
}

const raid::LevelInfo& raid10_level() {
  static const raid::LevelInfo info{
      .level = 10,
      .name = "raid10",
      .min_members = 2,
      .max_members = kMaxMembers,
      .chunked = true,
      .default_layout = 0x102,  // mdadm's n2: two near copies
      .parse_layout_text = &layout::parse_raid10_layout,
      .layout_text = &layout::raid10_layout_name,
      .layout_texts = &raid10_layouts,
      .make = &make_mirror,
      .used_dev_sectors = &mirror_used_dev_sectors,
  };
  return info;
}

}  // namespace rs::mirror
