#include "fio/option_table.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "base/printable.hpp"
#include "fio/size_parse.hpp"

namespace rs::fio {

using namespace rs::workload;

namespace {

enum class Opt {
  name,
  description,
  filename,
  rw,
  rwmixread,
  rwmixwrite,
  bs,
  bsrange,
  bssplit,
  size,
  offset,
  filesize,
  directory,
  nrfiles,
  filename_format,
  create_on_open,
  unlink,
  fill_device,
  file_service_type,
  io_size,
  loops,
  number_ios,
  iodepth,
  iodepth_batch_submit,
  iodepth_batch_complete_min,
  iodepth_batch_complete_max,
  numjobs,
  runtime,
  time_based,
  ramp_time,
  startdelay,
  direct,
  buffered,
  ioengine,
  randrepeat,
  randseed,
  norandommap,
  random_distribution,
  rate,
  rate_iops,
  thinktime,
  verify,
  do_verify,
  verify_fatal,
  verify_interval,
  verify_pattern,
  group_reporting,
  stonewall,
  percentile_list,
  thread,
  scramble_buffers,
  blockalign,
  new_group,
  wait_for,
  gtod_reduce,
  random_generator,
  exitall,
  exit_what,
  invalidate,
  fadvise_hint,
  ss,
  ss_dur,
  ss_ramp,
  ss_interval,
  create_serialize,
  zonemode,
  zonesize,
  zonerange,
  zoneskip,
  flow,
  flow_id,
  flow_sleep,
  write_bw_log,
  write_iops_log,
  write_lat_log,
  log_avg_msec,
  log_offset,
  per_job_logs,
  write_iolog,
  refill_buffers,
  dedupe_percentage,
  dedupe_mode,
  dedupe_working_set_percentage,
  dedupe_global,
  buffer_compress_percentage,
  buffer_compress_chunk,
  latency_target,
  latency_window,
  latency_percentile,
  latency_run,
  prio,
  prioclass,
  cmdprio_percentage,
  cmdprio_class,
  cmdprio,
  cmdprio_bssplit,
  log_prio,
  read_beyond_wp,
  max_open_zones,
  zone_reset_threshold,
  zone_reset_frequency,
  rate_process,
  rate_min,
  rate_iops_min,
  rate_cycle,
  io_submit_mode,
};

struct OptionSpec {
  std::string_view name;   // fio's name, as fio's JSON prints it
  std::string_view alias;  // fio's alias, if any
  Opt id;
  bool value_optional;  // fio FIO_OPT_STR_SET: `time_based` alone means time_based=1
};

// fio 3.33 names and aliases (`fio --cmdhelp=<name>`).
constexpr OptionSpec kOptions[] = {
    {"name", "", Opt::name, false},
    {"description", "", Opt::description, false},
    {"filename", "", Opt::filename, false},
    {"rw", "readwrite", Opt::rw, false},
    {"rwmixread", "", Opt::rwmixread, false},
    {"rwmixwrite", "", Opt::rwmixwrite, false},
    {"bs", "blocksize", Opt::bs, false},
    {"bsrange", "blocksize_range", Opt::bsrange, false},
    {"bssplit", "", Opt::bssplit, false},
    {"size", "", Opt::size, false},
    {"offset", "fileoffset", Opt::offset, false},
    {"filesize", "", Opt::filesize, false},
    {"directory", "", Opt::directory, false},
    {"nrfiles", "nr_files", Opt::nrfiles, false},
    {"filename_format", "", Opt::filename_format, false},
    {"create_on_open", "", Opt::create_on_open, false},
    {"unlink", "", Opt::unlink, false},
    {"fill_device", "fill_fs", Opt::fill_device, false},
    {"file_service_type", "", Opt::file_service_type, false},
    {"io_size", "io_limit", Opt::io_size, false},
    {"loops", "", Opt::loops, false},
    {"number_ios", "", Opt::number_ios, false},
    {"iodepth", "", Opt::iodepth, false},
    {"iodepth_batch_submit", "iodepth_batch", Opt::iodepth_batch_submit, false},
    {"iodepth_batch_complete_min", "iodepth_batch_complete", Opt::iodepth_batch_complete_min, false},
    {"iodepth_batch_complete_max", "", Opt::iodepth_batch_complete_max, false},
    {"numjobs", "", Opt::numjobs, false},
    {"runtime", "timeout", Opt::runtime, false},
    {"time_based", "", Opt::time_based, true},
    {"ramp_time", "", Opt::ramp_time, false},
    {"startdelay", "", Opt::startdelay, false},
    {"direct", "", Opt::direct, false},
    {"buffered", "", Opt::buffered, false},
    {"ioengine", "", Opt::ioengine, false},
    {"randrepeat", "allrandrepeat", Opt::randrepeat, false},
    {"randseed", "", Opt::randseed, false},
    {"norandommap", "", Opt::norandommap, true},
    {"random_distribution", "", Opt::random_distribution, false},
    {"rate", "", Opt::rate, false},
    {"rate_iops", "", Opt::rate_iops, false},
    {"thinktime", "", Opt::thinktime, false},
    {"verify", "", Opt::verify, false},
    {"do_verify", "", Opt::do_verify, false},
    {"verify_fatal", "", Opt::verify_fatal, false},
    {"verify_interval", "", Opt::verify_interval, false},
    {"verify_pattern", "", Opt::verify_pattern, false},
    {"group_reporting", "", Opt::group_reporting, true},
    {"stonewall", "wait_for_previous", Opt::stonewall, true},
    {"percentile_list", "", Opt::percentile_list, false},
    {"thread", "threads", Opt::thread, true},
    {"blockalign", "ba", Opt::blockalign, false},
    {"new_group", "", Opt::new_group, true},
    {"wait_for", "", Opt::wait_for, false},
    {"gtod_reduce", "", Opt::gtod_reduce, false},
    {"exitall", "", Opt::exitall, true},
    {"invalidate", "", Opt::invalidate, false},
    {"steadystate", "ss", Opt::ss, false},
    {"steadystate_duration", "ss_dur", Opt::ss_dur, false},
    {"steadystate_ramp_time", "ss_ramp", Opt::ss_ramp, false},
    {"steadystate_check_interval", "ss_interval", Opt::ss_interval, false},
    {"create_serialize", "", Opt::create_serialize, false},
    {"zonemode", "", Opt::zonemode, false},
    {"zonesize", "", Opt::zonesize, false},
    {"zonerange", "", Opt::zonerange, false},
    {"zoneskip", "", Opt::zoneskip, false},
    {"flow", "", Opt::flow, false},
    {"flow_id", "", Opt::flow_id, false},
    {"flow_sleep", "", Opt::flow_sleep, false},
    {"fadvise_hint", "", Opt::fadvise_hint, false},
    {"write_bw_log", "", Opt::write_bw_log, true},
    {"write_iops_log", "", Opt::write_iops_log, true},
    {"write_lat_log", "", Opt::write_lat_log, true},
    {"log_avg_msec", "", Opt::log_avg_msec, false},
    {"log_offset", "", Opt::log_offset, false},
    {"per_job_logs", "", Opt::per_job_logs, false},
    {"write_iolog", "", Opt::write_iolog, false},
    {"exit_what", "", Opt::exit_what, false},
    {"random_generator", "", Opt::random_generator, false},
    {"scramble_buffers", "", Opt::scramble_buffers, false},
    {"refill_buffers", "", Opt::refill_buffers, true},
    {"dedupe_percentage", "", Opt::dedupe_percentage, false},
    {"dedupe_mode", "", Opt::dedupe_mode, false},
    {"dedupe_working_set_percentage", "", Opt::dedupe_working_set_percentage, false},
    {"dedupe_global", "", Opt::dedupe_global, false},
    {"buffer_compress_percentage", "", Opt::buffer_compress_percentage, false},
    {"buffer_compress_chunk", "", Opt::buffer_compress_chunk, false},
    {"latency_target", "", Opt::latency_target, false},
    {"latency_window", "", Opt::latency_window, false},
    {"latency_percentile", "", Opt::latency_percentile, false},
    {"latency_run", "", Opt::latency_run, false},
    {"prio", "", Opt::prio, false},
    {"prioclass", "", Opt::prioclass, false},
    {"cmdprio_percentage", "", Opt::cmdprio_percentage, false},
    {"cmdprio_class", "", Opt::cmdprio_class, false},
    {"cmdprio", "", Opt::cmdprio, false},
    {"cmdprio_bssplit", "", Opt::cmdprio_bssplit, false},
    {"log_prio", "", Opt::log_prio, false},
    {"read_beyond_wp", "", Opt::read_beyond_wp, false},
    {"max_open_zones", "", Opt::max_open_zones, false},
    {"zone_reset_threshold", "", Opt::zone_reset_threshold, false},
    {"zone_reset_frequency", "", Opt::zone_reset_frequency, false},
    {"rate_process", "", Opt::rate_process, false},
    {"rate_min", "ratemin", Opt::rate_min, false},
    {"rate_iops_min", "", Opt::rate_iops_min, false},
    {"rate_cycle", "ratecycle", Opt::rate_cycle, false},
    {"io_submit_mode", "", Opt::io_submit_mode, false},
};

const OptionSpec* find_option(std::string_view name) {
  for (const auto& o : kOptions)
    if (o.name == name || (!o.alias.empty() && o.alias == name)) return &o;
  return nullptr;
}

// Hints for fio options people commonly carry over.
std::string unsupported_message(std::string_view name) {
  std::string msg = "unsupported option " + quoted_printable(name);
  if (name == "include")
    msg += " (include files are not supported)";
  else if (name == "kb_base")
    msg += " (sizes always use fio's default kb_base=1024)";
  return msg;
}

std::string quoted(std::string_view v) {
  return quoted_printable(v);
}

std::string parse_bool(std::string_view v, bool& out) {
  if (v == "0" || v == "1") {
    out = v == "1";
    return {};
  }
  return "expected 0 or 1, got " + quoted(v);
}

// A strictly parsed double: the whole text must be a number.
bool parse_double(std::string_view v, double& out) {
  if (v.empty()) return false;
  std::string s(v);
  char* end = nullptr;
  errno = 0;
  out = std::strtod(s.c_str(), &end);
  return errno == 0 && end == s.c_str() + s.size() && std::isfinite(out);
}

// Splits a per-direction value the way fio's handle_option does: "X" sets
// every direction; "X,Y" sets read X and write Y; an empty part ("X," or
// ",Y") leaves that direction as it was. A third (trim) value is refused.
template <typename T, typename Parse>
std::string parse_per_direction(std::string_view option, std::string_view v, std::array<T, 2>& out,
                                Parse parse, T* trim = nullptr) {
  size_t comma = v.find(',');
  if (comma == std::string_view::npos) {
    T value{};
    if (auto err = parse(v, value); !err.empty()) return err;
    out = {value, value};
    if (trim) *trim = value;
    return {};
  }
  std::string_view parts[2] = {v.substr(0, comma), v.substr(comma + 1)};
  bool third_given = false, trim_value_given = false;
  if (size_t second = parts[1].find(','); second != std::string_view::npos) {
    third_given = true;
    // The third value is for trims: checked here; bs= keeps it (the
    // caller's `trim`), the other options have no trim figure.
    std::string_view trim_part = parts[1].substr(second + 1);
    if (!trim_part.empty()) {
      trim_value_given = true;
      T value{};
      if (auto err = parse(trim_part, value); !err.empty()) return err;
      if (trim) *trim = value;
    }
    parts[1] = parts[1].substr(0, second);
  }
  if (parts[0].empty() && parts[1].empty() && !(third_given && trim_value_given))
    return std::string(option) + ": no value in " + quoted(v);
  std::array<T, 2> result = out;
  for (int d = 0; d < 2; ++d) {
    if (parts[d].empty()) continue;
    if (auto err = parse(parts[d], result[d]); !err.empty()) return err;
  }
  out = result;
  // fio's HOWTO: "bs=8k,32k means 8k for reads, 32k for writes and trims";
  // "bs=8k,32k," leaves trims at their default.
  if (trim && !third_given && !parts[1].empty()) *trim = result[1];
  return {};
}

// rate=, rate_min= (bytes per second, sizes) and rate_iops=,
// rate_iops_min= (counts): per direction, the third value for trims.
std::string parse_rate_values(std::string_view option, std::string_view v, std::array<uint64_t, 2>& out,
                              uint64_t* trim, bool count) {
  return parse_per_direction(
      option, v, out,
      [&](std::string_view part, uint64_t& value) -> std::string {
        NumberResult r =
            count ? parse_integer(part, 0, std::numeric_limits<uint32_t>::max()) : parse_size(part);
        if (!r.ok()) return std::string(option) + ": " + r.error;
        value = r.value;
        return {};
      },
      trim);
}

// file_service_type= (fio's str_fst_cb): roundrobin, sequential, random,
// each with an optional :N (I/Os per file before switching); zipf[:THETA],
// pareto[:H], normal or gauss[:DEV], each with an optional :CENTER (0..1),
// with fio's defaults 1.1, 0.2 and 0.
std::string apply_file_service(JobOptions& job, std::string_view v) {
  using FS = JobOptions::FileService;
  const size_t colon = v.find(':');
  const std::string_view kind = v.substr(0, colon);
  const std::string_view rest = colon == std::string_view::npos ? std::string_view{} : v.substr(colon + 1);
  job.file_service_nr = 1;
  job.file_service_center = -1;
  if (kind == "roundrobin" || kind == "sequential" || kind == "random") {
    job.file_service = kind == "roundrobin"   ? FS::roundrobin
                       : kind == "sequential" ? FS::sequential
                                              : FS::random;
    if (colon != std::string_view::npos) {
      NumberResult r = parse_integer(rest, 0, 1u << 30);
      if (!r.ok() || r.value < 1) return "file_service_type: bad count in " + quoted(v);
      job.file_service_nr = unsigned(r.value);
    }
    return {};
  }
  if (kind == "zipf")
    job.file_service = FS::zipf, job.file_service_param = 1.1;
  else if (kind == "pareto")
    job.file_service = FS::pareto, job.file_service_param = 0.2;
  else if (kind == "normal" || kind == "gauss")
    job.file_service = FS::normal, job.file_service_param = 0.0;
  else
    return "bad file_service_type " + quoted(v) +
           " (roundrobin, sequential, random[:N], zipf[:THETA], pareto[:H], normal[:DEV], gauss[:DEV])";
  if (colon == std::string_view::npos) return {};
  const size_t second = rest.find(':');
  if (!parse_double(rest.substr(0, second), job.file_service_param))
    return "file_service_type: bad number in " + quoted(v);
  if (second != std::string_view::npos && (!parse_double(rest.substr(second + 1), job.file_service_center) ||
                                           job.file_service_center < 0 || job.file_service_center > 1))
    return "file_service_type: the center in " + quoted(v) + " must be a number in [0, 1]";
  const double x = job.file_service_param;
  if (job.file_service == FS::zipf && (x <= 0 || x == 1.0))
    return "file_service_type: zipf theta must be positive and different from 1.0: " + quoted(v);
  if (job.file_service == FS::pareto && (x <= 0 || x >= 1))
    return "file_service_type: pareto h must be in (0, 1): " + quoted(v);
  if (job.file_service == FS::normal && (x < 0 || x >= 100))
    return "file_service_type: the normal deviation must be in [0, 100): " + quoted(v);
  return {};
}

std::string apply_rw(JobOptions& job, std::string_view v) {
  std::string_view mode = v.substr(0, v.find(':'));
  job.seq_add = 0;
  if (mode.size() != v.size()) {
    // fio's postfix: rw=read:8k skips 8k after each I/O, read:-8k goes back.
    std::string_view add = v.substr(mode.size() + 1);
    const bool negative = !add.empty() && add.front() == '-';
    if (negative) add.remove_prefix(1);
    NumberResult r = parse_size(add);
    if (!r.ok() || r.value > (uint64_t(1) << 40)) return "rw=" + printable(v) + ": bad ':N' postfix";
    job.seq_add = negative ? -int64_t(r.value) : int64_t(r.value);
    if (mode.starts_with("rand"))
      return "rw=" + printable(v) +
             ": for random I/O the ':N' postfix (a new random offset every N I/Os) is "
             "not supported";
  }
  if (mode == "read")
    job.rw = RwMode::read;
  else if (mode == "write")
    job.rw = RwMode::write;
  else if (mode == "randread")
    job.rw = RwMode::randread;
  else if (mode == "randwrite")
    job.rw = RwMode::randwrite;
  else if (mode == "rw" || mode == "readwrite")
    job.rw = RwMode::readwrite;
  else if (mode == "randrw")
    job.rw = RwMode::randrw;
  else if (mode == "trim")
    job.rw = RwMode::trim;
  else if (mode == "randtrim")
    job.rw = RwMode::randtrim;
  else if (mode == "trimwrite")
    job.rw = RwMode::trimwrite;
  else if (mode == "randtrimwrite")
    job.rw = RwMode::randtrimwrite;
  else
    return "bad rw " + quoted(v) +
           " (read, write, randread, randwrite, rw, readwrite, randrw, trim, randtrim, trimwrite, "
           "randtrimwrite)";
  if (job.seq_add != 0 && does_trim(job.rw))
    return "rw=" + printable(v) + ": the ':N' postfix is not supported with trims";
  return {};
}

// bsrange=MIN-MAX[,MIN-MAX]: per direction, like bs=.
std::string apply_bsrange(JobOptions& job, std::string_view v) {
  std::array<std::pair<uint32_t, uint32_t>, 2> r{{{job.bs[0], max_bs(job, 0)}, {job.bs[1], max_bs(job, 1)}}};
  std::string err = parse_per_direction(
      "bsrange", v, r, [](std::string_view part, std::pair<uint32_t, uint32_t>& out) -> std::string {
        const size_t dash = part.find('-');
        if (dash == std::string_view::npos) return "bsrange: expected MIN-MAX, got " + quoted(part);
        NumberResult lo = parse_size(part.substr(0, dash)), hi = parse_size(part.substr(dash + 1));
        if (!lo.ok() || !hi.ok() || lo.value == 0 || hi.value > std::numeric_limits<uint32_t>::max())
          return "bsrange: bad range " + quoted(part);
        out = {uint32_t(std::min(lo.value, hi.value)), uint32_t(std::max(lo.value, hi.value))};
        return {};
      });
  if (!err.empty()) return err;
  for (int d = 0; d < 2; ++d) {
    job.bs[size_t(d)] = r[size_t(d)].first;
    job.bs_max[size_t(d)] = r[size_t(d)].second;
    job.bssplit[size_t(d)].clear();
  }
  return {};
}

// bssplit=BS/PERCENT:BS/PERCENT...[,READ-LIST-THEN-WRITE-LIST] (fio's
// bssplit_ddir): a size without a percentage shares what the others leave.
std::string apply_bssplit(JobOptions& job, std::string_view v) {
  std::array<std::vector<JobOptions::BsShare>, 2> lists = job.bssplit;
  std::string err = parse_per_direction(
      "bssplit", v, lists, [](std::string_view part, std::vector<JobOptions::BsShare>& out) -> std::string {
        out.clear();
        unsigned sum = 0, missing = 0;
        size_t start = 0;
        while (start <= part.size()) {
          size_t colon = part.find(':', start);
          std::string_view item =
              part.substr(start, colon == std::string_view::npos ? part.npos : colon - start);
          const size_t slash = item.find('/');
          NumberResult bs = parse_size(item.substr(0, slash));
          if (!bs.ok() || bs.value == 0 || bs.value > std::numeric_limits<uint32_t>::max())
            return "bssplit: bad block size in " + quoted(item);
          unsigned percent = ~0u;
          if (slash != std::string_view::npos) {
            std::string_view rest = item.substr(slash + 1);
            if (rest.find('/') != std::string_view::npos)
              return "bssplit: " + quoted(item) + " has more than BS/PERCENT";
            NumberResult p = parse_integer(rest, 0, 100);
            if (!p.ok()) return "bssplit: bad percentage in " + quoted(item);
            percent = unsigned(p.value);
            sum += percent;
          } else {
            ++missing;
          }
          out.push_back({uint32_t(bs.value), percent});
          if (colon == std::string_view::npos) break;
          start = colon + 1;
        }
        if (sum > 100) return "bssplit: percentages add up to more than 100 in " + quoted(part);
        for (auto& e : out)
          if (e.percent == ~0u) e.percent = (missing == 1 && out.size() == 1) ? 100 : (100 - sum) / missing;
        std::stable_sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.percent < b.percent; });
        return {};
      });
  if (!err.empty()) return err;
  for (int d = 0; d < 2; ++d) {
    auto& list = lists[size_t(d)];
    if (list.empty()) continue;
    uint32_t lo = ~0u, hi = 0;
    for (auto& e : list) lo = std::min(lo, e.bs), hi = std::max(hi, e.bs);
    job.bs[size_t(d)] = lo;
    job.bs_max[size_t(d)] = hi;
    job.bssplit[size_t(d)] = std::move(list);
  }
  return {};
}

