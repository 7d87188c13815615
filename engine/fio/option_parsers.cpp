// The parsers behind the option table's custom rows (option_table.cpp):
// options whose value is more than one field of JobOptions (bs=READ,WRITE,
// rw=MODE:N, random_distribution=zipf:1.2, ...), as fio's options.c
// callbacks read them. Each returns a Status whose message names the option
// and what is wrong with the value; on an error the job is left as it was
// unless the message says otherwise.
#include "fio/option_parsers.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "base/printable.hpp"
#include "fio/pattern_parse.hpp"
#include "fio/size_parse.hpp"

namespace rs::fio::opt {

using namespace rs::workload;

namespace {

Status bad(std::string message) {
  return make_error(Errc::invalid_argument, std::move(message));
}

std::string quoted(std::string_view v) {
  return quoted_printable(v);
}

Status parse_bool(std::string_view v, bool& out) {
  if (v == "0" || v == "1") {
    out = v == "1";
    return {};
  }
  return bad("expected 0 or 1, got " + quoted(v));
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
Status parse_per_direction(std::string_view option, std::string_view v, std::array<T, 2>& out, Parse parse,
                           T* trim = nullptr) {
  size_t comma = v.find(',');
  if (comma == std::string_view::npos) {
    T value{};
    if (Status st = parse(v, value); !st) return st;
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
      if (Status st = parse(trim_part, value); !st) return st;
      if (trim) *trim = value;
    }
    parts[1] = parts[1].substr(0, second);
  }
  if (parts[0].empty() && parts[1].empty() && !(third_given && trim_value_given))
    return bad(std::string(option) + ": no value in " + quoted(v));
  std::array<T, 2> result = out;
  for (int d = 0; d < 2; ++d) {
    if (parts[d].empty()) continue;
    if (Status st = parse(parts[d], result[d]); !st) return st;
  }
  out = result;
  // fio's HOWTO: "bs=8k,32k means 8k for reads, 32k for writes and trims";
  // "bs=8k,32k," leaves trims at their default.
  if (trim && !third_given && !parts[1].empty()) *trim = result[1];
  return {};
}

// rate=, rate_min= (bytes per second, sizes) and rate_iops=,
// rate_iops_min= (counts): per direction, the third value for trims.
Status parse_rate_values(std::string_view option, std::string_view v, std::array<uint64_t, 2>& out,
                         uint64_t* trim, bool count) {
  return parse_per_direction(
      option, v, out,
      [&](std::string_view part, uint64_t& value) -> Status {
        NumberResult r =
            count ? parse_integer(part, 0, std::numeric_limits<uint32_t>::max()) : parse_size(part);
        if (!r.ok()) return bad(std::string(option) + ": " + r.error().message);
        value = r->value;
        return {};
      },
      trim);
}

// file_service_type= (fio's str_fst_cb): roundrobin, sequential, random,
// each with an optional :N (I/Os per file before switching); zipf[:THETA],
// pareto[:H], normal or gauss[:DEV], each with an optional :CENTER (0..1),
// with fio's defaults 1.1, 0.2 and 0.
// bsrange=MIN-MAX[,MIN-MAX]: per direction, like bs=.
// bssplit=BS/PERCENT:BS/PERCENT...[,READ-LIST-THEN-WRITE-LIST] (fio's
// bssplit_ddir): a size without a percentage shares what the others leave.
// verify_pattern= and buffer_pattern=: fio's pattern syntax (pattern_parse.hpp).
// random_distribution=zoned:A1/R1:A2/R2... (fio's parse_zoned_distribution):
// A% of the I/Os go to the next R% of the region. One list for every
// direction; per-direction lists (",") are refused.
Status apply_zoned(JobOptions& job, std::string_view v, std::string_view params) {
  if (params.find(',') != std::string_view::npos)
    return bad("random_distribution=zoned with per-direction lists is not supported: " + quoted(v));
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
      return bad("bad zone " + quoted(item) + " in " + quoted(v) + " (ACCESS%/REGION%)");
    access += z.access_percent;
    if (z.region_percent > 0) region += z.region_percent;
    zones.push_back(z);
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  if (zones.empty()) return bad("random_distribution=zoned needs zones: " + quoted(v));
  for (auto& z : zones)
    if (z.region_percent < 0) z.region_percent = &z == &zones.back() ? std::max(0.0, 100.0 - region) : 0.0;
  if (access > 100.0 + 1e-9 || region > 100.0 + 1e-9)
    return bad("random_distribution=zoned: access or region percentages add up to more than 100: " +
               quoted(v));
  job.random_distribution = Distribution::zoned;
  job.zones = std::move(zones);
  job.distribution_param = 0.0;
  job.distribution_center = -1.0;
  return {};
}

// random_distribution=NAME[:VALUE[:CENTER]] with fio's defaults and ranges
// (options.c str_random_distribution_cb): zipf theta 1.1, != 1; pareto h 0.2,
// in (0, 1); normal deviation 0, in [0, 100); center in [0, 1].
// percentile_list=P1:P2:... (fio FIO_OPT_FLOAT_LIST: at most 20 entries, 0..100).
// fio's FIO_OPT_INT with off1/off2: "R,W" per direction, one value for both.
Status parse_two_ints(std::string_view name, std::string_view v, std::array<unsigned, 2>& out, unsigned min,
                      unsigned max) {
  const size_t comma = v.find(',');
  const std::string_view parts[2] = {v.substr(0, comma),
                                     comma == std::string_view::npos ? v : v.substr(comma + 1)};
  std::array<unsigned, 2> got{};
  for (int d = 0; d < 2; ++d) {
    NumberResult r = parse_integer(parts[d], 0, max);
    if (!r.ok() || r->value < min)
      return bad(printable(name) + ": " + quoted(v) + " must be " + std::to_string(min) + " to " +
                 std::to_string(max) + " (or READ,WRITE)");
    got[size_t(d)] = unsigned(r->value);
  }
  out = got;
  return {};
}

// cmdprio_bssplit=BS/PERC[/CLASS/LEVEL]:... per direction ("READ,WRITE"; one
// list for both), fio 3.33's split_parse_prio_ddir: zero shares are
// dropped, class and level clamped to 3 and 7, the list sorted by block
// size. fio 3.33 reads four fields; a fifth (the hint of later fios) is
// ignored, as fio 3.33 ignores it.
}  // namespace

Status set_flag(std::string_view name, std::string_view v, bool& out) {
  Status st = parse_bool(v, out);
  return st ? st : bad(std::string(name) + ": " + st.error().message);
}

Status set_count(std::string_view name, std::string_view v, uint64_t min, uint64_t max, unsigned& out) {
  NumberResult r = parse_integer(v, 0, max);
  if (r.ok() && r->value < min)
    return bad(std::string(name) + " must be at least " + std::to_string(min) + " (got " + quoted(v) + ")");
  if (!r.ok()) return bad(std::string(name) + ": " + r.error().message);
  out = static_cast<unsigned>(r->value);
  return {};
}

Status apply_file_service(JobOptions& job, std::string_view v) {
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
      if (!r.ok() || r->value < 1) return bad("file_service_type: bad count in " + quoted(v));
      job.file_service_nr = unsigned(r->value);
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
    return bad("bad file_service_type " + quoted(v) +
               " (roundrobin, sequential, random[:N], zipf[:THETA], pareto[:H], normal[:DEV], gauss[:DEV])");
  if (colon == std::string_view::npos) return {};
  const size_t second = rest.find(':');
  if (!parse_double(rest.substr(0, second), job.file_service_param))
    return bad("file_service_type: bad number in " + quoted(v));
  if (second != std::string_view::npos && (!parse_double(rest.substr(second + 1), job.file_service_center) ||
                                           job.file_service_center < 0 || job.file_service_center > 1))
    return bad("file_service_type: the center in " + quoted(v) + " must be a number in [0, 1]");
  const double x = job.file_service_param;
  if (job.file_service == FS::zipf && (x <= 0 || x == 1.0))
    return bad("file_service_type: zipf theta must be positive and different from 1.0: " + quoted(v));
  if (job.file_service == FS::pareto && (x <= 0 || x >= 1))
    return bad("file_service_type: pareto h must be in (0, 1): " + quoted(v));
  if (job.file_service == FS::normal && (x < 0 || x >= 100))
    return bad("file_service_type: the normal deviation must be in [0, 100): " + quoted(v));
  return {};
}

Status apply_rw(JobOptions& job, std::string_view v) {
  std::string_view mode = v.substr(0, v.find(':'));
  job.seq_add = 0;
  if (mode.size() != v.size()) {
    // fio's postfix: rw=read:8k skips 8k after each I/O, read:-8k goes back.
    std::string_view add = v.substr(mode.size() + 1);
    const bool negative = !add.empty() && add.front() == '-';
    if (negative) add.remove_prefix(1);
    NumberResult r = parse_size(add);
    if (!r.ok() || r->value > (uint64_t(1) << 40)) return bad("rw=" + printable(v) + ": bad ':N' postfix");
    job.seq_add = negative ? -int64_t(r->value) : int64_t(r->value);
    if (mode.starts_with("rand"))
      return bad("rw=" + printable(v) +
                 ": for random I/O the ':N' postfix (a new random offset every N I/Os) is "
                 "not supported");
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
    return bad("bad rw " + quoted(v) +
               " (read, write, randread, randwrite, rw, readwrite, randrw, trim, randtrim, trimwrite, "
               "randtrimwrite)");
  if (job.seq_add != 0 && does_trim(job.rw))
    return bad("rw=" + printable(v) + ": the ':N' postfix is not supported with trims");
  return {};
}

Status apply_bsrange(JobOptions& job, std::string_view v) {
  std::array<std::pair<uint32_t, uint32_t>, 2> r{{{job.bs[0], max_bs(job, 0)}, {job.bs[1], max_bs(job, 1)}}};
  std::pair<uint32_t, uint32_t> trim{job.bs_trim, std::max(job.bs_trim, job.bs_trim_max)};
  Status st = parse_per_direction(
      "bsrange", v, r,
      [](std::string_view part, std::pair<uint32_t, uint32_t>& out) -> Status {
        // fio's check_range takes MIN-MAX and MIN:MAX alike.
        const size_t dash = part.find_first_of("-:");
        if (dash == std::string_view::npos)
          return bad("bsrange: expected MIN-MAX or MIN:MAX, got " + quoted(part));
        NumberResult lo = parse_size(part.substr(0, dash)), hi = parse_size(part.substr(dash + 1));
        if (!lo.ok() || !hi.ok() || lo->value == 0 || hi->value > std::numeric_limits<uint32_t>::max())
          return bad("bsrange: bad range " + quoted(part));
        out = {uint32_t(std::min(lo->value, hi->value)), uint32_t(std::max(lo->value, hi->value))};
        return {};
      },
      &trim);
  if (!st) return st;
  for (int d = 0; d < 2; ++d) {
    job.bs[size_t(d)] = r[size_t(d)].first;
    job.bs_max[size_t(d)] = r[size_t(d)].second;
    job.bssplit[size_t(d)].clear();
  }
  job.bs_trim = trim.first;
  job.bs_trim_max = trim.second;
  job.bssplit_trim.clear();
  return {};
}

Status apply_bssplit(JobOptions& job, std::string_view v) {
  std::array<std::vector<JobOptions::BsShare>, 2> lists = job.bssplit;
  std::vector<JobOptions::BsShare> trim;
  Status st = parse_per_direction(
      "bssplit", v, lists,
      [](std::string_view part, std::vector<JobOptions::BsShare>& out) -> Status {
        out.clear();
        unsigned sum = 0, missing = 0;
        size_t start = 0;
        while (start <= part.size()) {
          size_t colon = part.find(':', start);
          std::string_view item =
              part.substr(start, colon == std::string_view::npos ? part.npos : colon - start);
          const size_t slash = item.find('/');
          NumberResult bs = parse_size(item.substr(0, slash));
          if (!bs.ok() || bs->value == 0 || bs->value > std::numeric_limits<uint32_t>::max())
            return bad("bssplit: bad block size in " + quoted(item));
          unsigned percent = ~0u;
          // "1k/" is "1k": fio shares what is left among sizes without a percentage.
          if (slash != std::string_view::npos && slash + 1 < item.size()) {
            std::string_view rest = item.substr(slash + 1);
            if (rest.find('/') != std::string_view::npos)
              return bad("bssplit: " + quoted(item) + " has more than BS/PERCENT");
            NumberResult p = parse_integer(rest, 0, 100);
            if (!p.ok()) return bad("bssplit: bad percentage in " + quoted(item));
            percent = unsigned(p->value);
            sum += percent;
          } else {
            ++missing;
          }
          out.push_back({uint32_t(bs->value), percent});
          if (colon == std::string_view::npos) break;
          start = colon + 1;
        }
        if (sum > 100) return bad("bssplit: percentages add up to more than 100 in " + quoted(part));
        for (auto& e : out)
          if (e.percent == ~0u) e.percent = (missing == 1 && out.size() == 1) ? 100 : (100 - sum) / missing;
        std::stable_sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.percent < b.percent; });
        return {};
      },
      &trim);
  if (!st) return st;
  if (!trim.empty()) {
    uint32_t lo = ~0u, hi = 0;
    for (auto& e : trim) lo = std::min(lo, e.bs), hi = std::max(hi, e.bs);
    job.bs_trim = lo;
    job.bs_trim_max = hi;
    job.bssplit_trim = std::move(trim);
  }
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

Status apply_ioengine(JobOptions& job, std::string_view v) {
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
  return bad(
      "ioengine " + quoted(v) +
      " is not supported (io_uring, libaio, psync, sync, vsync, pvsync, pvsync2, posixaio, mmap, null)");
}

Status apply_verify(JobOptions& job, std::string_view v) {
  static constexpr std::pair<std::string_view, VerifyKind> kKinds[] = {
      {"0", VerifyKind::none},        {"crc32c", VerifyKind::crc32c},   {"crc32c-intel", VerifyKind::crc32c},
      {"md5", VerifyKind::md5},       {"crc64", VerifyKind::crc64},     {"sha1", VerifyKind::sha1},
      {"sha256", VerifyKind::sha256}, {"sha512", VerifyKind::sha512},   {"xxhash", VerifyKind::xxhash},
      {"meta", VerifyKind::meta},     {"pattern", VerifyKind::pattern},
  };
  for (const auto& [name, kind] : kKinds)
    if (v == name) {
      job.verify = kind;
      job.verify_given = true;
      return {};
    }
  if (v == "none") return bad("verify=none is not a fio value: fio spells no verification verify=0");
  return bad("verify=" + printable(v) +
             " is not supported (0, crc32c, crc32c-intel, crc64, md5, sha1, sha256, sha512, xxhash, meta, "
             "pattern)");
}

Status apply_verify_pattern(JobOptions& job, std::string_view v) {
  auto bytes = parse_pattern("verify_pattern", v);
  if (!bytes) return bytes.error();
  job.verify_pattern = std::move(*bytes);
  // fio's str_verify_pattern_cb: without verify=, blocks of a header and the
  // pattern (fio's VERIFY_PATTERN; here verify=meta with the pattern).
  if (!job.verify_given) job.verify = VerifyKind::meta;
  return {};
}

// fio's str_buffer_pattern_cb: the pattern replaces scrambled contents.
Status apply_buffer_pattern(JobOptions& job, std::string_view v) {
  auto bytes = parse_pattern("buffer_pattern", v);
  if (!bytes) return bytes.error();
  job.buffer_pattern = std::move(*bytes);
  job.scramble_buffers = false;
  return {};
}

Status apply_distribution(JobOptions& job, std::string_view v) {
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
    return bad("random_distribution=zoned_abs is not supported (random, zipf, pareto, normal, zoned)");
  } else if (kind != "random") {
    return bad("bad random_distribution " + quoted(v) + " (random, zipf:THETA, pareto:H, normal:DEV)");
  }

