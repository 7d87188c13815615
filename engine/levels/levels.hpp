// The RAID levels this build offers: each personality's declared limits and
// factory, as the array front finds them. Adding a level is one line here.
#pragma once
#include "raid/personality.hpp"

namespace rs::levels {

const raid::LevelTable& builtin();

}  // namespace rs::levels
