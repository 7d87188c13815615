// fio 3.33's JSON output (--output-format=json) for a run: same keys, same
// order, same units, so tools written for fio read ours.
//
// Top level: "fio version" (see fio_version_string), "timestamp" (s),
// "timestamp_ms", "time" (ctime), "global options" (always, {} when none),
// "jobs", "disk_util" (always [], we do not sample disks).
// Per reported job (group_reporting merged as fio does): jobname, groupid,
// error, eta (0), elapsed (s), "job options", then read/write/trim with
// io_bytes, io_kbytes (io_bytes >> 10), bw_bytes (B/s), bw (KiB/s =
// bw_bytes / 1024), iops, runtime (ms), total_ios, short_ios, drop_ios,
// slat_ns/clat_ns/lat_ns {min, max, mean, stddev, N[, percentile]} (ns),
// bw_min/bw_max (KiB/s), bw_agg (% of the group), bw_mean, bw_dev,
// bw_samples, iops_min/max/mean/stddev/samples; trim all zero; sync;
// job_runtime (ms), usr_cpu, sys_cpu, ctx, majf, minf, iodepth_level,
// iodepth_submit, iodepth_complete, latency_ns/us/ms (percent of I/Os),
// latency_depth, latency_target, latency_percentile, latency_window; and,
// when the job has one, "raidscope": {target, policy, members: [{path,
// reads, read_bytes, read_share, writes, write_bytes, mean_pending}]}.
// Percentile keys are printf("%f") of the percentile, e.g. "99.900000".
// Floats carry at most 6 decimals, like fio's "%f".
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "workload/results.hpp"

namespace rs::fio {

using workload::RunResults;

// `plus`: fio's json+ (latency bins with the percentiles).
nlohmann::ordered_json fio_json_document(const RunResults& run, bool plus = false);
// The document indented by 2, ending in a newline.
std::string format_fio_json(const RunResults& run, bool plus = false);

}  // namespace rs::fio