  double center = -1.0;
  if (colon != std::string_view::npos) {
    if (d == Distribution::random) return bad("random_distribution=random takes no value: " + quoted(v));
    size_t colon2 = params.find(':');
    std::string_view value_text = params.substr(0, colon2);
    if (!parse_double(value_text, value)) return bad("bad random_distribution value in " + quoted(v));
    if (colon2 != std::string_view::npos) {
      if (!parse_double(params.substr(colon2 + 1), center))
        return bad("bad random_distribution center in " + quoted(v));
      if (center < 0.0 || center > 1.0)
        return bad("random_distribution center must be in [0, 1]: " + quoted(v));
    }
  }
  if (d == Distribution::zipf && (value <= 0.0 || value == 1.0))
    return bad("zipf theta must be positive and different from 1.0: " + quoted(v));
  if (d == Distribution::pareto && (value <= 0.0 || value >= 1.0))
    return bad("pareto input must be in (0, 1): " + quoted(v));
  if (d == Distribution::normal && (value < 0.0 || value >= 100.0))
    return bad("normal deviation must be in [0, 100): " + quoted(v));
  job.random_distribution = d;
  job.zones.clear();
  job.distribution_param = value;
  job.distribution_center = center;
  return {};
}

Status apply_percentiles(JobOptions& job, std::string_view v) {
  std::vector<double> list;
  int precision = 0;
  size_t start = 0;
  while (true) {
    size_t colon = v.find(':', start);
    std::string_view item = v.substr(start, colon == std::string_view::npos ? v.npos : colon - start);
    double p = 0.0;
    if (!parse_double(item, p)) return bad("bad percentile " + quoted(item) + " in " + quoted(v));
    if (p < 0.0 || p > 100.0) return bad("percentile out of range [0, 100]: " + quoted(item));
    if (size_t dot = item.find('.'); dot != std::string_view::npos)
      precision = std::max(precision, static_cast<int>(item.size() - dot - 1));
    list.push_back(p);
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  if (list.size() > 20) return bad("percentile_list has more than 20 entries");
  job.percentile_list = std::move(list);
  job.percentile_precision = precision;
  return {};
}

Status apply_cmdprio_bssplit(JobOptions& job, std::string_view v) {
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
      if (!bs.ok() || bs->value == 0 || bs->value > std::numeric_limits<uint32_t>::max() || f.size() == 3)
        return bad("bad cmdprio_bssplit entry " + quoted(entry) + " (BS/PERCENT or BS/PERCENT/CLASS/LEVEL)");
      unsigned vals[3] = {0, 0, 0};
      for (size_t i = 1; i < f.size() && i < 4; ++i) {
        NumberResult r = parse_integer(f[i], 0, 1u << 20);
        if (!r.ok()) return bad("bad cmdprio_bssplit entry " + quoted(entry) + ": " + r.error().message);
        vals[i - 1] = unsigned(r->value);
      }
      JobOptions::PrioSplit e{uint32_t(bs->value), std::min(vals[0], 100u), -1};
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
        return bad("cmdprio_bssplit: the shares of block size " + std::to_string(list[i].bs) +
                   " add up to more than 100 %");
      i = k;
    }
  }
  job.cmdprio_bssplit = std::move(out);
  return {};
}

