#include "raid5/raid5_level.hpp"

#include "layout/layout_names.hpp"
#include "layout/stripe_roles.hpp"
#include "raid5/raid5.hpp"

namespace rs::raid5 {
namespace {

Result<uint32_t> parse_layout(std::string_view text, int raid_disks) {
  (void)raid_disks;  // every raid5 layout works with any member count
  auto algorithm = layout::parse_raid5_layout(text);
  if (!algorithm) return algorithm.take_error();
  return uint32_t(*algorithm);
}

std::string layout_text(uint32_t word) { return word > 3 ? std::string() : layout::raid5_layout_name(int(word)); }

std::vector<std::string> layout_texts(int) {
  return {"left-symmetric", "right-symmetric", "left-asymmetric", "right-asymmetric"};
}

}  // namespace

const raid::LevelInfo& raid5_level() {
  static const raid::LevelInfo info{
      .level = 5,
      .name = "raid5",
      .min_members = 3,
      .max_members = 128,  // RaidScope's 128-entry role tables
      .chunked = true,
      .default_layout = 2,  // mdadm's default: left-symmetric
      .parse_layout_text = &parse_layout,
      .layout_text = &layout_text,
      .layout_texts = &layout_texts,
      .make = &make_raid5,
      .used_dev_sectors = &raid5_used_dev_sectors,
      .stripe_roles = &layout::raid5_stripe_roles,
  };
  return info;
}

}  // namespace rs::raid5
