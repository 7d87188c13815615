#include "status_dumps.hpp"

#include <chrono>
#include <cstdio>

#include "args.hpp"
#include "fio/size_parse.hpp"

namespace rs::cli {

StatusDumps::StatusDumps(workload::RunProgress& progress, workload::OptionList global_options,
                         std::function<std::string(const workload::RunResults&)> format, bool to_stdout)
    : progress_(progress),
      global_options_(std::move(global_options)),
      format_(std::move(format)),
      to_stdout_(to_stdout) {
  progress_.status_enabled = true;
}

// Asks every running job for its figures and waits until each has left
// them: a job on its own thread is woken by its asker and answers at once,
// one on the simulated clock at its next completion. The wait is bounded
// (half a second) for a job that cannot run the request yet, a synchronous
// engine blocked in a slow device's read: it is shown as it last was.
void StatusDumps::dump() {
  const uint64_t want = progress_.status_wanted.fetch_add(1) + 1;
  std::vector<workload::JobResults> jobs;
  {
    std::unique_lock lock(progress_.status_mutex);
    for (const auto& [index, ask] : progress_.status_askers) ask();
    progress_.status_copied.wait_for(lock, std::chrono::milliseconds(500), [&] {
      for (const auto& [index, copy] : progress_.status)
        if (!copy.done && copy.served < want) return false;
      return true;
    });
    for (const auto& [index, copy] : progress_.status) jobs.push_back(copy.figures);
  }
  if (jobs.empty()) return;  // no job started yet
  const std::string text = format_(workload::make_run_results(global_options_, std::move(jobs)));
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
