#include "raid5/raid6_level.hpp"

#include "layout/layout_names.hpp"
#include "layout/raid6.hpp"
#include "layout/stripe_roles.hpp"
#include "raid5/raid5.hpp"

namespace rs::raid5 {
namespace {

Result<uint32_t> parse_raid6_layout_text(std::string_view text, int raid_disks) {
  (void)raid_disks;  // every raid6 layout works with any member count from 4
  auto algorithm = layout::parse_raid6_layout(text);
  if (!algorithm) return algorithm.take_error();
  return uint32_t(*algorithm);
}

std::string raid6_layout_text(uint32_t word) {
  return layout::raid6_algorithm_name(word);
}

std::vector<std::string> raid6_layout_texts(int) {
  return {"left-symmetric",   "right-symmetric",   "left-asymmetric",   "right-asymmetric",
          "left-symmetric-6", "right-symmetric-6", "left-asymmetric-6", "right-asymmetric-6"};
}

}  // namespace

const raid::LevelInfo& raid6_level() {
  static const raid::LevelInfo info{
      .level = 6,
      .name = "raid6",
      .min_members = layout::kRaid6MinDisks,
      .max_members = 128,  // RaidScope's 128-entry role tables
      .chunked = true,
      .default_layout = uint32_t(layout::Raid6Algorithm::LeftSymmetric),  // mdadm's default
      .parse_layout_text = &parse_raid6_layout_text,
      .layout_text = &raid6_layout_text,
      .layout_texts = &raid6_layout_texts,
      .make = &make_raid5,
      .used_dev_sectors = &raid5_used_dev_sectors,
      .stripe_roles = &layout::raid6_stripe_roles,
  };
  return info;
}

}  // namespace rs::raid5
