// raid1 and raid10 as rows of the level table: both are served by the
// mirror personality (as md's raid1.c and raid10.c share their ideas).
#pragma once
#include "raid/level_info.hpp"

namespace rs::mirror {

const raid::LevelInfo& raid1_level();
const raid::LevelInfo& raid10_level();

}  // namespace rs::mirror
