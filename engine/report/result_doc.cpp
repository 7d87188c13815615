#include "report/result_doc.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <ctime>
#include <fstream>

#include "fio/json_output.hpp"

namespace rs::report {

namespace {

// The "model name" line of /proc/cpuinfo (x86), else "Hardware"/"cpu model".
std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  for (std::string line; std::getline(f, line);) {
    for (const char* key : {"model name", "Hardware", "cpu model"}) {
      if (line.rfind(key, 0) != 0) continue;
      const auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string v = line.substr(colon + 1);
      v.erase(0, v.find_first_not_of(" \t"));
      return v;
    }
  }
  return "unknown";
}

}  // namespace

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Json host_facts() {
  Json h;
  struct utsname u {};
  if (::uname(&u) == 0) {
    h["kernel"] = std::string(u.sysname) + " " + u.release;
    h["machine"] = u.machine;
  } else {
    h["kernel"] = "unknown";
    h["machine"] = "unknown";
  }
  h["cpu"] = cpu_model();
  h["cpus"] = ::sysconf(_SC_NPROCESSORS_ONLN);
  h["raidscope_version"] = RAIDSCOPE_VERSION;
  return h;
}

Json array_facts(raid::Array& arr) {
  const auto& g = arr.shape();
  Json j;
  j["level"] = arr.level().name;
  j["layout"] = arr.personality().layout_name();
  j["chunk_bytes"] = uint64_t(g.chunk_sectors) * 512;
  j["size_bytes"] = arr.size_bytes();
  j["raid_devices"] = g.raid_disks;
  j["state"] = arr.state_text();
  j["simulated"] = arr.simulated();
  std::vector<std::string> profiles;
  for (const auto& info : arr.tunables().list())
    if (info.spec.name == "device_profile") profiles = info.values;
  const raid::TableRef t = arr.table();
  auto& members = j["members"] = Json::array();
  for (int i = 0; i < g.raid_disks; ++i) {
    const raid::Member& m = (*t)[i];
    Json e;
    e["role"] = i;
    e["path"] = m.name;
    e["state"] = m.present() ? raid::member_state_name(m.state) : "missing";
    e["rotational"] = m.present() && m.rotational();
    if (m.dev) e["size_bytes"] = m.dev->size_bytes();
    e["profile"] = size_t(i) < profiles.size() ? profiles[size_t(i)] : "none";
    members.push_back(e);
  }
  return j;
}

Json tunable_values(const telemetry::TunableRegistry& registry) {
  Json out = Json::array();
  for (const auto& info : registry.list())
    out.push_back(Json{{"name", info.spec.name},
                       {"per_member", info.spec.per_member},
                       {"unit", info.spec.unit},
                       {"values", info.values}});
  return out;
}

Json tunables_start_end(const Json& at_start, const Json& at_end) {
  Json out = Json::array();
  for (const auto& s : at_start) {
    Json e{{"name", s["name"]}, {"per_member", s["per_member"]}, {"unit", s["unit"]}, {"start", s["values"]}};
    e["end"] = s["values"];
    for (const auto& x : at_end)
      if (x["name"] == s["name"]) e["end"] = x["values"];
    out.push_back(e);
  }
  return out;
}

Json bench_document(const workload::RunResults& results, const BenchCapture& c) {
  Json d;
  d["format"] = kResultFormat;
  d["format_version"] = kResultFormatVersion;
  d["kind"] = "bench";
  d["created"] = utc_timestamp();
  d["command"] = c.command;
  d["host"] = host_facts();
  d["array"] = c.array;
  d["target"] = c.target;
  d["policy"] = c.policy;
  d["tunables"] = tunables_start_end(c.tunables_start, c.tunables_end);
  auto& samples = d["telemetry"] = Json::array();
  auto& events = d["events"] = Json::array();
  for (const auto& line : c.telemetry_lines) {
    Json s = Json::parse(line, nullptr, false);
    if (s.is_discarded()) continue;
    if (s.contains("events"))
      for (const auto& e : s["events"]) events.push_back(e);
    samples.push_back(std::move(s));
  }
  d["fio"] = fio::fio_json_document(results);
  return d;
}

Json simulate_document(const std::vector<std::string>& command, const Json& scenarios, const Json& tunables) {
  Json d;
  d["format"] = kResultFormat;
  d["format_version"] = kResultFormatVersion;
  d["kind"] = "simulate";
  d["created"] = utc_timestamp();
  d["command"] = command;
  d["host"] = host_facts();
  d["array"] = nullptr;  // each scenario row describes its own simulated members
  d["tunables"] = tunables;
  d["telemetry"] = Json::array();
  d["events"] = Json::array();
  d["scenarios"] = scenarios.is_array() ? scenarios : Json::array({scenarios});
  return d;
}

}  // namespace rs::report