std::string apply_ioengine(JobOptions& job, std::string_view v) {
  struct Engine {
    std::string_view name;
    IoEngine e;
  };
  static constexpr Engine kEngines[] = {
      {"io_uring", IoEngine::io_uring}, {"libaio", IoEngine::libaio},     {"psync", IoEngine::psync},
      {"sync", IoEngine::sync},         {"vsync", IoEngine::vsync},       {"pvsync", IoEngine::pvsync},
      {"pvsync2", IoEngine::pvsync2},   {"posixaio", IoEngine::posixaio}, {"mmap", IoEngine::mmap},
      {"null", IoEngine::null},
  };
  for (const auto& e : kEngines) {
    if (e.name == v) {
      job.ioengine = e.e;
      return {};
    }
  }
  return "ioengine " + quoted(v) +
         " is not supported (io_uring, libaio, psync, sync, vsync, pvsync, pvsync2, posixaio, mmap, null)";
}

std::string apply_verify(JobOptions& job, std::string_view v) {
  static constexpr std::pair<std::string_view, VerifyKind> kKinds[] = {
      {"0", VerifyKind::none},        {"crc32c", VerifyKind::crc32c}, {"crc32c-intel", VerifyKind::crc32c},
      {"md5", VerifyKind::md5},       {"crc64", VerifyKind::crc64},   {"sha1", VerifyKind::sha1},
      {"sha256", VerifyKind::sha256}, {"sha512", VerifyKind::sha512}, {"xxhash", VerifyKind::xxhash},
      {"meta", VerifyKind::meta},
  };
  for (const auto& [name, kind] : kKinds)
    if (v == name) {
      job.verify = kind;
      return {};
    }
  if (v == "none") return "verify=none is not a fio value: fio spells no verification verify=0";
  return "verify=" + printable(v) +
         " is not supported (0, crc32c, crc32c-intel, crc64, md5, sha1, sha256, sha512, xxhash, meta)";
}

