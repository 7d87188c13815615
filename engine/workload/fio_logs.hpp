// fio's per-job log files (write_bw_log, write_iops_log, write_lat_log), in
// fio 3.33's format (iolog.c flush_samples), one line per sample:
//   TIME_MS, VALUE, DDIR, BS, PRIO            or, with log_offset=1,
//   TIME_MS, VALUE, DDIR, BS, OFFSET, PRIO
// TIME_MS counts from the job's start; DDIR 0 read, 1 write; PRIO is 1 for
// an I/O of the real-time class, else 0; with log_prio=1 it is the I/O's
// priority value in hex (0x2000: class 1, level 0), as fio's flush_samples.
// Averaged lines (log_avg_msec) carry priority 0.
//  - lat logs: PREFIX_lat.N.log, PREFIX_clat.N.log, PREFIX_slat.N.log, values
//    in ns: one line per I/O, or with log_avg_msec=M the mean per direction
//    over each M ms (BS 0).
//  - bw / iops logs: PREFIX_bw.N.log (KiB/s), PREFIX_iops.N.log (I/Os per
//    second), per direction over each window of log_avg_msec, or fio's
//    bw_avg_time / iops_avg_time default of 500 ms (BS 0).
// N is the job's number in the run, from 1 (fio's thread number); with
// per_job_logs=0 the ".N" is left out. PREFIX is the option's value, or the
// job's name when the option is given bare.
#pragma once
#include <array>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "workload/job_options.hpp"

namespace rs::workload {

class JobLogs {
 public:
  // Opens the files the job asks for (none: nullptr and no error).
  // `thread_number` counts from 1. *error names the file that could not be
  // created.
  static std::unique_ptr<JobLogs> open(const JobOptions& job, unsigned thread_number, std::string* error);
  ~JobLogs();
  JobLogs(const JobLogs&) = delete;
  JobLogs& operator=(const JobLogs&) = delete;

  // One completed I/O; times in ns, `at_ns` since the job's start.
  void record(uint64_t at_ns, int ddir, uint32_t bs, uint64_t offset, uint64_t slat_ns, uint64_t clat_ns,
              uint64_t lat_ns, uint16_t ioprio = 0);
  // The job ended at `at_ns`: windows that ended are written, and the
  // latency logs' partial window (fio's finalize_logs); files closed.
  void finish(uint64_t at_ns);

 private:
  JobLogs() = default;
  struct Window {  // one direction's running figures for the current window
    uint64_t bytes = 0, ios = 0;
    uint64_t lat_sum[3] = {0, 0, 0};  // lat, clat, slat
  };
  void line(FILE* f, uint64_t ms, uint64_t value, int ddir, uint32_t bs, uint64_t offset,
            uint16_t ioprio = 0);
  void close_windows_until(uint64_t at_ns);

  FILE* lat_[3] = {nullptr, nullptr, nullptr};  // lat, clat, slat
  FILE* bw_ = nullptr;
  FILE* iops_ = nullptr;
  bool log_offset_ = false;
  bool log_prio_ = false;
  uint64_t lat_window_ns_ = 0;   // 0: every I/O
  uint64_t rate_window_ns_ = 0;  // bw and iops
  uint64_t lat_window_end_ = 0, rate_window_end_ = 0;
  std::array<Window, 3> lat_win_{}, rate_win_{};
};

}  // namespace rs::workload