Status apply_time(std::chrono::microseconds& out, std::string_view v, TimeUnit unit) {
  NumberResult r = parse_time(v, unit);
  if (!r.ok()) return bad(r.error().message);
  out = std::chrono::microseconds(r->value);
  return {};
}

// ---- Options whose value is more than one typed field (the table's custom rows).

Status apply_filename(JobOptions& job, std::string_view v) {
  // a:b:c is a list of files (file_set.hpp). Each filename= adds to the
  // files the job inherits, as fio's (its option callback adds files):
  // --filename=X with filename=a in [global] and filename=b in a job
  // runs that job on X, a and b. Names given twice are used twice.
  if (!job.filename.empty()) job.filename += ':';
  job.filename += v;
  return {};
}

Status apply_directory(JobOptions& job, std::string_view v) {
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] == ':' && (i == 0 || v[i - 1] != '\\'))
      return bad("directory: several directories ('a:b') are not supported: " + quoted(v));
  job.directory = std::string(v);
  return {};
}

Status apply_rwmixwrite(JobOptions& job, std::string_view v) {
  unsigned x = 0;
  if (Status st = set_count("rwmixwrite", v, 0, 100, x); !st) return st;
  job.rwmixread = 100 - x;
  return {};
}

Status apply_bs(JobOptions& job, std::string_view v) {
  if (v.find(':') != std::string_view::npos || v.find('-') != std::string_view::npos)
    return bad("bs: block size ranges (" + quoted(v) + ") are not supported; use bs=SIZE or bs=READ,WRITE");
  job.bs_max = {0, 0};
  job.bssplit = {};
  job.bs_trim_max = 0;
  job.bssplit_trim.clear();
  return parse_per_direction(
      "bs", v, job.bs,
      [](std::string_view part, uint32_t& out) -> Status {
        NumberResult r = parse_size(part);
        if (!r.ok()) return bad("bs: " + r.error().message);
        if (r->value == 0) return bad("bs must be at least 1 byte");
        if (r->value > std::numeric_limits<uint32_t>::max())
          return bad("bs " + quoted(part) + " is too large");
        out = static_cast<uint32_t>(r->value);
        return {};
      },
      &job.bs_trim);
}

