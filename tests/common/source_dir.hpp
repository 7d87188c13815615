// Where the tests find the project's resources (scenarios, device profiles):
// the source tree, passed in by CMake as RAIDSCOPE_SOURCE_DIR.
#pragma once
#include <string>
#include <vector>

namespace rs::test {

inline const std::string kSourceDir = RAIDSCOPE_SOURCE_DIR;
inline const std::vector<std::string> kScenarioDirs = {kSourceDir + "/resources/scenarios"};
inline const std::vector<std::string> kProfileDirs = {kSourceDir + "/resources/profiles"};

}  // namespace rs::test
