// The RAID levels this build offers: each personality's declared limits and
// factory (raid/level_info.hpp). Adding a level is its folder plus one row here.
#pragma once
#include "raid/level_info.hpp"

namespace rs::levels {

const raid::LevelTable& builtin();

}  // namespace rs::levels