namespace {
// size= and offset=: bytes, or N% of the target.
Status size_or_percent(std::string_view name, std::string_view v, uint64_t& bytes, unsigned& percent) {
  NumberResult r = parse_size(v, true);
  if (!r.ok()) return bad(std::string(name) + ": " + r.error().message);
  bytes = r->percent ? 0 : r->value;
  percent = r->percent ? static_cast<unsigned>(r->value) : 0;
  return {};
}
}  // namespace

Status apply_size(JobOptions& job, std::string_view v) {
  if (Status st = size_or_percent("size", v, job.size, job.size_percent); !st) return st;
  job.size_from_filesize = false;
  return {};
}

Status apply_offset(JobOptions& job, std::string_view v) {
  return size_or_percent("offset", v, job.offset, job.offset_percent);
}

// Each file's size (file_set.hpp); for a one-file job, its region when
// size= is not given (fio: size defaults to filesize x nrfiles). A range
// (lo-hi, fio's random size per file) is refused.
Status apply_filesize(JobOptions& job, std::string_view v) {
  if (v.find('-') != std::string_view::npos || v.find(':') != std::string_view::npos)
    return bad("filesize ranges (" + quoted(v) + ") are not supported: every file of a job has one size");
  NumberResult r = parse_size(v);
  if (!r.ok()) return bad("filesize: " + r.error().message);
  job.filesize = r->value;
  if ((job.size == 0 || job.size_from_filesize) && job.size_percent == 0)
    job.size = r->value, job.size_from_filesize = true;
  return {};
}

