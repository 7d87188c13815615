// bench --save: collects what the results store keeps about a run (array,
// tunables at start and end, every telemetry sample) around a BenchSession,
// and writes the result document when the run is over.
#pragma once
#include <mutex>
#include <string>
#include <vector>

#include "report/result_doc.hpp"
#include "telemetry/sample.hpp"
#include "workload/bench.hpp"

namespace rs::cli {

class ResultCapture {
 public:
  // Refuses (UsageError) a --save path whose directory does not exist, before the run.
  ResultCapture(std::string path, std::vector<std::string> command);
  void begin(workload::BenchSession& session);        // after open, before run
  void sample(const telemetry::Sample& s);            // any thread
  void end(workload::BenchSession& session);          // after run, before close
  void save(const workload::RunResults& results);     // RuntimeError when writing fails

 private:
  std::string path_;
  report::BenchCapture capture_;
  std::mutex mutex_;
};

// The directory of `path` must exist: `--OPTION=path` is refused otherwise.
void check_output_dir(const std::string& option, const std::string& path);

}  // namespace rs::cli
