// to_json_line(): the `--telemetry` JSON-lines format (schema in sample.hpp).
#include <nlohmann/json.hpp>

#include "telemetry/sample.hpp"

namespace rs::telemetry {

namespace {

using Json = nlohmann::ordered_json;  // keys in the documented order

double seconds(uint64_t ns) {
  return double(ns) / 1e9;
}

Json member_json(const MemberSample& m) {
  return Json{{"name", m.name},
              {"reads", m.reads},
              {"writes", m.writes},
              {"read_bytes", m.read_bytes},
              {"write_bytes", m.write_bytes},
              {"nr_pending", m.nr_pending},
              {"avg_pending", m.avg_pending},
              {"read_share", m.read_share},
              {"state", m.state},
              {"errors", m.errors},
              {"read_errors", m.read_errors},
              {"corrected_errors", m.corrected_errors}};
}

Json array_json(const ArraySample& a) {
  Json tasks = Json::array();
  for (const auto& t : a.tasks)
    tasks.push_back(Json{{"kind", t.kind}, {"target", t.target}, {"done", t.done}, {"total", t.total}});
  return Json{{"read_iops", a.read_iops},     {"read_bw_bytes", a.read_bw_bytes},
              {"write_iops", a.write_iops},   {"write_bw_bytes", a.write_bw_bytes},
              {"clat_p50_ns", a.clat_p50_ns}, {"clat_p99_ns", a.clat_p99_ns},
              {"tasks", std::move(tasks)}};
}

Json event_json(const Event& e) {
  if (e.kind == "tunable") return Json{{"t", seconds(e.t_ns)}, {"tunable", e.name}, {"value", e.value}};
  return Json{
      {"t", seconds(e.t_ns)}, {"kind", e.kind}, {"name", e.name}, {"value", e.value}, {"message", e.message}};
}

}  // namespace

std::string to_json_line(const Sample& s) {
  Json members = Json::array();
  for (const auto& m : s.members) members.push_back(member_json(m));
  Json sections = Json::object();
  for (const auto& section : s.sections) {
    Json values = Json::object();
    for (const auto& [key, value] : section.values) values[key] = value;
    sections[section.name] = std::move(values);
  }
  Json events = Json::array();
  for (const auto& e : s.events) events.push_back(event_json(e));
  const Json line{{"t", seconds(s.t_ns)},
                  {"members", std::move(members)},
                  {"array", array_json(s.array)},
                  {"sections", std::move(sections)},
                  {"events", std::move(events)}};
  // Member paths need not be UTF-8: replace bad bytes rather than throw.
  return line.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace rs::telemetry