Status apply_number_ios(JobOptions& job, std::string_view v) {
  NumberResult r = parse_integer(v, 0, std::numeric_limits<uint64_t>::max());
  if (!r.ok()) return bad("number_ios: " + r.error().message);
  job.number_ios = r->value;
  return {};
}

Status apply_iodepth_batch_complete_min(JobOptions& job, std::string_view v) {
  if (v == "0")
    return bad(
        "iodepth_batch_complete_min=0 (poll for completions between submissions) is not supported; "
        "use 1 or more");
  return set_count("iodepth_batch_complete_min", v, 1, 65535, job.iodepth_batch_complete_min);
}

Status apply_startdelay(JobOptions& job, std::string_view v) {
  if (v.find('-') != std::string_view::npos || v.find(':') != std::string_view::npos)
    return bad("startdelay ranges are not supported: " + quoted(v));
  return apply_time(job.startdelay, v, TimeUnit::seconds);
}

Status apply_direct(JobOptions& job, std::string_view v) {
  job.direct_given = true;
  return set_flag("direct", v, job.direct);
}

// fio: buffered=1 is direct=0 and the other way round.
Status apply_buffered(JobOptions& job, std::string_view v) {
  bool buffered = false;
  if (Status st = set_flag("buffered", v, buffered); !st) return st;
  job.direct = !buffered;
  job.direct_given = true;
  return {};
}

