#include "levels/levels.hpp"

#include "mirror/mirror.hpp"
#include "raid5/raid5.hpp"

namespace rs::levels {

// md takes up to 384 roles in a v1.2 superblock; RaidScope writes 128-entry
// role tables, enough for every member plus replacements.
const raid::LevelTable& builtin() {
  static const raid::LevelTable table{{
      {1, "raid1", 2, 128, &mirror::make_mirror, &mirror::mirror_used_dev_sectors},
      {10, "raid10", 2, 128, &mirror::make_mirror, &mirror::mirror_used_dev_sectors},
      {5, "raid5", 3, 128, &raid5::make_raid5, &raid5::raid5_used_dev_sectors},
  }};
  return table;
}

}  // namespace rs::levels
