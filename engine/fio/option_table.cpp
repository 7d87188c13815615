#include "fio/option_table.hpp"

#include "base/printable.hpp"
#include "fio/option_parsers.hpp"
#include "fio/report_options.hpp"

namespace rs::fio {

namespace {

using T = OptionType;
using J = JobOptions;

// fio 3.33's names and aliases (`fio --cmdhelp=<name>`), fio's defaults in
// JobOptions. Ranges are fio's where RaidScope runs the whole range.
constexpr OptionDef kOptions[] = {
    // Job identity and files.
    {.name = "name",
     .type = T::text,
     .text = &J::name,
     .help = "the job's name (a new job on the command line)"},
    {.name = "description", .type = T::text, .text = &J::description, .help = "text describing the job"},
    {.name = "filename",
     .parse = opt::apply_filename,
     .help = "the file or device to do I/O on (a:b:c for several)"},
    {.name = "directory", .parse = opt::apply_directory, .help = "the directory the job's files go in"},
    {.name = "nrfiles",
     .alias = "nr_files",
     .type = T::count,
     .count = &J::nrfiles,
     .min = 1,
     .max = 1u << 16,
     .help = "files per job"},
    {.name = "filename_format",
     .type = T::text,
     .text = &J::filename_format,
     .fio_keywords = true,
     .help = "how the job's files are named ($jobname, $jobnum, $filenum)"},
    {.name = "create_on_open",
     .type = T::flag,
     .flag = &J::create_on_open,
     .help = "create files when the job opens them, not before the run"},
    {.name = "unlink",
     .type = T::flag,
     .flag = &J::unlink,
     .help = "remove the job's files when the run ends"},
    {.name = "fill_device",
     .alias = "fill_fs",
     .type = T::flag,
     .flag = &J::fill_device,
     .help = "write until the file's filesystem is full"},
    {.name = "fallocate",
     .parse = opt::apply_fallocate,
     .help = "how a write-only job's new file is reserved (native, posix, keep, truncate, none)"},
    {.name = "fsync",
     .type = T::count,
     .count = &J::fsync_blocks,
     .min = 0,
     .max = 1u << 30,
     .help = "fsync the file after every N writes"},
    {.name = "fdatasync",
     .type = T::count,
     .count = &J::fdatasync_blocks,
     .min = 0,
     .max = 1u << 30,
     .help = "fdatasync the file after every N writes"},
    {.name = "sync_file_range",
     .parse = opt::apply_sync_file_range,
     .help = "sync_file_range after every N writes (wait_before,write,wait_after:N)"},
    {.name = "end_fsync",
     .type = T::flag,
     .flag = &J::end_fsync,
     .help = "fsync the job's files when its I/O is done"},
    {.name = "fsync_on_close",
     .type = T::flag,
     .flag = &J::fsync_on_close,
     .help = "fsync each file as the job closes it"},
    {.name = "file_service_type",
     .parse = opt::apply_file_service,
     .help = "how the next I/O's file is chosen (roundrobin, sequential, random, zipf, pareto, normal)"},
    // What the I/O is.
    {.name = "rw",
     .alias = "readwrite",
     .parse = opt::apply_rw,
     .help = "the I/O pattern (read, write, randread, randwrite, rw, randrw, trim, ...)"},
    {.name = "rwmixread",
     .type = T::count,
     .count = &J::rwmixread,
     .min = 0,
     .max = 100,
     .help = "percent of a mixed job's I/Os that read"},
    {.name = "rwmixwrite",
     .parse = opt::apply_rwmixwrite,
     .help = "percent of a mixed job's I/Os that write"},
    {.name = "bs",
     .alias = "blocksize",
     .parse = opt::apply_bs,
     .help = "block size, or READ,WRITE,TRIM sizes"},
    {.name = "bsrange",
     .alias = "blocksize_range",
     .parse = opt::apply_bsrange,
     .help = "block sizes drawn from MIN-MAX"},
    {.name = "bssplit", .parse = opt::apply_bssplit, .help = "block sizes by weight (BS/PERCENT:...)"},
    {.name = "size", .parse = opt::apply_size, .help = "bytes of the region (or N% of the target)"},
    {.name = "offset",
     .alias = "fileoffset",
     .parse = opt::apply_offset,
     .help = "where the region starts (bytes or N%)"},
    {.name = "filesize", .parse = opt::apply_filesize, .help = "the size of each of the job's files"},
    {.name = "io_size",
     .alias = "io_limit",
     .type = T::size,
     .bytes = &J::io_size,
     .help = "bytes of I/O per pass (default: size)"},
    {.name = "loops",
     .type = T::count,
     .count = &J::loops,
     .min = 1,
     .max = 1u << 30,
     .help = "passes over the region"},
    {.name = "number_ios", .parse = opt::apply_number_ios, .help = "stop after this many I/Os"},
    // Queueing.
    {.name = "iodepth",
     .type = T::count,
     .count = &J::iodepth,
     .min = 1,
     .max = 65535,
     .help = "I/Os in flight per job"},
    {.name = "iodepth_batch_submit",
     .alias = "iodepth_batch",
     .type = T::count,
     .count = &J::iodepth_batch_submit,
     .min = 0,
     .max = 65535,
     .help = "I/Os queued per submit call (0: iodepth)"},
    {.name = "iodepth_batch_complete_min",
     .alias = "iodepth_batch_complete",
     .parse = opt::apply_iodepth_batch_complete_min,
     .help = "completions to wait for once the queue is full"},
    {.name = "iodepth_batch_complete_max",
     .type = T::count,
     .count = &J::iodepth_batch_complete_max,
     .min = 0,
     .max = 65535,
     .help = "most completions handled per reap"},
    {.name = "numjobs",
     .type = T::count,
     .count = &J::numjobs,
     .min = 1,
     .max = 4096,
     .help = "clones of the job, each with its own seed"},
    // Time.
    {.name = "runtime",
     .alias = "timeout",
     .type = T::time,
     .duration = &J::runtime,
     .help = "stop the job after this long (seconds by default)"},
    {.name = "time_based",
     .type = T::flag,
     .flag = &J::time_based,
     .value_optional = true,
     .help = "run for the whole runtime, repeating the region"},
    {.name = "ramp_time",
     .type = T::time,
     .duration = &J::ramp_time,
     .help = "run this long before the figures count"},
    {.name = "startdelay", .parse = opt::apply_startdelay, .help = "wait this long before the job starts"},
    // How the target is opened.
    {.name = "direct", .parse = opt::apply_direct, .help = "O_DIRECT I/O, bypassing the page cache"},
    {.name = "buffered", .parse = opt::apply_buffered, .help = "the opposite of direct"},
    {.name = "ioengine",
     .parse = opt::apply_ioengine,
     .help = "how I/O is issued (psync, sync, io_uring, libaio, posixaio, mmap, null, ...)"},
    // Offsets.
    {.name = "randrepeat",
     .alias = "allrandrepeat",
     .type = T::flag,
     .flag = &J::randrepeat,
     .help = "the same random sequence every run"},
    {.name = "randseed", .parse = opt::apply_randseed, .help = "the random generator's seed"},
    {.name = "norandommap",
     .type = T::flag,
     .flag = &J::norandommap,
     .value_optional = true,
     .help = "random offsets may repeat before every block was done"},
    {.name = "random_distribution",
     .parse = opt::apply_distribution,
     .help = "how random offsets spread (random, zipf, pareto, normal, zoned)"},
    // Rates.
    {.name = "rate", .parse = opt::apply_rate, .help = "bytes per second cap, per direction"},
    {.name = "rate_iops", .parse = opt::apply_rate_iops, .help = "I/Os per second cap, per direction"},
    {.name = "thinktime",
     .type = T::time,
     .duration = &J::thinktime,
     .unit = TimeUnit::microseconds,
     .help = "pause after each I/O (microseconds by default)"},
    // Verification.
    {.name = "verify", .parse = opt::apply_verify, .help = "check written data with this checksum (0: none)"},
    {.name = "do_verify",
     .type = T::flag,
     .flag = &J::do_verify,
     .help = "run the verify phase after writing"},
    {.name = "verify_fatal",
     .type = T::flag,
     .flag = &J::verify_fatal,
     .help = "end the job at the first verify failure"},
    {.name = "verify_backlog",
     .type = T::count,
     .count = &J::verify_backlog,
     .min = 0,
     .max = 1u << 30,
     .help = "check written blocks once this many wait, while writing"},
    {.name = "verify_backlog_batch",
     .alias = "verify_batch",
     .type = T::count,
     .count = &J::verify_batch,
     .min = 0,
     .max = 1u << 30,
     .help = "blocks checked per verify_backlog round (0: verify_backlog)"},
    {.name = "verify_interval", .parse = opt::apply_verify_interval, .help = "bytes per verify header"},
    {.name = "verify_pattern",
     .parse = opt::apply_verify_pattern,
     .help = "the payload to write and check (0xHEX or \"text\")"},
    // Reporting and job order.
    {.name = "group_reporting",
     .type = T::flag,
     .flag = &J::group_reporting,
     .value_optional = true,
     .help = "report a group's jobs as one"},
    {.name = "stonewall",
     .alias = "wait_for_previous",
     .type = T::flag,
     .flag = &J::stonewall,
     .value_optional = true,
     .help = "start once the jobs before have finished"},
    {.name = "percentile_list", .parse = opt::apply_percentiles, .help = "the latency percentiles reported"},
    {.name = "clat_percentiles",
     .type = T::flag,
     .flag = &J::clat_percentiles,
     .help = "report completion latency percentiles"},
    {.name = "lat_percentiles",
     .type = T::flag,
     .flag = &J::lat_percentiles,
     .help = "report total latency percentiles"},
    {.name = "slat_percentiles",
     .type = T::flag,
     .flag = &J::slat_percentiles,
     .help = "report submission latency percentiles"},
    {.name = "unified_rw_reporting",
     .parse = opt::apply_unified_rw_reporting,
     .help = "report reads, writes and trims as one \"mixed\" direction (mixed), or also (both)"},
    {.name = "thread",
     .alias = "threads",
     .type = T::flag,
     .flag = &J::thread,
     .value_optional = true,
     .help = "accepted: jobs always run as threads"},
    {.name = "blockalign",
     .alias = "ba",
     .parse = opt::apply_blockalign,
     .help = "random offsets aligned to this"},
    {.name = "new_group",
     .type = T::flag,
     .flag = &J::new_group,
     .value_optional = true,
     .help = "start a new reporting group"},
    {.name = "wait_for",
     .type = T::text,
     .text = &J::wait_for,
     .help = "start once the named job has finished"},
    {.name = "gtod_reduce",
     .type = T::flag,
     .flag = &J::gtod_reduce,
     .help = "keep no latency figures (fewer clock reads)"},
    {.name = "exitall",
     .type = T::flag,
     .flag = &J::exitall,
     .value_optional = true,
     .help = "when this job ends, end the others"},
    {.name = "invalidate",
     .type = T::flag,
     .flag = &J::invalidate,
     .help = "drop the region's cached pages before the job"},
    // Steady state.
    {.name = "steadystate",
     .alias = "ss",
     .parse = opt::apply_steadystate,
     .help = "end the job once IOPS or bandwidth is steady (iops, bw, *_slope:LIMIT[%])"},
    {.name = "steadystate_duration",
     .alias = "ss_dur",
     .type = T::time,
     .duration = &J::ss_dur,
     .help = "the window steadiness is judged over"},
    {.name = "steadystate_ramp_time",
     .alias = "ss_ramp",
     .type = T::time,
     .duration = &J::ss_ramp,
     .help = "time before steadiness is looked at"},
    {.name = "steadystate_check_interval",
     .alias = "ss_interval",
     .type = T::time,
     .duration = &J::ss_interval,
     .help = "how often a steady-state sample is taken"},
    {.name = "create_serialize",
     .parse = opt::apply_create_serialize,
     .help = "accepted: files are always laid out one after another"},
    // Zones.
    {.name = "zonemode", .parse = opt::apply_zonemode, .help = "none, strided or zbd (emulated zones)"},
    {.name = "zonesize",
     .type = T::size,
     .bytes = &J::zonesize,
     .help = "bytes done in a zone before the next"},
    {.name = "zonerange", .type = T::size, .bytes = &J::zonerange, .help = "the span of one zone"},
    {.name = "zoneskip", .type = T::size, .bytes = &J::zoneskip, .help = "bytes skipped between zones"},
    // Flow control.
    {.name = "flow", .parse = opt::apply_flow, .help = "this job's weight in its flow group"},
    {.name = "flow_id",
     .type = T::count,
     .count = &J::flow_id,
     .min = 0,
     .max = 1u << 30,
     .help = "the flow group the job belongs to"},
    {.name = "flow_sleep",
     .type = T::time,
     .duration = &J::flow_sleep,
     .unit = TimeUnit::microseconds,
     .help = "wait when ahead of the flow share (microseconds)"},
    {.name = "fadvise_hint",
     .parse = opt::apply_fadvise_hint,
     .help = "tell the kernel the access pattern (0 or 1)"},
    // Log files.
    {.name = "write_bw_log",
     .parse = opt::apply_write_bw_log,
     .value_optional = true,
     .help = "write a bandwidth log (an optional file prefix)"},
    {.name = "write_iops_log",
     .parse = opt::apply_write_iops_log,
     .value_optional = true,
     .help = "write an IOPS log (an optional file prefix)"},
    {.name = "write_lat_log",
     .parse = opt::apply_write_lat_log,
     .value_optional = true,
     .help = "write latency logs (an optional file prefix)"},
    {.name = "log_avg_msec",
     .type = T::count,
     .count = &J::log_avg_msec,
     .min = 0,
     .max = 1u << 30,
     .help = "average log entries over this many ms"},
    {.name = "log_offset", .type = T::flag, .flag = &J::log_offset, .help = "log each I/O's offset"},
    {.name = "log_compression",
     .type = T::size,
     .bytes = &J::log_compression,
     .help = "the chunk size log_store_compressed compresses by (the text logs are unchanged)"},
    {.name = "log_store_compressed",
     .type = T::flag,
     .flag = &J::log_store_compressed,
     .help = "store the logs compressed as NAME.fz (read them with --inflate-log)"},
    {.name = "per_job_logs",
     .type = T::flag,
     .flag = &J::per_job_logs,
     .help = "one log file per job (0: one per option)"},
    {.name = "write_iolog",
     .type = T::text,
     .text = &J::write_iolog,
     .help = "record every I/O issued in this file"},
    {.name = "read_iolog",
     .type = T::text,
     .text = &J::read_iolog,
     .help = "replay the reads and writes of this iolog, in order"},
    {.name = "replay_no_stall",
     .type = T::flag,
     .flag = &J::replay_no_stall,
     .help = "replay the iolog as fast as possible, not at its pace"},
    {.name = "exit_what", .parse = opt::apply_exit_what, .help = "what exitall ends (group, stonewall, all)"},
    {.name = "random_generator",
     .parse = opt::apply_random_generator,
     .help = "accepted: one uniform generator draws offsets"},
    // Buffer contents.
    {.name = "scramble_buffers",
     .type = T::flag,
     .flag = &J::scramble_buffers,
     .help = "stamp each write so no two carry the same bytes"},
    {.name = "refill_buffers",
     .type = T::flag,
     .flag = &J::refill_buffers,
     .value_optional = true,
     .help = "fresh buffer contents for every write"},
    {.name = "dedupe_percentage",
     .type = T::count,
     .count = &J::dedupe_percentage,
     .min = 0,
     .max = 100,
     .help = "percent of writes that repeat earlier contents"},
    {.name = "dedupe_mode",
     .parse = opt::apply_dedupe_mode,
     .help = "where repeats come from (repeat, working_set)"},
    {.name = "dedupe_working_set_percentage",
     .type = T::count,
     .count = &J::dedupe_working_set_percentage,
     .min = 0,
     .max = 100,
     .help = "the working set's share of the region"},
    {.name = "dedupe_global",
     .type = T::flag,
     .flag = &J::dedupe_global,
     .help = "repeats drawn across all jobs"},
    {.name = "buffer_compress_percentage",
     .type = T::count,
     .count = &J::buffer_compress_percentage,
     .min = 0,
     .max = 100,
     .help = "percent of each chunk that is zeros"},
    {.name = "buffer_compress_chunk",
     .parse = opt::apply_buffer_compress_chunk,
     .help = "the chunk buffer_compress_percentage applies to"},
    // Latency target.
    {.name = "latency_target",
     .parse = opt::apply_latency_target,
     .help = "find the depth that keeps latency under this"},
    {.name = "latency_window",
     .type = T::time,
     .duration = &J::latency_window,
     .unit = TimeUnit::microseconds,
     .help = "the window each depth is tried for"},
    {.name = "latency_percentile",
     .parse = opt::apply_latency_percentile,
     .help = "percent of I/Os that must meet latency_target"},
    {.name = "latency_run",
     .type = T::flag,
     .flag = &J::latency_run,
     .help = "keep searching after the depth is found"},
    // Priorities.
    {.name = "prio", .parse = opt::apply_prio, .help = "the job's I/O priority level (0-7)"},
    {.name = "prioclass", .parse = opt::apply_prioclass, .help = "the job's I/O priority class (0-3)"},
    {.name = "cmdprio_percentage",
     .parse = opt::apply_cmdprio_percentage,
     .help = "percent of I/Os issued at cmdprio_class"},
    {.name = "cmdprio_class", .parse = opt::apply_cmdprio_class, .help = "the class of those I/Os"},
    {.name = "cmdprio", .parse = opt::apply_cmdprio, .help = "the level of those I/Os"},
    {.name = "cmdprio_bssplit",
     .parse = opt::apply_cmdprio_bssplit,
     .help = "priorities by block size (BS/PERCENT[/CLASS/LEVEL]:...)"},
    {.name = "log_prio",
     .type = T::flag,
     .flag = &J::log_prio,
     .help = "logs carry each I/O's priority value"},
    // Emulated zoned devices.
    {.name = "read_beyond_wp",
     .type = T::flag,
     .flag = &J::read_beyond_wp,
     .help = "reads past a zone's write pointer are allowed"},
    {.name = "max_open_zones",
     .type = T::count,
     .count = &J::max_open_zones,
     .min = 0,
     .max = 1u << 20,
     .help = "most zones written at once (0: no limit)"},
    {.name = "zone_reset_threshold",
     .parse = opt::apply_zone_reset_threshold,
     .help = "share of the region with data past which zones are reset"},
    {.name = "zone_reset_frequency",
     .parse = opt::apply_zone_reset_frequency,
     .help = "share of writes that reset their zone then"},
    // Rate control.
    {.name = "rate_process", .parse = opt::apply_rate_process, .help = "gaps between I/Os (linear, poisson)"},
    {.name = "rate_min",
     .alias = "ratemin",
     .parse = opt::apply_rate_min,
     .help = "fail the job below this many bytes per second"},
    {.name = "rate_iops_min", .parse = opt::apply_rate_iops_min, .help = "fail the job below this many IOPS"},
    {.name = "rate_cycle",
     .alias = "ratecycle",
     .parse = opt::apply_rate_cycle,
     .help = "the window rate_min is judged over (ms)"},
    {.name = "io_submit_mode",
     .parse = opt::apply_io_submit_mode,
     .help = "issue I/O inline or at the rate's times (offload)"},
};

// Hints for fio options people commonly carry over.
std::string unsupported_message(std::string_view name) {
  std::string msg = "unsupported option " + quoted_printable(name);
  if (name == "include")
    msg += " (include files are not supported)";
  else if (name == "kb_base")
    msg += " (sizes always use fio's default kb_base=1024)";
  return msg;
}

Status bad(std::string message) {
  return make_error(Errc::invalid_argument, std::move(message));
}

// A typed row: the value into the field its type names.
Status apply_typed(JobOptions& job, const OptionDef& o, std::string_view v) {
  switch (o.type) {
    case T::text:
      job.*o.text = std::string(v);
      return {};
    case T::flag:
      return opt::set_flag(o.name, v, job.*o.flag);
    case T::count:
      return opt::set_count(o.name, v, o.min, o.max, job.*o.count);
    case T::size: {
      NumberResult r = parse_size(v);
      if (!r.ok()) return bad(std::string(o.name) + ": " + r.error().message);
      job.*o.bytes = r->value;
      return {};
    }
    case T::time:
      return opt::apply_time(job.*o.duration, v, o.unit);
    case T::custom:
      return o.parse(job, v);
  }
  return make_error(Errc::internal, "option '" + std::string(o.name) + "' has no type");
}

}  // namespace

std::span<const OptionDef> option_table() noexcept {
  return kOptions;
}

const OptionDef* find_option(std::string_view name) noexcept {
  for (const auto& o : kOptions)
    if (o.name == name || (!o.alias.empty() && o.alias == name)) return &o;
  return nullptr;
}

std::string_view canonical_option_name(std::string_view name) noexcept {
  const OptionDef* o = find_option(name);
  return o ? o->name : std::string_view{};
}

bool option_value_optional(std::string_view canonical_name) noexcept {
  const OptionDef* o = find_option(canonical_name);
  return o && o->value_optional;
}

Status apply_option(JobOptions& job, std::string_view name, std::optional<std::string_view> value) {
  const OptionDef* o = find_option(name);
  if (!o) return bad(unsupported_message(name));
  if (!value && !o->value_optional)
    return bad("option '" + printable(name) + "' requires a value (" + std::string(o->name) + "=...)");
  // A bare flag is 1; a bare custom option (a log's prefix) is empty.
  const std::string_view v = value ? *value : o->type == T::custom ? std::string_view{} : "1";
  if (value && v.empty()) return bad("option '" + printable(name) + "' has an empty value");
  // filename_format's $jobname, $jobnum, $filenum are fio's own keywords.
  if (v.find('$') != std::string_view::npos && !o->fio_keywords)
    return bad("variable expansion is not supported: " + printable(name) + "=" + printable(v));
  return apply_typed(job, *o, v);
}

}  // namespace rs::fio