Status apply_randseed(JobOptions& job, std::string_view v) {
  NumberResult r = parse_size(v);
  if (!r.ok()) return bad("randseed: " + r.error().message);
  job.randseed = r->value;
  job.randseed_given = true;
  return {};
}

Status apply_rate(JobOptions& job, std::string_view v) {
  return parse_rate_values("rate", v, job.rate, &job.rate_trim, false);
}
Status apply_rate_iops(JobOptions& job, std::string_view v) {
  return parse_rate_values("rate_iops", v, job.rate_iops, &job.rate_iops_trim, true);
}
Status apply_rate_min(JobOptions& job, std::string_view v) {
  return parse_rate_values("rate_min", v, job.rate_min, &job.rate_min_trim, false);
}
Status apply_rate_iops_min(JobOptions& job, std::string_view v) {
  return parse_rate_values("rate_iops_min", v, job.rate_iops_min, &job.rate_iops_min_trim, true);
}

// fio: an integer of milliseconds.
Status apply_rate_cycle(JobOptions& job, std::string_view v) {
  unsigned ms = 0;
  if (Status st = set_count("rate_cycle", v, 1, 1u << 30, ms); !st) return st;
  job.rate_cycle = std::chrono::milliseconds(ms);
  return {};
}

Status apply_rate_process(JobOptions& job, std::string_view v) {
  if (v != "linear" && v != "poisson") return bad("bad rate_process " + quoted(v) + " (linear, poisson)");
  job.rate_poisson = v == "poisson";
  return {};
}

Status apply_io_submit_mode(JobOptions& job, std::string_view v) {
  if (v != "inline" && v != "offload") return bad("bad io_submit_mode " + quoted(v) + " (inline, offload)");
  job.submit_offload = v == "offload";
  return {};
}

