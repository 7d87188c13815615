// Timestamped events of a live session: a tunable set, a member failed or
// added, a rebuild started or finished. Appended rarely (never per I/O), read
// by the sampler, which hands each sample the events since the previous one.
#pragma once
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

namespace rs::telemetry {

// CLOCK_MONOTONIC in nanoseconds: the default clock of the event log and the
// sampler, and the clock the io_uring backends stamp member counters with.
uint64_t monotonic_now_ns();

// A replaceable clock: simulated sessions pass their virtual clock.
using Clock = std::function<uint64_t()>;

struct Event {
  uint64_t seq = 0;   // assigned by the log, from 1
  uint64_t t_ns = 0;  // on the log's clock; in a Sample, relative to the sampler's start
  std::string kind;   // "tunable", "member", "task"
  std::string name;   // tunable name ("read_policy", "rd1/write_mostly"), member path, task name
  std::string value;  // the value set, the member's new state, the task's outcome
  std::string message;
};

class EventLog {
 public:
  // Clock the events are stamped with (empty: CLOCK_MONOTONIC).
  explicit EventLog(Clock clock_ns = {});
  // Thread-safe. Stamps t_ns when it is 0 and assigns seq; returns seq.
  uint64_t record(Event e);
  // Events with seq > after, oldest first.
  std::vector<Event> since(uint64_t after) const;
  uint64_t last_seq() const;
  uint64_t now_ns() const { return clock_(); }

 private:
  Clock clock_;
  mutable std::mutex mutex_;
  std::vector<Event> events_;  // a session's events (a handful per minute); events_[i].seq == i + 1
};

}  // namespace rs::telemetry
