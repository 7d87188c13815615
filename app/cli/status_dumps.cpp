#include "status_dumps.hpp"

#include <chrono>
#include <cstdio>

#include "args.hpp"
#include "fio/size_parse.hpp"

namespace rs::cli {

StatusDumps::StatusDumps(workload::RunProgress& progress,
                         std::function<std::string(const workload::RunResults&)> format, bool to_stdout)
    : progress_(progress), format_(std::move(format)), to_stdout_(to_stdout) {
  progress_.status_enabled = true;
}

// Asks every running job for its figures and waits until each has left
// them (a job copies them at its next completion and wakes this), at most
// half a second: a job stalled on a slow device is shown as it last was.
void StatusDumps::dump() {
  const uint64_t want = progress_.status_wanted.fetch_add(1) + 1;
  workload::RunResults run;
  {
    std::unique_lock lock(progress_.status_mutex);
    progress_.status_copied.wait_for(lock, std::chrono::milliseconds(500), [&] {
      for (const auto& [index, copy] : progress_.status)
        if (!copy.done && copy.served < want) return false;
      return true;
    });
    for (const auto& [index, copy] : progress_.status) run.jobs.push_back(copy.figures);
  }
  if (run.jobs.empty()) return;  // no job started yet
  run.stamp();
  const std::string text = format_(run);
  if (!to_stdout_) {
    kept_ += text;
    return;
  }
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
}

uint64_t status_interval_ns(const std::string& value) {
  const fio::NumberResult us = fio::parse_time(value, fio::TimeUnit::seconds);
  if (!us.ok())
    throw UsageError("--status-interval=" + value +
                     ": not a time (fio's: seconds, or with a unit: 500ms, 2s)");
  if (us->value < 1000)
    throw UsageError("--status-interval=" + value + ": status interval too small (1 ms at least)");
  return us->value * 1000;
}

}  // namespace rs::cli
