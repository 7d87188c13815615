// What a job reports while it runs, for the log files a front end writes
// beside the results (fio's write_bw_log, write_iops_log, write_lat_log and
// write_iolog: fio/log_files.hpp). The driver only says what happened; the
// file names, the lines and the averaging windows are the log's business.
// A log is called on its job's thread and never changes what the job does.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "workload/job_options.hpp"

namespace rs::workload {

// One I/O as a log sees it. Times are ns since the job started issuing
// (after startdelay).
struct LoggedIo {
  uint64_t at_ns = 0;  // issued: when it was issued; completed: when it completed
  int ddir = kDdirRead;
  size_t file = 0;      // index into JobLogSetup::paths (0 for a one-target job)
  uint64_t offset = 0;  // within that file
  uint32_t length = 0;
  uint64_t slat_ns = 0, clat_ns = 0, lat_ns = 0;  // completed only
  uint16_t ioprio = 0;
};

class JobLog {
 public:
  enum class FileEvent { add, open, close };
  virtual ~JobLog() = default;
  // The job's files: added and opened as it starts, closed as it ends.
  virtual void files(uint64_t at_ns, FileEvent event) = 0;
  virtual void issued(const LoggedIo& io) = 0;
  // Completed I/Os the results count (none during ramp_time).
  virtual void completed(const LoggedIo& io) = 0;
  // The job ended at `at_ns`; the last partial figures are written.
  virtual void finish(uint64_t at_ns) = 0;
};

struct JobLogSetup {
  unsigned thread_number = 1;      // the instance's number in the run, from 1
  std::vector<std::string> paths;  // the job's files, as LoggedIo::file counts them
};

// Opens the logs `job` asks for: null when it asks for none; an error names
// the file that could not be written.
using JobLogOpener = std::function<Result<std::unique_ptr<JobLog>>(const JobOptions&, const JobLogSetup&)>;

// Whether `job` asks for a log: a run given no JobLogOpener refuses it.
inline bool wants_logs(const JobOptions& j) noexcept {
  return j.bw_log || j.iops_log || j.lat_log || !j.write_iolog.empty();
}

}  // namespace rs::workload
