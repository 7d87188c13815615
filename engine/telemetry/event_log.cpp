#include "telemetry/event_log.hpp"

#include <time.h>

namespace rs::telemetry {

uint64_t monotonic_now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000u + uint64_t(ts.tv_nsec);
}

EventLog::EventLog(Clock clock_ns) : clock_(clock_ns ? std::move(clock_ns) : Clock(monotonic_now_ns)) {}

uint64_t EventLog::record(Event e) {
  std::lock_guard lock(mutex_);
  // Stamped under the lock so that events stamped here are in seq order.
  if (e.t_ns == 0) e.t_ns = clock_();
  e.seq = events_.size() + 1;
  events_.push_back(std::move(e));
  return events_.back().seq;
}

std::vector<Event> EventLog::since(uint64_t after) const {
  std::lock_guard lock(mutex_);
  if (after >= events_.size()) return {};
  return {events_.begin() + static_cast<std::ptrdiff_t>(after), events_.end()};
}

uint64_t EventLog::last_seq() const {
  std::lock_guard lock(mutex_);
  return events_.size();
}

}  // namespace rs::telemetry
