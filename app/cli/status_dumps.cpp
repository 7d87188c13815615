#include "status_dumps.hpp"

#include <chrono>
#include <cstdio>
#include <thread>

#include "args.hpp"
#include "fio/size_parse.hpp"
#include "io/uring_backend.hpp"

namespace rs::cli {

StatusDumps::StatusDumps(workload::RunProgress& progress,
                         std::function<std::string(const workload::RunResults&)> format, bool to_stdout)
    : progress_(progress), format_(std::move(format)), to_stdout_(to_stdout) {
  progress_.status_enabled = true;
}

void StatusDumps::dump() {
  const uint64_t want = progress_.status_wanted.fetch_add(1) + 1;
  const uint64_t give_up = io::monotonic_ns() + 500'000'000ull;
  workload::RunResults run;
  for (;;) {
    {
      std::lock_guard lock(progress_.status_mutex);
      bool all = true;
      for (const auto& [index, copy] : progress_.status) all = all && (copy.done || copy.served >= want);
      if (all || io::monotonic_ns() >= give_up) {
        for (const auto& [index, copy] : progress_.status) run.jobs.push_back(copy.figures);
        break;
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (run.jobs.empty()) return;  // no job started yet
  run.raidscope_version = "0.1.0";
  run.timestamp_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
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