Status apply_verify_interval(JobOptions& job, std::string_view v) {
  NumberResult r = parse_size(v);
  if (!r.ok() || r->value < 512 || r->value % 8 || r->value > std::numeric_limits<uint32_t>::max())
    return bad("verify_interval: " + quoted(v) + " must be at least 512 bytes and a multiple of 8");
  job.verify_interval = uint32_t(r->value);
  return {};
}

Status apply_dedupe_mode(JobOptions& job, std::string_view v) {
  if (v != "repeat" && v != "working_set")
    return bad("bad dedupe_mode " + quoted(v) + " (repeat, working_set)");
  job.dedupe_mode_working_set = v == "working_set";
  return {};
}

Status apply_buffer_compress_chunk(JobOptions& job, std::string_view v) {
  NumberResult r = parse_size(v);
  if (!r.ok() || r->value == 0 || r->value > (1u << 20) || r->value % 8)
    return bad("buffer_compress_chunk: " + quoted(v) + " must be 8 bytes to 1 MiB, a multiple of 8");
  job.buffer_compress_chunk = uint32_t(r->value);
  return {};
}

Status apply_blockalign(JobOptions& job, std::string_view v) {
  NumberResult r = parse_size(v);
  if (!r.ok() || r->value == 0 || r->value > std::numeric_limits<uint32_t>::max())
    return bad("blockalign: bad size " + quoted(v) + " (per-direction values are not supported)");
  job.blockalign = uint32_t(r->value);
  return {};
}

// steadystate=iops|iops_slope|bw|bw_slope:LIMIT[%], as fio's
// str_steadystate_cb reads it: LIMIT% a percentage (anything after the '%'
// is dropped, as fio's), an IOPS limit a number, a bandwidth limit in
// bytes/s with fio's size suffixes (bw:10k is 10240).
Status apply_steadystate(JobOptions& job, std::string_view v) {
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
    return bad("bad steadystate " + quoted(v) + " (iops, iops_slope, bw, bw_slope, then :LIMIT or :LIMIT%)");
  if (colon == std::string_view::npos)
    return bad("steadystate " + quoted(v) + ": a threshold must follow the criterion (" + std::string(kind) +
               ":10 or " + std::string(kind) + ":1%)");
  std::string_view limit = v.substr(colon + 1);
  const size_t pct = limit.find('%');
  job.ss_percent = pct != std::string_view::npos;
  if (job.ss_percent) {
    limit = limit.substr(0, pct);
    while (!limit.empty() && (limit.back() == ' ' || limit.back() == '\t')) limit.remove_suffix(1);
  }
  const bool iops = steady_measures_iops(job.ss);
  if (job.ss_percent || iops) {
    if (!parse_double(limit, job.ss_limit) || job.ss_limit < 0)
      return bad("bad steadystate threshold in " + quoted(v) + " (a number, or a percentage with %)");
    return {};
  }
  NumberResult bytes = parse_size(limit);
  if (!bytes.ok()) return bad("bad steadystate bandwidth threshold in " + quoted(v) + " (bytes/s, e.g. 10m)");
  job.ss_limit = double(bytes->value);
  return {};
}

std::string steadystate_trace(const JobOptions& job) {
  char line[96];
  const bool iops = steady_measures_iops(job.ss);
  if (job.ss_percent)
    std::snprintf(line, sizeof line, "set steady state threshold to %f%%", job.ss_limit);
  else if (iops)
    std::snprintf(line, sizeof line, "set steady state IOPS threshold to %f", job.ss_limit);
  else
    std::snprintf(line, sizeof line, "set steady state BW threshold to %lld", (long long)job.ss_limit);
  return line;
}

// Files are laid out one after another before any job starts: fio's
// create_serialize=1; 0 has nothing to run in parallel here.
Status apply_create_serialize(JobOptions&, std::string_view v) {
  bool ignored = false;
  return set_flag("create_serialize", v, ignored);
}

Status apply_zonemode(JobOptions& job, std::string_view v) {
  if (v == "none") {
    job.zonesize = job.zonerange = job.zoneskip = 0;
    job.zbd = false;
    return {};
  }
  if (v == "strided" || v == "zbd") {
    job.zbd = v == "zbd";
    return {};
  }
  return bad("zonemode=" + printable(v) + " is not supported (none, strided, zbd)");
}

