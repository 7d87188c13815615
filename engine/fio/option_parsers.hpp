// The option table's parsers (option_table.cpp): the checks its typed rows
// share, and one parser per custom row, for options whose value is more than
// one field of JobOptions, as fio's options.c callbacks read them.
//
// A parser returns an invalid_argument Error whose message names the option
// and what is wrong ("bs: bad size '4q': ..."), without a file location (the
// job parser adds it). A value-optional option written bare gets an empty
// value.
#pragma once
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.hpp"
#include "fio/size_parse.hpp"
#include "workload/job_options.hpp"

namespace rs::fio::opt {

using workload::JobOptions;

// 0 or 1 into `out`; the message names `name`.
Status set_flag(std::string_view name, std::string_view value, bool& out);
// An integer in [min, max] (fio's size suffixes allowed) into `out`.
Status set_count(std::string_view name, std::string_view value, uint64_t min, uint64_t max, unsigned& out);
// A time in `unit` when written without one, into `out`.
Status apply_time(std::chrono::microseconds& out, std::string_view value, TimeUnit unit);

Status apply_file_service(JobOptions& job, std::string_view value);
// fallocate= and sync_file_range= (sync_parsers.cpp).
Status apply_fallocate(JobOptions& job, std::string_view value);
Status apply_sync_file_range(JobOptions& job, std::string_view value);
Status apply_rw(JobOptions& job, std::string_view value);
Status apply_bsrange(JobOptions& job, std::string_view value);
Status apply_bssplit(JobOptions& job, std::string_view value);
Status apply_ioengine(JobOptions& job, std::string_view value);
Status apply_verify(JobOptions& job, std::string_view value);
Status apply_verify_pattern(JobOptions& job, std::string_view value);
Status apply_buffer_pattern(JobOptions& job, std::string_view value);
Status apply_distribution(JobOptions& job, std::string_view value);
Status apply_percentiles(JobOptions& job, std::string_view value);
Status apply_cmdprio_bssplit(JobOptions& job, std::string_view value);
Status apply_filename(JobOptions& job, std::string_view value);
Status apply_directory(JobOptions& job, std::string_view value);
Status apply_rwmixwrite(JobOptions& job, std::string_view value);
Status apply_bs(JobOptions& job, std::string_view value);
Status apply_size(JobOptions& job, std::string_view value);
Status apply_offset(JobOptions& job, std::string_view value);
Status apply_filesize(JobOptions& job, std::string_view value);
Status apply_number_ios(JobOptions& job, std::string_view value);
Status apply_iodepth_batch_complete_min(JobOptions& job, std::string_view value);
Status apply_startdelay(JobOptions& job, std::string_view value);
Status apply_direct(JobOptions& job, std::string_view value);
Status apply_buffered(JobOptions& job, std::string_view value);
Status apply_randseed(JobOptions& job, std::string_view value);
Status apply_rate(JobOptions& job, std::string_view value);
Status apply_rate_iops(JobOptions& job, std::string_view value);
Status apply_rate_min(JobOptions& job, std::string_view value);
Status apply_rate_iops_min(JobOptions& job, std::string_view value);
Status apply_rate_cycle(JobOptions& job, std::string_view value);
Status apply_rate_process(JobOptions& job, std::string_view value);
Status apply_io_submit_mode(JobOptions& job, std::string_view value);
Status apply_verify_interval(JobOptions& job, std::string_view value);
Status apply_dedupe_mode(JobOptions& job, std::string_view value);
Status apply_buffer_compress_chunk(JobOptions& job, std::string_view value);
Status apply_blockalign(JobOptions& job, std::string_view value);
Status apply_steadystate(JobOptions& job, std::string_view value);
// fio's --debug=parse line for the steadystate value just applied ("set steady
// state threshold to 10.000000%").
std::string steadystate_trace(const JobOptions& job);
Status apply_create_serialize(JobOptions& job, std::string_view value);
Status apply_zonemode(JobOptions& job, std::string_view value);
Status apply_flow(JobOptions& job, std::string_view value);
Status apply_latency_target(JobOptions& job, std::string_view value);
Status apply_latency_percentile(JobOptions& job, std::string_view value);
Status apply_prio(JobOptions& job, std::string_view value);
Status apply_prioclass(JobOptions& job, std::string_view value);
Status apply_cmdprio_percentage(JobOptions& job, std::string_view value);
Status apply_cmdprio_class(JobOptions& job, std::string_view value);
Status apply_cmdprio(JobOptions& job, std::string_view value);
Status apply_zone_reset_threshold(JobOptions& job, std::string_view value);
Status apply_zone_reset_frequency(JobOptions& job, std::string_view value);
Status apply_fadvise_hint(JobOptions& job, std::string_view value);
Status apply_write_bw_log(JobOptions& job, std::string_view value);
Status apply_write_iops_log(JobOptions& job, std::string_view value);
Status apply_write_lat_log(JobOptions& job, std::string_view value);
Status apply_exit_what(JobOptions& job, std::string_view value);
Status apply_random_generator(JobOptions& job, std::string_view value);

}  // namespace rs::fio::opt
