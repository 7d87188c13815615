// tunables: every knob the engine has, with its range, unit and help (the
// list the GUI's Tune page is generated from). With members, the array's
// current values.
#include <cstdio>
#include <iostream>
#include <optional>
#include <nlohmann/json.hpp>

#include "args.hpp"
#include "cli_support.hpp"
#include "commands.hpp"
#include "levels/levels.hpp"
#include "open_array.hpp"
#include "raid/array.hpp"
#include "resources.hpp"
#include "workload/bench.hpp"

namespace rs::cli {

namespace {

// Every level's tunables, from a small simulated array of each: the
// registry is the single source, no list is kept here.
std::vector<std::pair<std::string, telemetry::TunableInfo>> all_levels() {
  std::vector<std::pair<std::string, telemetry::TunableInfo>> out;
  for (const auto& level : levels::builtin().levels) {
    auto shape = level.new_shape(std::max(level.min_members, 4), std::nullopt, std::nullopt);
    if (!shape) continue;
    shape->dev_sectors = 1 << 20;
    auto arr = raid::Array::simulated(levels::builtin(), *shape, {});
    if (!arr) continue;
    for (auto& info : (*arr)->tunables().list()) {
      bool seen = false;
      for (auto& [levels_text, known] : out)
        if (known.spec.name == info.spec.name) {
          levels_text += std::string(", ") + level.name;
          seen = true;
        }
      if (!seen) out.push_back({level.name, info});
    }
  }
  return out;
}

}  // namespace

int cmd_tunables(const Argv& argv) {
  Args a(argv, {}, {"json", "run"});
  std::vector<std::pair<std::string, telemetry::TunableInfo>> list;
  std::optional<OpenArray> arr;
  if (!a.positional().empty()) {
    raid::AssembleOptions o;
    o.read_only = true;
    o.describe_only = true;  // a dirty degraded array is still described
    arr = open_or_throw(a.positional(), o, "tunables");
    // The open array's registry, device_profile (its emulated disks) included.
    for (auto& info : (*arr)->tunables().list()) list.push_back({(*arr)->level().name, info});
  } else {
    list = all_levels();
  }
  // An open array (bench's, the GUI's) adds device_profile (emulated disks).
  if (!arr) {
    telemetry::TunableInfo profile;
    profile.spec = {"device_profile", telemetry::TunableType::choice, 0, 0, {"none", "<profile name>"}, "",
                    "the disk this member emulates while bench runs (resources/profiles; none: the real device)"};
    profile.spec.per_member = true;
    profile.range_text = "none or the name of a device profile (resources/profiles/NAME.json)";
    list.push_back({"bench", profile});
  }

  if (a.flag("json")) {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (auto& [where, info] : list) {
      nlohmann::ordered_json t;
      t["name"] = info.spec.name;
      t["type"] = telemetry::tunable_type_name(info.spec.type);
      if (info.spec.type == telemetry::TunableType::choice)
        t["choices"] = info.spec.choices;
      else if (info.spec.type != telemetry::TunableType::boolean) {
        t["min"] = info.spec.min;
        t["max"] = info.spec.max;
      }
      t["unit"] = info.spec.unit;
      t["per_member"] = info.spec.per_member;
      t["range"] = info.range_text;
      t["help"] = info.spec.help;
      t["applies_to"] = where;
      if (arr) t["values"] = info.values;
      j.push_back(t);
    }
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  for (auto& [where, info] : list) {
    const std::string name = (info.spec.per_member ? "rdN/" : "") + info.spec.name;
    std::printf("%-24s %s\n", name.c_str(), info.spec.help.c_str());
    std::printf("%-24s range: %s; applies to: %s\n", "", info.range_text.c_str(), where.c_str());
    if (arr && !info.values.empty()) {
      std::string v;
      for (size_t i = 0; i < info.values.size(); ++i)
        v += (i ? ", " : "") + (info.spec.per_member ? "rd" + std::to_string(i) + "=" : "") + info.values[i];
      std::printf("%-24s now: %s\n", "", v.c_str());
    }
  }
  return 0;
}

}  // namespace rs::cli
