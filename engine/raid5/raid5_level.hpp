// raid5 as a row of the level table.
#pragma once
#include "raid/level_info.hpp"

namespace rs::raid5 {

const raid::LevelInfo& raid5_level();

}  // namespace rs::raid5
