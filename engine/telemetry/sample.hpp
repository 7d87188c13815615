// One telemetry sample: what a live session looked like over one interval.
// Counts and rates are per interval (not cumulative); depths are now and
// time-averaged over the interval. Immutable once published.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "telemetry/event_log.hpp"

namespace rs::telemetry {

struct MemberSample {
  std::string name;                          // the member's path ("sim0" for simulated members)
  std::string state;                         // "active sync", "recovering", "faulty", "missing"
  uint64_t reads = 0, writes = 0;            // completed in the interval
  uint64_t read_bytes = 0, write_bytes = 0;  // in the interval
  uint64_t errors = 0;                       // in the interval
  uint64_t read_errors = 0;                  // of those, failed member reads (each rewritten or counted
                                             // toward the member's max_read_errors)
  uint64_t corrected_errors = 0;             // sectors rewritten after read errors in the interval (md's `errors`)
  uint32_t nr_pending = 0;                   // at the sample
  double avg_pending = 0;                    // time-averaged over the interval
  double read_share = 0;                     // this member's reads / all members' reads in the interval
};

struct TaskSample {  // a long operation running on the array
  std::string kind;  // "resync", "rebuild", "check", "repair"
  std::string target;
  uint64_t done = 0, total = 0;  // bytes
};

struct ArraySample {
  double read_iops = 0, write_iops = 0;          // array-level I/Os completed per second
  double read_bw_bytes = 0, write_bw_bytes = 0;  // bytes per second
  uint64_t clat_p50_ns = 0, clat_p99_ns = 0;     // completion latency over the interval, all job threads
  uint64_t clat_samples = 0;
  std::vector<TaskSample> tasks;
};

// A personality's (or the bitmap's) own figures: RAID5 list lengths, ...
struct Section {
  std::string name;  // "raid5", "bitmap", "read_balance"
  std::vector<std::pair<std::string, double>> values;
};

struct Sample {
  uint64_t seq = 0;   // 1, 2, 3 ... per sampler
  uint64_t t_ns = 0;  // since the sampler's start
  uint64_t interval_ns = 0;
  std::vector<MemberSample> members;
  ArraySample array;
  std::vector<Section> sections;
  std::vector<Event> events;  // since the previous sample; t_ns already relative to the start
};

// The sample as one JSON object on one line, no trailing newline (the
// `--telemetry=FILE.jsonl` format, one line per sample):
//   {"t": seconds since the sampler's start (number),
//    "members": [{"name", "reads", "writes", "read_bytes", "write_bytes",
//                 "nr_pending", "avg_pending", "read_share", "state", "errors",
//                 "read_errors", "corrected_errors"}],
//    "array": {"read_iops", "read_bw_bytes", "write_iops", "write_bw_bytes",
//              "clat_p50_ns", "clat_p99_ns",
//              "tasks": [{"kind", "target", "done", "total"}]},
//    "sections": {section name: {key: number}},
//    "events": [{"t", "tunable": name, "value"} for a tunable event,
//               {"t", "kind", "name", "value", "message"} for any other]}
// Keys in that order; counts and bytes are per interval, rates per second,
// "t" of an event is seconds since the start. Text that is not valid UTF-8
// (a member path) has its bad bytes replaced by U+FFFD.
std::string to_json_line(const Sample& s);

}  // namespace rs::telemetry