// verify_pattern=0xHEX (bytes in the order written: 0xaa55 is aa 55) or a
// quoted string. fio's decimal numbers and %o (offset) formats are refused.
std::string apply_verify_pattern(JobOptions& job, std::string_view v) {
  std::vector<uint8_t> bytes;
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) {
    bytes.assign(v.begin() + 1, v.end() - 1);
  } else if (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
    std::string hex(v.substr(2));
    if (hex.size() % 2) hex.insert(hex.begin(), '0');  // fio pads an odd digit count in front
    for (size_t i = 0; i < hex.size(); i += 2) {
      char* end = nullptr;
      const std::string pair = hex.substr(i, 2);
      const long b = std::strtol(pair.c_str(), &end, 16);
      if (end != pair.c_str() + 2) return "verify_pattern: bad hex digits in " + quoted(v);
      bytes.push_back(uint8_t(b));
    }
  } else {
    return "verify_pattern " + quoted(v) + " is not supported (0xHEX or a quoted string)";
  }
  if (bytes.empty() || bytes.size() > 512) return "verify_pattern: 1 to 512 bytes, got " + quoted(v);
  job.verify_pattern = std::move(bytes);
  return {};
}

// random_distribution=zoned:A1/R1:A2/R2... (fio's parse_zoned_distribution):
// A% of the I/Os go to the next R% of the region. One list for every
// direction; per-direction lists (",") are refused.
std::string apply_zoned(JobOptions& job, std::string_view v, std::string_view params) {
  if (params.find(',') != std::string_view::npos)
    return "random_distribution=zoned with per-direction lists is not supported: " + quoted(v);
  std::vector<JobOptions::Zone> zones;
  double access = 0, region = 0;
  size_t start = 0;
  while (start < params.size()) {
    size_t colon = params.find(':', start);
    std::string_view item =
        params.substr(start, colon == std::string_view::npos ? params.npos : colon - start);
    const size_t slash = item.find('/');
    JobOptions::Zone z{};
    // fio reads an empty region ("20/") as 0; the last zone then takes what is left.
    std::string_view region_text = slash == std::string_view::npos ? "" : item.substr(slash + 1);
    bool region_ok =
        region_text.empty() ? (z.region_percent = -1, true) : parse_double(region_text, z.region_percent);
    if (slash == std::string_view::npos || !parse_double(item.substr(0, slash), z.access_percent) ||
        !region_ok || z.access_percent < 0 || (z.region_percent < 0 && !region_text.empty()))
      return "bad zone " + quoted(item) + " in " + quoted(v) + " (ACCESS%/REGION%)";
    access += z.access_percent;
    if (z.region_percent > 0) region += z.region_percent;
    zones.push_back(z);
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  if (zones.empty()) return "random_distribution=zoned needs zones: " + quoted(v);
  for (auto& z : zones)
    if (z.region_percent < 0) z.region_percent = &z == &zones.back() ? std::max(0.0, 100.0 - region) : 0.0;
  if (access > 100.0 + 1e-9 || region > 100.0 + 1e-9)
    return "random_distribution=zoned: access or region percentages add up to more than 100: " + quoted(v);
  job.random_distribution = Distribution::zoned;
  job.zones = std::move(zones);
  job.distribution_param = 0.0;
  job.distribution_center = -1.0;
  return {};
}

// random_distribution=NAME[:VALUE[:CENTER]] with fio's defaults and ranges
// (options.c str_random_distribution_cb): zipf theta 1.1, != 1; pareto h 0.2,
// in (0, 1); normal deviation 0, in [0, 100); center in [0, 1].
std::string apply_distribution(JobOptions& job, std::string_view v) {
  size_t colon = v.find(':');
  std::string_view kind = v.substr(0, colon);
  std::string_view params = colon == std::string_view::npos ? std::string_view{} : v.substr(colon + 1);
  Distribution d = Distribution::random;
  double value = 0.0;
  if (kind == "zipf") {
    d = Distribution::zipf;
    value = 1.1;
  } else if (kind == "pareto") {
    d = Distribution::pareto;
    value = 0.2;
  } else if (kind == "normal") {
    d = Distribution::normal;
  } else if (kind == "zoned") {
    return apply_zoned(job, v, params);
  } else if (kind == "zoned_abs") {
    return "random_distribution=zoned_abs is not supported (random, zipf, pareto, normal, zoned)";
  } else if (kind != "random") {
    return "bad random_distribution " + quoted(v) + " (random, zipf:THETA, pareto:H, normal:DEV)";
  }

  double center = -1.0;
  if (colon != std::string_view::npos) {
    if (d == Distribution::random) return "random_distribution=random takes no value: " + quoted(v);
    size_t colon2 = params.find(':');
    std::string_view value_text = params.substr(0, colon2);
    if (!parse_double(value_text, value)) return "bad random_distribution value in " + quoted(v);
    if (colon2 != std::string_view::npos) {
      if (!parse_double(params.substr(colon2 + 1), center))
        return "bad random_distribution center in " + quoted(v);
      if (center < 0.0 || center > 1.0) return "random_distribution center must be in [0, 1]: " + quoted(v);
    }
  }
  if (d == Distribution::zipf && (value <= 0.0 || value == 1.0))
    return "zipf theta must be positive and different from 1.0: " + quoted(v);
  if (d == Distribution::pareto && (value <= 0.0 || value >= 1.0))
    return "pareto input must be in (0, 1): " + quoted(v);
  if (d == Distribution::normal && (value < 0.0 || value >= 100.0))
    return "normal deviation must be in [0, 100): " + quoted(v);
  job.random_distribution = d;
  job.zones.clear();
  job.distribution_param = value;
  job.distribution_center = center;
  return {};
}

// percentile_list=P1:P2:... (fio FIO_OPT_FLOAT_LIST: at most 20 entries, 0..100).
std::string apply_percentiles(JobOptions& job, std::string_view v) {
  std::vector<double> list;
  int precision = 0;
  size_t start = 0;
  while (true) {
    size_t colon = v.find(':', start);
    std::string_view item = v.substr(start, colon == std::string_view::npos ? v.npos : colon - start);
    double p = 0.0;
    if (!parse_double(item, p)) return "bad percentile " + quoted(item) + " in " + quoted(v);
    if (p < 0.0 || p > 100.0) return "percentile out of range [0, 100]: " + quoted(item);
    if (size_t dot = item.find('.'); dot != std::string_view::npos)
      precision = std::max(precision, static_cast<int>(item.size() - dot - 1));
    list.push_back(p);
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  if (list.size() > 20) return "percentile_list has more than 20 entries";
  job.percentile_list = std::move(list);
  job.percentile_precision = precision;
  return {};
}

// fio's FIO_OPT_INT with off1/off2: "R,W" per direction, one value for both.
std::string parse_two_ints(std::string_view name, std::string_view v, std::array<unsigned, 2>& out,
                           unsigned min, unsigned max) {
  const size_t comma = v.find(',');
  const std::string_view parts[2] = {v.substr(0, comma),
                                     comma == std::string_view::npos ? v : v.substr(comma + 1)};
  std::array<unsigned, 2> got{};
  for (int d = 0; d < 2; ++d) {
    NumberResult r = parse_integer(parts[d], 0, max);
    if (!r.ok() || r.value < min)
      return printable(name) + ": " + quoted(v) + " must be " + std::to_string(min) + " to " +
             std::to_string(max) + " (or READ,WRITE)";
    got[size_t(d)] = unsigned(r.value);
  }
  out = got;
  return {};
}

// cmdprio_bssplit=BS/PERC[/CLASS/LEVEL]:... per direction ("READ,WRITE"; one
// list for both), fio 3.33's split_parse_prio_ddir: zero shares are
// dropped, class and level clamped to 3 and 7, the list sorted by block
// size. fio 3.33 reads four fields; a fifth (the hint of later fios) is
// ignored, as fio 3.33 ignores it.
std::string apply_cmdprio_bssplit(JobOptions& job, std::string_view v) {
  const size_t comma = v.find(',');
  const std::string_view lists[2] = {v.substr(0, comma),
                                     comma == std::string_view::npos ? v : v.substr(comma + 1)};
  std::array<std::vector<JobOptions::PrioSplit>, 2> out;
  for (int d = 0; d < 2; ++d) {
    std::string_view rest = lists[d];
    while (!rest.empty()) {
      const size_t colon = rest.find(':');
      std::string_view entry = rest.substr(0, colon);
      rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
      if (entry.empty()) break;
      std::vector<std::string_view> f;
      for (size_t at = 0;;) {
        const size_t slash = entry.find('/', at);
        f.push_back(entry.substr(at, slash == std::string_view::npos ? entry.npos : slash - at));
        if (slash == std::string_view::npos) break;
        at = slash + 1;
      }
      NumberResult bs = parse_size(f[0]);
      if (!bs.ok() || bs.value == 0 || bs.value > std::numeric_limits<uint32_t>::max() || f.size() == 3)
        return "bad cmdprio_bssplit entry " + quoted(entry) + " (BS/PERCENT or BS/PERCENT/CLASS/LEVEL)";
      unsigned vals[3] = {0, 0, 0};
      for (size_t i = 1; i < f.size() && i < 4; ++i) {
        NumberResult r = parse_integer(f[i], 0, 1u << 20);
        if (!r.ok()) return "bad cmdprio_bssplit entry " + quoted(entry) + ": " + r.error;
        vals[i - 1] = unsigned(r.value);
      }
      JobOptions::PrioSplit e{uint32_t(bs.value), std::min(vals[0], 100u), -1};
      if (f.size() >= 4) e.ioprio = ioprio_value(std::min(vals[1], 3u), std::min(vals[2], 7u));
      if (e.percent) out[size_t(d)].push_back(e);
    }
    auto& list = out[size_t(d)];
    std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.bs < b.bs; });
    for (size_t i = 0; i < list.size();) {  // fio: at most 100 % per block size
      unsigned total = 0;
      size_t k = i;
      for (; k < list.size() && list[k].bs == list[i].bs; ++k) total += list[k].percent;
      if (total > 100)
        return "cmdprio_bssplit: the shares of block size " + std::to_string(list[i].bs) +
               " add up to more than 100 %";
      i = k;
    }
  }
  job.cmdprio_bssplit = std::move(out);
  return {};
}

