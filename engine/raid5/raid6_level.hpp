// raid6 as a row of the level table: served by the parity personality
// (raid5.hpp) at level 6, as md's raid5.c serves it.
#pragma once
#include "raid/level_info.hpp"

namespace rs::raid5 {

const raid::LevelInfo& raid6_level();

}  // namespace rs::raid5
