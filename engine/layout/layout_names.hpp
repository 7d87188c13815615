// mdadm's layout spellings (placeholder until the strict parser lands).
#pragma once
#include <cstdint>
#include <string>

#include "base/result.hpp"

namespace rs::layout {

// "n2", "f2", "o2" into md's raid10 layout word.
Result<uint32_t> parse_raid10_layout(const std::string& text, int raid_disks);

}  // namespace rs::layout
