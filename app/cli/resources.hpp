// Where raidscope-cli finds its data (device profiles, seed scenarios):
// $RAIDSCOPE_DATA_DIR/<kind>, then next to the installed binary
// (../share/raidscope/<kind>), then the source tree it was built from.
#pragma once
#include <string>
#include <vector>

namespace rs::cli {
std::vector<std::string> resource_dirs(const std::string& kind);  // kind: "profiles", "scenarios"
}
