#include "levels/levels.hpp"

#include "mirror/mirror_levels.hpp"
#include "raid5/raid5_level.hpp"
#include "raid5/raid6_level.hpp"

namespace rs::levels {

// One row per level: the level's folder defines everything about it.
const raid::LevelTable& builtin() {
  static const raid::LevelTable table{{
      mirror::raid1_level(),
      mirror::raid10_level(),
      raid5::raid5_level(),
      raid5::raid6_level(),
  }};
  return table;
}

}  // namespace rs::levels
