#include "workload/job_options.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "workload/size_parse.hpp"

namespace rs::workload {
namespace {

enum class Opt {
  name,
  description,
  filename,
  rw,
  rwmixread,
  rwmixwrite,
  bs,
  size,
  offset,
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
  group_reporting,
  stonewall,
  percentile_list,
  thread,
  scramble_buffers,
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
    {"size", "", Opt::size, false},
    {"offset", "fileoffset", Opt::offset, false},
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
    {"group_reporting", "", Opt::group_reporting, true},
    {"stonewall", "wait_for_previous", Opt::stonewall, true},
    {"percentile_list", "", Opt::percentile_list, false},
    {"thread", "", Opt::thread, true},
    {"scramble_buffers", "", Opt::scramble_buffers, false},
};

const OptionSpec* find_option(std::string_view name) {
  for (const auto& o : kOptions)
    if (o.name == name || (!o.alias.empty() && o.alias == name)) return &o;
  return nullptr;
}

// Hints for fio options people commonly carry over.
std::string unsupported_message(std::string_view name) {
  std::string msg = "unsupported option '" + std::string(name) + "'";
  if (name == "bsrange" || name == "blocksize_range" || name == "bssplit")
    msg += " (only fixed block sizes: bs=SIZE or bs=READ,WRITE)";
  else if (name == "include")
    msg += " (include files are not supported)";
  else if (name == "kb_base")
    msg += " (sizes always use fio's default kb_base=1024)";
  else if (name == "buffered")
    msg += " (use direct=0 or direct=1)";
  return msg;
}

std::string quoted(std::string_view v) {
  return "'" + std::string(v) + "'";
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
                                Parse parse) {
  size_t comma = v.find(',');
  if (comma == std::string_view::npos) {
    T value{};
    if (auto err = parse(v, value); !err.empty()) return err;
    out = {value, value};
    return {};
  }
  std::string_view parts[2] = {v.substr(0, comma), v.substr(comma + 1)};
  if (size_t second = parts[1].find(','); second != std::string_view::npos) {
    if (!parts[1].substr(second + 1).empty())
      return std::string(option) + ": a third (trim) value is not supported: " + quoted(v);
    parts[1] = parts[1].substr(0, second);
  }
  if (parts[0].empty() && parts[1].empty()) return std::string(option) + ": no value in " + quoted(v);
  std::array<T, 2> result = out;
  for (int d = 0; d < 2; ++d) {
    if (parts[d].empty()) continue;
    if (auto err = parse(parts[d], result[d]); !err.empty()) return err;
  }
  out = result;
  return {};
}

std::string apply_rw(JobOptions& job, std::string_view v) {
  std::string_view mode = v.substr(0, v.find(':'));
  if (mode.size() != v.size()) return "rw=" + std::string(v) + ": the ':N' sequence postfix is not supported";
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
  else if (mode == "trim" || mode == "randtrim" || mode == "trimwrite" || mode == "randtrimwrite")
    return "rw=" + std::string(mode) + " is not supported: RaidScope does not issue trims";
  else
    return "bad rw " + quoted(v) + " (read, write, randread, randwrite, rw, readwrite, randrw)";
  return {};
}

std::string apply_ioengine(JobOptions& job, std::string_view v) {
  struct Engine {
    std::string_view name;
    IoEngine e;
  };
  static constexpr Engine kEngines[] = {
      {"io_uring", IoEngine::io_uring}, {"libaio", IoEngine::libaio}, {"psync", IoEngine::psync},
      {"sync", IoEngine::sync},         {"pvsync", IoEngine::pvsync}, {"posixaio", IoEngine::posixaio},
      {"null", IoEngine::null},
  };
  for (const auto& e : kEngines) {
    if (e.name == v) {
      job.ioengine = e.e;
      return {};
    }
  }
  return "ioengine " + quoted(v) +
         " is not supported (io_uring, libaio, psync, sync, pvsync, posixaio, null)";
}

std::string apply_verify(JobOptions& job, std::string_view v) {
  if (v == "0")
    job.verify = VerifyKind::none;
  else if (v == "md5")
    job.verify = VerifyKind::md5;
  else if (v == "crc32c" || v == "crc32c-intel")
    job.verify = VerifyKind::crc32c;
  else if (v == "none")
    return "verify=none is not a fio value: fio spells no verification verify=0";
  else
    return "verify=" + std::string(v) + " is not supported (0, crc32c, crc32c-intel, md5)";
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
  } else if (kind == "zoned" || kind == "zoned_abs") {
    return "random_distribution=" + std::string(kind) + " is not supported (random, zipf, pareto, normal)";
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

std::string apply_time(std::chrono::microseconds& out, std::string_view v, TimeUnit unit) {
  NumberResult r = parse_time(v, unit);
  if (!r.ok()) return r.error;
  out = std::chrono::microseconds(r.value);
  return {};
}

}  // namespace

std::string_view to_string(RwMode m) noexcept {
  switch (m) {
    case RwMode::read:
      return "read";
    case RwMode::write:
      return "write";
    case RwMode::randread:
      return "randread";
    case RwMode::randwrite:
      return "randwrite";
    case RwMode::readwrite:
      return "rw";
    case RwMode::randrw:
      return "randrw";
  }
  return "?";
}

std::string_view to_string(IoEngine e) noexcept {
  switch (e) {
    case IoEngine::io_uring:
      return "io_uring";
    case IoEngine::libaio:
      return "libaio";
    case IoEngine::psync:
      return "psync";
    case IoEngine::sync:
      return "sync";
    case IoEngine::pvsync:
      return "pvsync";
    case IoEngine::posixaio:
      return "posixaio";
    case IoEngine::null:
      return "null";
  }
  return "?";
}

std::string_view to_string(Distribution d) noexcept {
  switch (d) {
    case Distribution::random:
      return "random";
    case Distribution::zipf:
      return "zipf";
    case Distribution::pareto:
      return "pareto";
    case Distribution::normal:
      return "normal";
  }
  return "?";
}

std::string_view to_string(VerifyKind v) noexcept {
  switch (v) {
    case VerifyKind::none:
      return "0";
    case VerifyKind::crc32c:
      return "crc32c";
    case VerifyKind::md5:
      return "md5";
  }
  return "?";
}

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
  if (!value) {
    if (!spec->value_optional)
      return "option '" + std::string(name) + "' requires a value (" + std::string(spec->name) + "=...)";
    value = "1";
  }
  std::string_view v = *value;
  if (v.empty()) return "option '" + std::string(name) + "' has an empty value";
  if (v.find('$') != std::string_view::npos)
    return "variable expansion is not supported: " + std::string(name) + "=" + std::string(v);

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
      for (size_t i = 0; i < v.size(); ++i)
        if (v[i] == ':' && (i == 0 || v[i - 1] != '\\'))
          return "filename: several files ('a:b') are not supported: " + quoted(v);
      job.filename = std::string(v);
      return {};
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
      return parse_per_direction("bs", v, job.bs, [](std::string_view part, uint32_t& out) -> std::string {
        NumberResult r = parse_size(part);
        if (!r.ok()) return "bs: " + r.error;
        if (r.value == 0) return "bs must be at least 1 byte";
        if (r.value > std::numeric_limits<uint32_t>::max()) return "bs " + quoted(part) + " is too large";
        out = static_cast<uint32_t>(r.value);
        return {};
      });
    case Opt::size: {
      if (auto err = size_or_percent(job.size, job.size_percent); !err.empty()) return err;
      return {};
    }
    case Opt::offset:
      return size_or_percent(job.offset, job.offset_percent);
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
      return boolean(job.direct);
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
      return parse_per_direction("rate", v, job.rate,
                                 [](std::string_view part, uint64_t& out) -> std::string {
                                   NumberResult r = parse_size(part);
                                   if (!r.ok()) return "rate: " + r.error;
                                   out = r.value;
                                   return {};
                                 });
    case Opt::rate_iops:
      return parse_per_direction(
          "rate_iops", v, job.rate_iops, [](std::string_view part, uint64_t& out) -> std::string {
            NumberResult r = parse_integer(part, 0, std::numeric_limits<uint32_t>::max());
            if (!r.ok()) return "rate_iops: " + r.error;
            out = r.value;
            return {};
          });
    case Opt::thinktime:
      return apply_time(job.thinktime, v, TimeUnit::microseconds);
    case Opt::verify:
      return apply_verify(job, v);
    case Opt::do_verify:
      return boolean(job.do_verify);
    case Opt::verify_fatal:
      return boolean(job.verify_fatal);
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
  }
  return "internal error: unhandled option '" + std::string(name) + "'";
}

}  // namespace rs::workload