std::string apply_time(std::chrono::microseconds& out, std::string_view v, TimeUnit unit) {
  NumberResult r = parse_time(v, unit);
  if (!r.ok()) return r.error;
  out = std::chrono::microseconds(r.value);
  return {};
}

}  // namespace

std::string_view canonical_option_name(std::string_view name) noexcept {
  const OptionSpec* o = find_option(name);
  return o ? o->name : std::string_view{};
}

bool option_value_optional(std::string_view canonical_name) noexcept {
  const OptionSpec* o = find_option(canonical_name);
  return o && o->value_optional;
}

std::string apply_option(JobOptions& job, std::string_view name, std::optional<std::string_view> value) {
  const OptionSpec* spec = find_option(name);
  if (!spec) return unsupported_message(name);
  const bool bare = !value;
  if (!value) {
    if (!spec->value_optional)
      return "option '" + printable(name) + "' requires a value (" + std::string(spec->name) + "=...)";
    value = "1";
  }
  std::string_view v = *value;
  if (v.empty()) return "option '" + printable(name) + "' has an empty value";
  // filename_format's $jobname, $jobnum, $filenum are fio's own keywords.
  if (v.find('$') != std::string_view::npos && spec->id != Opt::filename_format)
    return "variable expansion is not supported: " + printable(name) + "=" + printable(v);

  auto integer = [&](unsigned& out, uint64_t min, uint64_t max) -> std::string {
    NumberResult r = parse_integer(v, 0, max);
    if (r.ok() && r.value < min)
      return std::string(spec->name) + " must be at least " + std::to_string(min) + " (got " + quoted(v) +
             ")";
    if (!r.ok()) return std::string(spec->name) + ": " + r.error;
    out = static_cast<unsigned>(r.value);
    return {};
  };
  auto boolean = [&](bool& out) -> std::string {
    auto err = parse_bool(v, out);
    return err.empty() ? err : std::string(spec->name) + ": " + err;
  };
  auto size_or_percent = [&](uint64_t& bytes, unsigned& percent) -> std::string {
    NumberResult r = parse_size(v, true);
    if (!r.ok()) return std::string(spec->name) + ": " + r.error;
    bytes = r.percent ? 0 : r.value;
    percent = r.percent ? static_cast<unsigned>(r.value) : 0;
    return {};
  };

  switch (spec->id) {
    case Opt::name:
      job.name = std::string(v);
      return {};
    case Opt::description:
      job.description = std::string(v);
      return {};
    case Opt::filename:
      // a:b:c is a list of files (file_set.hpp). Each filename= adds to the
      // files the job inherits, as fio's (its option callback adds files):
      // --filename=X with filename=a in [global] and filename=b in a job
      // runs that job on X, a and b. Names given twice are used twice.
      if (!job.filename.empty()) job.filename += ':';
      job.filename += v;
      return {};
    case Opt::directory:
      for (size_t i = 0; i < v.size(); ++i)
        if (v[i] == ':' && (i == 0 || v[i - 1] != '\\'))
          return "directory: several directories ('a:b') are not supported: " + quoted(v);
      job.directory = std::string(v);
      return {};
    case Opt::nrfiles:
      return integer(job.nrfiles, 1, 1u << 16);
    case Opt::filename_format:
      job.filename_format = std::string(v);
      return {};
    case Opt::create_on_open:
      return boolean(job.create_on_open);
    case Opt::unlink:
      return boolean(job.unlink);
    case Opt::fill_device:
      return boolean(job.fill_device);
    case Opt::file_service_type:
      return apply_file_service(job, v);
    case Opt::rw:
      return apply_rw(job, v);
    case Opt::rwmixread: {
      unsigned x = 0;
      if (auto err = integer(x, 0, 100); !err.empty()) return err;
      job.rwmixread = x;
      return {};
    }
    case Opt::rwmixwrite: {
      unsigned x = 0;
      if (auto err = integer(x, 0, 100); !err.empty()) return err;
      job.rwmixread = 100 - x;
      return {};
    }
    case Opt::bs:
      if (v.find(':') != std::string_view::npos || v.find('-') != std::string_view::npos)
        return "bs: block size ranges (" + quoted(v) + ") are not supported; use bs=SIZE or bs=READ,WRITE";
      job.bs_max = {0, 0};
      job.bssplit = {};
      return parse_per_direction(
          "bs", v, job.bs,
          [](std::string_view part, uint32_t& out) -> std::string {
            NumberResult r = parse_size(part);
            if (!r.ok()) return "bs: " + r.error;
            if (r.value == 0) return "bs must be at least 1 byte";
            if (r.value > std::numeric_limits<uint32_t>::max()) return "bs " + quoted(part) + " is too large";
            out = static_cast<uint32_t>(r.value);
            return {};
          },
          &job.bs_trim);
    case Opt::bsrange:
      return apply_bsrange(job, v);
    case Opt::bssplit:
      return apply_bssplit(job, v);
    case Opt::size: {
      if (auto err = size_or_percent(job.size, job.size_percent); !err.empty()) return err;
      job.size_from_filesize = false;
      return {};
    }
    case Opt::offset:
      return size_or_percent(job.offset, job.offset_percent);
    case Opt::filesize: {
      // Each file's size (file_set.hpp); for a one-file job, its region when
      // size= is not given (fio: size defaults to filesize x nrfiles). A
      // range (lo-hi, fio's random size per file) is refused.
      if (v.find('-') != std::string_view::npos || v.find(':') != std::string_view::npos)
        return "filesize ranges (" + quoted(v) + ") are not supported: every file of a job has one size";
      NumberResult r = parse_size(v);
      if (!r.ok()) return "filesize: " + r.error;
      job.filesize = r.value;
      if ((job.size == 0 || job.size_from_filesize) && job.size_percent == 0)
        job.size = r.value, job.size_from_filesize = true;
      return {};
    }
    case Opt::io_size: {
      NumberResult r = parse_size(v);
      if (!r.ok()) return "io_size: " + r.error;
      job.io_size = r.value;
      return {};
    }
    case Opt::loops:
      return integer(job.loops, 1, 1u << 30);
    case Opt::number_ios: {
      NumberResult r = parse_integer(v, 0, std::numeric_limits<uint64_t>::max());
      if (!r.ok()) return "number_ios: " + r.error;
      job.number_ios = r.value;
      return {};
    }
    case Opt::iodepth:
      return integer(job.iodepth, 1, 65535);
    case Opt::iodepth_batch_submit:
      return integer(job.iodepth_batch_submit, 0, 65535);
    case Opt::iodepth_batch_complete_min:
      if (v == "0")
        return "iodepth_batch_complete_min=0 (poll for completions between submissions) is not supported; "
               "use 1 or more";
      return integer(job.iodepth_batch_complete_min, 1, 65535);
    case Opt::iodepth_batch_complete_max:
      return integer(job.iodepth_batch_complete_max, 0, 65535);
    case Opt::numjobs:
      return integer(job.numjobs, 1, 4096);
    case Opt::runtime:
      return apply_time(job.runtime, v, TimeUnit::seconds);
    case Opt::time_based:
      return boolean(job.time_based);
    case Opt::ramp_time:
      return apply_time(job.ramp_time, v, TimeUnit::seconds);
    case Opt::startdelay:
      if (v.find('-') != std::string_view::npos || v.find(':') != std::string_view::npos)
        return "startdelay ranges are not supported: " + quoted(v);
      return apply_time(job.startdelay, v, TimeUnit::seconds);
    case Opt::direct:
      job.direct_given = true;
      return boolean(job.direct);
    case Opt::buffered: {  // fio: buffered=1 is direct=0 and the other way round
      bool buffered = false;
      if (auto err = boolean(buffered); !err.empty()) return err;
      job.direct = !buffered;
      job.direct_given = true;
      return {};
    }
    case Opt::ioengine:
      return apply_ioengine(job, v);
    case Opt::randrepeat:
      return boolean(job.randrepeat);
    case Opt::randseed: {
      NumberResult r = parse_size(v);
      if (!r.ok()) return "randseed: " + r.error;
      job.randseed = r.value;
      job.randseed_given = true;
      return {};
    }
    case Opt::norandommap:
      return boolean(job.norandommap);
    case Opt::random_distribution:
      return apply_distribution(job, v);
    case Opt::rate:
      return parse_rate_values("rate", v, job.rate, &job.rate_trim, false);
    case Opt::rate_iops:
      return parse_rate_values("rate_iops", v, job.rate_iops, &job.rate_iops_trim, true);
    case Opt::rate_min:
      return parse_rate_values("rate_min", v, job.rate_min, &job.rate_min_trim, false);
    case Opt::rate_iops_min:
      return parse_rate_values("rate_iops_min", v, job.rate_iops_min, &job.rate_iops_min_trim, true);
    case Opt::rate_cycle: {  // fio: an integer of milliseconds
      unsigned ms = 0;
      if (std::string err = integer(ms, 1, 1u << 30); !err.empty()) return err;
      job.rate_cycle = std::chrono::milliseconds(ms);
      return {};
    }
    case Opt::rate_process:
      if (v != "linear" && v != "poisson") return "bad rate_process " + quoted(v) + " (linear, poisson)";
      job.rate_poisson = v == "poisson";
      return {};
    case Opt::io_submit_mode:
      if (v != "inline" && v != "offload") return "bad io_submit_mode " + quoted(v) + " (inline, offload)";
      job.submit_offload = v == "offload";
      return {};
    case Opt::thinktime:
      return apply_time(job.thinktime, v, TimeUnit::microseconds);
    case Opt::verify:
      return apply_verify(job, v);
    case Opt::do_verify:
      return boolean(job.do_verify);
    case Opt::verify_fatal:
      return boolean(job.verify_fatal);
    case Opt::verify_interval: {
      NumberResult r = parse_size(v);
      if (!r.ok() || r.value < 512 || r.value % 8 || r.value > std::numeric_limits<uint32_t>::max())
        return "verify_interval: " + quoted(v) + " must be at least 512 bytes and a multiple of 8";
      job.verify_interval = uint32_t(r.value);
      return {};
    }
    case Opt::verify_pattern:
      return apply_verify_pattern(job, v);
    case Opt::group_reporting:
      return boolean(job.group_reporting);
    case Opt::stonewall:
      return boolean(job.stonewall);
    case Opt::percentile_list:
      return apply_percentiles(job, v);
    case Opt::thread:
      return boolean(job.thread);
    case Opt::scramble_buffers:
      return boolean(job.scramble_buffers);
    case Opt::refill_buffers:
      return boolean(job.refill_buffers);
    case Opt::dedupe_percentage:
      return integer(job.dedupe_percentage, 0, 100);
    case Opt::dedupe_mode:
      if (v != "repeat" && v != "working_set")
        return "bad dedupe_mode " + quoted(v) + " (repeat, working_set)";
      job.dedupe_mode_working_set = v == "working_set";
      return {};
    case Opt::dedupe_working_set_percentage:
      return integer(job.dedupe_working_set_percentage, 0, 100);
    case Opt::dedupe_global:
      return boolean(job.dedupe_global);
    case Opt::buffer_compress_percentage:
      return integer(job.buffer_compress_percentage, 0, 100);
    case Opt::buffer_compress_chunk: {
      NumberResult r = parse_size(v);
      if (!r.ok() || r.value == 0 || r.value > (1u << 20) || r.value % 8)
        return "buffer_compress_chunk: " + quoted(v) + " must be 8 bytes to 1 MiB, a multiple of 8";
      job.buffer_compress_chunk = uint32_t(r.value);
      return {};
    }
    case Opt::blockalign: {
      NumberResult r = parse_size(v);
      if (!r.ok() || r.value == 0 || r.value > std::numeric_limits<uint32_t>::max())
        return "blockalign: bad size " + quoted(v) + " (per-direction values are not supported)";
      job.blockalign = uint32_t(r.value);
      return {};
    }
    case Opt::new_group:
      return boolean(job.new_group);
    case Opt::exitall:
      return boolean(job.exitall);
    case Opt::ss: {
      const size_t colon = v.find(':');
      const std::string_view kind = v.substr(0, colon);
      if (kind == "iops")
        job.ss = JobOptions::SteadyKind::iops;
      else if (kind == "iops_slope")
        job.ss = JobOptions::SteadyKind::iops_slope;
      else if (kind == "bw")
        job.ss = JobOptions::SteadyKind::bw;
      else if (kind == "bw_slope")
        job.ss = JobOptions::SteadyKind::bw_slope;
      else
        return "bad steadystate " + quoted(v) + " (iops, iops_slope, bw, bw_slope, then :LIMIT or :LIMIT%)";
      std::string_view limit = colon == std::string_view::npos ? std::string_view{} : v.substr(colon + 1);
      job.ss_percent = !limit.empty() && limit.back() == '%';
      if (job.ss_percent) limit.remove_suffix(1);
      if (!parse_double(limit, job.ss_limit) || job.ss_limit < 0)
        return "bad steadystate limit in " + quoted(v);
      return {};
    }
    case Opt::ss_dur:
      return apply_time(job.ss_dur, v, TimeUnit::seconds);
    case Opt::ss_ramp:
      return apply_time(job.ss_ramp, v, TimeUnit::seconds);
    case Opt::ss_interval:
      return apply_time(job.ss_interval, v, TimeUnit::seconds);
    case Opt::create_serialize: {
      // Files are laid out one after another before any job starts: fio's
      // create_serialize=1; 0 has nothing to run in parallel here.
      bool ignored = false;
      return boolean(ignored);
    }
    case Opt::zonemode:
      if (v == "none") {
        job.zonesize = job.zonerange = job.zoneskip = 0;
        job.zbd = false;
        return {};
      }
      if (v == "strided" || v == "zbd") {
        job.zbd = v == "zbd";
        return {};
      }
      return "zonemode=" + printable(v) + " is not supported (none, strided, zbd)";
    case Opt::zonesize:
    case Opt::zonerange:
    case Opt::zoneskip: {
      NumberResult r = parse_size(v);
      if (!r.ok()) return std::string(spec->name) + ": " + r.error;
      (spec->id == Opt::zonesize    ? job.zonesize
       : spec->id == Opt::zonerange ? job.zonerange
                                    : job.zoneskip) = r.value;
      return {};
    }
    case Opt::flow:
      if (v.front() == '-') return "flow: negative weights are not supported: " + quoted(v);
      return integer(job.flow, 0, 1u << 20);
    case Opt::flow_id:
      return integer(job.flow_id, 0, 1u << 30);
    case Opt::flow_sleep:
      return apply_time(job.flow_sleep, v, TimeUnit::microseconds);
    case Opt::latency_target: {
      std::chrono::microseconds us{0};
      if (std::string err = apply_time(us, v, TimeUnit::microseconds); !err.empty()) return err;
      job.latency_target_ns = uint64_t(us.count()) * 1000;
      return {};
    }
    case Opt::latency_window:
      return apply_time(job.latency_window, v, TimeUnit::microseconds);
    case Opt::latency_percentile:
      if (!parse_double(v, job.latency_percentile) || job.latency_percentile < 0 ||
          job.latency_percentile > 100)
        return "latency_percentile: " + quoted(v) + " must be a number in [0, 100]";
      return {};
    case Opt::latency_run:
      return boolean(job.latency_run);
    case Opt::prio: {
      unsigned level = 0;
      if (std::string err = integer(level, 0, 7); !err.empty()) return err;
      job.prio = int(level);
      return {};
    }
    case Opt::prioclass: {
      unsigned cls = 0;
      if (std::string err = integer(cls, 0, 3); !err.empty()) return err;
      job.prioclass = int(cls);
      return {};
    }
    case Opt::cmdprio_percentage:
      return parse_two_ints("cmdprio_percentage", v, job.cmdprio_percentage, 0, 100);
    case Opt::cmdprio_class:
      return parse_two_ints("cmdprio_class", v, job.cmdprio_class, 1, 3);
    case Opt::cmdprio:
      return parse_two_ints("cmdprio", v, job.cmdprio_level, 0, 7);
    case Opt::cmdprio_bssplit:
      return apply_cmdprio_bssplit(job, v);
    case Opt::log_prio:
      return boolean(job.log_prio);
    case Opt::read_beyond_wp:
      return boolean(job.read_beyond_wp);
    case Opt::max_open_zones:
      return integer(job.max_open_zones, 0, 1u << 20);
    case Opt::zone_reset_threshold:
    case Opt::zone_reset_frequency: {
      double x = 0;
      if (!parse_double(v, x) || x < 0 || x > 1)
        return std::string(spec->name) + ": " + quoted(v) + " must be a number in [0, 1]";
      (spec->id == Opt::zone_reset_threshold ? job.zone_reset_threshold : job.zone_reset_frequency) = x;
      return {};
    }
    case Opt::invalidate:
      return boolean(job.invalidate);
    case Opt::fadvise_hint:
      if (v == "random" || v == "sequential")
        return "fadvise_hint=" + printable(v) + " is not supported (0 or 1)";
      return boolean(job.fadvise_hint);
    case Opt::write_bw_log:
      job.bw_log = true;
      job.bw_log_prefix = bare ? "" : std::string(v);
      return {};
    case Opt::write_iops_log:
      job.iops_log = true;
      job.iops_log_prefix = bare ? "" : std::string(v);
      return {};
    case Opt::write_lat_log:
      job.lat_log = true;
      job.lat_log_prefix = bare ? "" : std::string(v);
      return {};
    case Opt::log_avg_msec:
      return integer(job.log_avg_msec, 0, 1u << 30);
    case Opt::log_offset:
      return boolean(job.log_offset);
    case Opt::per_job_logs:
      return boolean(job.per_job_logs);
    case Opt::write_iolog:
      job.write_iolog = std::string(v);
      return {};
    case Opt::exit_what:
      if (v == "group")
        job.exit_what = JobOptions::ExitWhat::group;
      else if (v == "stonewall")
        job.exit_what = JobOptions::ExitWhat::stonewall;
      else if (v == "all")
        job.exit_what = JobOptions::ExitWhat::all;
      else
        return "bad exit_what " + quoted(v) + " (group, stonewall, all)";
      return {};
    case Opt::wait_for:
      job.wait_for = std::string(v);
      return {};
    case Opt::gtod_reduce:
      // fio's gtod_reduce: no latency figures (disable_lat, disable_clat,
      // disable_slat, no percentiles), so no clock work per I/O for them.
      return boolean(job.gtod_reduce);
    case Opt::random_generator:
      // Which generator draws the offsets: fio's tausworthe64, lfsr or
      // tausworthe all give uniform offsets; RaidScope has one generator.
      if (v != "tausworthe" && v != "lfsr" && v != "tausworthe64")
        return "bad random_generator " + quoted(v) + " (tausworthe, lfsr, tausworthe64)";
      return {};
  }
  return "internal error: unhandled option '" + printable(name) + "'";
}

}  // namespace rs::fio
