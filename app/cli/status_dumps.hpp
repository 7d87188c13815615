// fio's --status-interval=TIME: every TIME (fio's time, seconds without a
// unit) the run's figures so far, whole, in the run's output formats, as
// fio's __show_running_run_stats prints them; the final output follows.
#pragma once
#include <functional>
#include <string>

#include "workload/job_driver.hpp"
#include "workload/results.hpp"

namespace rs::cli {

class StatusDumps {
 public:
  // `format` turns figures into the run's output, the final report's way
  // (workload::make_run_results with the run's `global_options`); with
  // `to_stdout` each dump is printed at once, else kept for the --output file.
  StatusDumps(workload::RunProgress& progress, workload::OptionList global_options,
              std::function<std::string(const workload::RunResults&)> format, bool to_stdout);
  // Asks the jobs for their figures (waking those that wait for a time or
  // a completion), waits for them, then prints or keeps them.
  void dump();
  std::string kept() const { return kept_; }

 private:
  workload::RunProgress& progress_;
  workload::OptionList global_options_;
  std::function<std::string(const workload::RunResults&)> format_;
  bool to_stdout_;
  std::string kept_;
};

// The interval of --status-interval=VALUE in ns; a UsageError for a value
// that is not fio's time or is under 1 ms (fio's "status interval too small").
uint64_t status_interval_ns(const std::string& value);

}  // namespace rs::cli