Status apply_flow(JobOptions& job, std::string_view v) {
  if (v.front() == '-') return bad("flow: negative weights are not supported: " + quoted(v));
  return set_count("flow", v, 0, 1u << 20, job.flow);
}

Status apply_latency_target(JobOptions& job, std::string_view v) {
  std::chrono::microseconds us{0};
  if (Status st = apply_time(us, v, TimeUnit::microseconds); !st) return st;
  job.latency_target_ns = uint64_t(us.count()) * 1000;
  return {};
}

Status apply_latency_percentile(JobOptions& job, std::string_view v) {
  if (!parse_double(v, job.latency_percentile) || job.latency_percentile < 0 || job.latency_percentile > 100)
    return bad("latency_percentile: " + quoted(v) + " must be a number in [0, 100]");
  return {};
}

Status apply_prio(JobOptions& job, std::string_view v) {
  unsigned level = 0;
  if (Status st = set_count("prio", v, 0, 7, level); !st) return st;
  job.prio = int(level);
  return {};
}

Status apply_prioclass(JobOptions& job, std::string_view v) {
  unsigned cls = 0;
  if (Status st = set_count("prioclass", v, 0, 3, cls); !st) return st;
  job.prioclass = int(cls);
  return {};
}

Status apply_cmdprio_percentage(JobOptions& job, std::string_view v) {
  return parse_two_ints("cmdprio_percentage", v, job.cmdprio_percentage, 0, 100);
}
Status apply_cmdprio_class(JobOptions& job, std::string_view v) {
  return parse_two_ints("cmdprio_class", v, job.cmdprio_class, 1, 3);
}
Status apply_cmdprio(JobOptions& job, std::string_view v) {
  return parse_two_ints("cmdprio", v, job.cmdprio_level, 0, 7);
}

namespace {
Status fraction(std::string_view name, std::string_view v, double& out) {
  double x = 0;
  if (!parse_double(v, x) || x < 0 || x > 1)
    return bad(std::string(name) + ": " + quoted(v) + " must be a number in [0, 1]");
  out = x;
  return {};
}
}  // namespace

Status apply_zone_reset_threshold(JobOptions& job, std::string_view v) {
  return fraction("zone_reset_threshold", v, job.zone_reset_threshold);
}
Status apply_zone_reset_frequency(JobOptions& job, std::string_view v) {
  return fraction("zone_reset_frequency", v, job.zone_reset_frequency);
}

Status apply_fadvise_hint(JobOptions& job, std::string_view v) {
  if (v == "random" || v == "sequential")
    return bad("fadvise_hint=" + printable(v) + " is not supported (0 or 1)");
  return set_flag("fadvise_hint", v, job.fadvise_hint);
}

// write_bw_log, write_iops_log, write_lat_log: bare (empty value) or a file prefix.
Status apply_write_bw_log(JobOptions& job, std::string_view v) {
  job.bw_log = true;
  job.bw_log_prefix = std::string(v);
  return {};
}
Status apply_write_iops_log(JobOptions& job, std::string_view v) {
  job.iops_log = true;
  job.iops_log_prefix = std::string(v);
  return {};
}
Status apply_write_lat_log(JobOptions& job, std::string_view v) {
  job.lat_log = true;
  job.lat_log_prefix = std::string(v);
  return {};
}

Status apply_exit_what(JobOptions& job, std::string_view v) {
  if (v == "group")
    job.exit_what = JobOptions::ExitWhat::group;
  else if (v == "stonewall")
    job.exit_what = JobOptions::ExitWhat::stonewall;
  else if (v == "all")
    job.exit_what = JobOptions::ExitWhat::all;
  else
    return bad("bad exit_what " + quoted(v) + " (group, stonewall, all)");
  return {};
}

// Which generator draws the offsets: fio's tausworthe64, lfsr or
// tausworthe all give uniform offsets; RaidScope has one generator. fio's
// lfsr visits every block once per pass even with norandommap: here the
// random map then stays on (the same blocks, in another order).
Status apply_random_generator(JobOptions& job, std::string_view v) {
  if (v != "tausworthe" && v != "lfsr" && v != "tausworthe64")
    return bad("bad random_generator " + quoted(v) + " (tausworthe, lfsr, tausworthe64)");
  job.lfsr = v == "lfsr";
  return {};
}

}  // namespace rs::fio::opt
