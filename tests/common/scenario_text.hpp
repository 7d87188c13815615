// A scenario written out as JSON text in a test: loaded through the same
// file reader users' scenario files go through.
#pragma once
#include <fstream>
#include <string>

#include "scenario/scenario.hpp"
#include "temp_dir.hpp"

namespace rs::test {

inline Result<scenario::Scenario> load_scenario_text(const std::string& json) {
  TempDir dir("rs-scenario");
  const std::string path = dir.file("scenario.json");
  std::ofstream(path) << json;
  return scenario::load_scenario_file(path);
}

}  // namespace rs::test
