// fio's per-job log files, written from what the job driver reports
// (workload::JobLog):
//
// write_bw_log, write_iops_log, write_lat_log in fio 3.33's format (iolog.c
// flush_samples), one line per sample:
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
//
// write_iolog=FILE: every I/O issued, in fio's iolog version 3 format (a
// "fio version 3 iolog" header, then "USEC PATH add|open|close" for the
// job's files and "USEC PATH read|write|trim OFFSET LENGTH" per I/O),
// appended to FILE as fio does (init_iolog).
#pragma once
#include <memory>

#include "base/result.hpp"
#include "workload/job_log.hpp"
#include "workload/job_options.hpp"

namespace rs::fio {

// Opens the files `job` asks for (none: null); a workload::JobLogOpener.
// The error names the file that could not be created.
Result<std::unique_ptr<workload::JobLog>> open_job_logs(const workload::JobOptions& job,
                                                        const workload::JobLogSetup& setup);

}  // namespace rs::fio
