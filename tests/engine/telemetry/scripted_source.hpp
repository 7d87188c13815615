// A TelemetrySource whose cumulative readings a test sets by hand, and a
// clock the test moves.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "telemetry/sampler.hpp"

namespace rs::telemetry::testing {

struct ScriptedSource : TelemetrySource {
  std::vector<MemberReading> members;
  MemberCountersSnapshot array;
  std::vector<TaskSample> tasks;
  std::vector<Section> sections;

  std::vector<MemberReading> read_members() const override { return members; }
  MemberCountersSnapshot read_array() const override { return array; }
  std::vector<TaskSample> read_tasks() const override { return tasks; }
  std::vector<Section> read_sections() const override { return sections; }

  MemberCountersSnapshot& member(const std::string& name) {
    for (auto& m : members)
      if (m.name == name) return m.counters;
    members.push_back({name, "active sync", {}});
    return members.back().counters;
  }
};

struct ManualClock {
  uint64_t now = 0;
  Clock fn() {
    return [this] { return now; };
  }
};

}  // namespace rs::telemetry::testing
