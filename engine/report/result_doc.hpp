// The results store's document: one saved bench or simulate run as one JSON
// object, so a run can be reported, compared and kept in a history.
//
//   {"format": "raidscope-result", "format_version": 1,
//    "kind": "bench" | "simulate",
//    "created": ISO 8601 UTC time the document was made,
//    "command": [the arguments of the run, as typed],
//    "host": {"kernel", "machine", "cpu", "cpus", "raidscope_version"},
//    "array": {"level", "layout", "chunk_bytes", "size_bytes", "raid_devices",
//              "state", "members": [{"role", "path", "state", "rotational",
//                                     "size_bytes", "profile"}]} | null,
//    "target": what the jobs drove (bench),
//    "policy": the read policy at the start (bench, arrays),
//    "tunables": [{"name", "per_member", "unit", "start": [values],
//                  "end": [values]}]   (one value, or one per member rd0..),
//    "telemetry": [the --telemetry JSONL objects, one per sample],
//    "events": [every event of the samples, in order],
//    "fio": fio's --output-format=json document (bench),
//    "scenarios": [simulate --json's objects] (simulate)}
//
// Everything here is plain data: the CLI and the GUI fill it from what a
// session had, the report code reads it back (report_model.hpp).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "raid/array.hpp"
#include "telemetry/tunables.hpp"
#include "workload/results.hpp"

namespace rs::report {

using Json = nlohmann::ordered_json;

inline constexpr const char* kResultFormat = "raidscope-result";
inline constexpr int kResultFormatVersion = 1;

// Kernel release, machine, CPU model and count, raidscope's version.
Json host_facts();
// Geometry and members of an array; "profile" from its device_profile
// tunable when the session registered one.
Json array_facts(raid::Array& array);
// Every tunable of a registry with its current value(s), in registration order.
Json tunable_values(const telemetry::TunableRegistry& registry);
// Joins two tunable_values() snapshots as [{name, per_member, unit, start, end}].
Json tunables_start_end(const Json& at_start, const Json& at_end);

// What a bench run had, for bench_document().
struct BenchCapture {
  std::vector<std::string> command;
  Json array;  // array_facts() or null
  std::string target;
  std::string policy;
  Json tunables_start = Json::array(), tunables_end = Json::array();
  std::vector<std::string> telemetry_lines;  // telemetry::to_json_line() of every sample
};
Json bench_document(const workload::RunResults& results, const BenchCapture& capture);

// simulate's JSON objects (one per scenario) with the tunables it ran with.
Json simulate_document(const std::vector<std::string>& command, const Json& scenarios, const Json& tunables);

// "2026-12-01T10:30:00Z"
std::string utc_timestamp();

}  // namespace rs::report
