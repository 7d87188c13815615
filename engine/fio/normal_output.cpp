#include "fio/normal_output.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <vector>

namespace rs::fio {

using namespace rs::workload;

namespace {

// printf into a std::string: the layout below is fio's printf formats, kept
// verbatim so widths and rounding match.
__attribute__((format(printf, 1, 2))) std::string sfmt(const char* format, ...) {
  va_list ap;
  va_start(ap, format);
  va_list ap2;
  va_copy(ap2, ap);
  const int n = std::vsnprintf(nullptr, 0, format, ap);
  va_end(ap);
  std::string out(n > 0 ? static_cast<size_t>(n) : 0, '\0');
  if (n > 0) std::vsnprintf(out.data(), out.size() + 1, format, ap2);
  va_end(ap2);
  return out;
}

using ull = unsigned long long;

size_t digits(uint64_t v) {
  return std::to_string(v).size();
}

// fio nsec_to_msec / nsec_to_usec: a line switches unit only when the values
// are large enough and spread enough to read well in it.
const char* scale_lat(uint64_t& min, uint64_t& max, double& mean, double& dev) {
  if (min > 2'000'000 && max > 99'999'999ULL && dev > 1'000'000.0) {
    min /= 1'000'000;
    max /= 1'000'000;
    mean /= 1'000'000.0;
    dev /= 1'000'000.0;
    return "(msec)";
  }
  if (min > 2000 && max > 99'999 && dev > 1000.0) {
    min /= 1000;
    max /= 1000;
    mean /= 1000.0;
    dev /= 1000.0;
    return "(usec)";
  }
  return "(nsec)";
}

template <size_t N>
std::array<double, N> lat_percents(const std::array<uint64_t, N>& counts, uint64_t total) {
  return fio_percents(counts, total, 0.01);
}

std::array<double, 7> dist_percents(const std::array<uint64_t, 7>& counts, uint64_t total) {
  return fio_percents(counts, total, 0.1);
}

// fio show_lat: non-empty bands, five to a line.
template <size_t N>
std::string lat_bands(const std::array<double, N>& pct, const char* const* names, const char* unit) {
  std::string out;
  int on_line = 0;
  bool shown = false;
  for (size_t i = 0; i < N; ++i) {
    if (pct[i] <= 0.0) continue;
    if (on_line == 0 || on_line == 5) {
      if (shown) out += "\n";
      out += sfmt("  lat (%s)   : ", unit);
      on_line = 0;
    }
    if (on_line) out += ", ";
    out += sfmt("%s%3.2f%%", names[i], pct[i]);
    ++on_line;
    shown = true;
  }
  if (shown) out += "\n";
  return out;
}

// fio's "clat prio 1/4" (class/level), with what follows it.
std::string prio_line_name(const char* type, uint16_t ioprio, const std::string& tail) {
  return sfmt("%s prio %u/%u", type, unsigned(ioprio >> 13), unsigned(ioprio & 7)) + tail;
}

// fio show_ddir_status for direction `d`, or (mixed) the sum of all three
// that unified_rw_reporting shows as fio's "mixed" read-side line.
std::string ddir_status(const JobResults& job, int d, const GroupStatus& group, int sig_figs,
                        bool mixed = false) {
  const DirectionResults mixed_dr = mixed ? mixed_direction(job) : DirectionResults{};
  const DirectionResults& dr = mixed ? mixed_dr : job.dir(d);
  const uint64_t runt = dr.runtime_ms();
  if (runt == 0) return {};
  std::string out;
  const uint64_t bw = dr.bw_bytes();
  const uint64_t iops = dr.iops_whole();
  out += sfmt("  %s: IOPS=%s, BW=%s (%s)(%s/%llumsec)%s\n",
              mixed    ? "mixed"
              : d == 0 ? "read"
              : d == 1 ? "write"
                       : "trim",
              fio_num2str(iops, sig_figs, 1, false, N2SUnit::none).c_str(),
              fio_num2str(bw, sig_figs, 1, true, N2SUnit::byte_per_sec).c_str(),
              fio_num2str(bw, sig_figs, 1, false, N2SUnit::byte_per_sec).c_str(),
              fio_num2str(dr.io_bytes, sig_figs, 1, true, N2SUnit::byte).c_str(), static_cast<ull>(runt),
              // fio 3.33 prints zone resets for every write line
              d == 1 && !mixed ? ("; " + std::to_string(job.zone_resets) + " zone resets").c_str() : "");

  out += fio_lat_line("slat", dr.slat);
  out += fio_lat_line("clat", dr.clat);
  out += fio_lat_line(" lat", dr.lat);
  // fio: per-priority figures when two or more priorities have samples.
  const auto prios = dr.shown_prios();
  const char* prio_type = job.lat_percentiles ? "lat" : "clat";
  for (const auto* p : prios) out += fio_lat_line(prio_line_name(prio_type, p->ioprio, ""), p->lat);

  const std::vector<double> plist = effective_percentiles(job);
  const int precision = effective_percentile_precision(job);
  if (job.slat_percentiles) out += fio_percentile_block("slat", dr.slat, plist, precision);
  if (job.clat_percentiles) out += fio_percentile_block("clat", dr.clat, plist, precision);
  if (job.lat_percentiles) out += fio_percentile_block("lat", dr.lat, plist, precision);
  if (job.clat_percentiles || job.lat_percentiles) {
    const uint64_t samples = job.lat_percentiles ? dr.lat.count() : dr.clat.count();
    for (const auto* p : prios)
      out += fio_percentile_block(
          prio_line_name(prio_type, p->ioprio,
                         sfmt(" (%.2f%% of IOs)", 100.0 * double(p->lat.count()) / double(samples))),
          p->lat, plist, precision);
  }

  if (const RunningStats& s = dr.bw_samples; s.samples())
    out += fio_bw_line(s, bw_percent_of_group(group.dir[d], s.mean()));
  if (const RunningStats& s = dr.iops_samples; s.samples())
    out += fio_iops_line(s.min(), s.max(), s.mean(), s.stddev(), s.samples());
  return out;
}

std::string raidscope_block(const RaidscopeJobExtension& ext) {
  std::string out = sfmt("  raidscope    : target=%s", ext.target.c_str());
  if (!ext.policy.empty()) out += sfmt(", policy=%s", ext.policy.c_str());
  out += "\n";
  if (!ext.engine.empty()) out += sfmt("     engine=%s\n", ext.engine.c_str());
  if (!ext.io_mode.empty()) out += sfmt("     io=%s\n", ext.io_mode.c_str());
  for (const MemberShare& m : ext.members) {
    out += sfmt("     %s: reads=%llu (%3.2f%%), read=%s, writes=%llu, written=%s, avg pending=%.2f\n",
                m.path.c_str(), static_cast<ull>(m.reads), m.read_share * 100.0,
                fio_num2str(m.read_bytes, 4, 1, true, N2SUnit::byte).c_str(), static_cast<ull>(m.writes),
                fio_num2str(m.write_bytes, 4, 1, true, N2SUnit::byte).c_str(), m.mean_pending);
  }
  return out;
}

// fio's show_ss_normal: the window's mean bandwidth (its KiB/s printed with
// base 1024, then, as fio, the same KiB figure with base 1000) and IOPS.
std::string steadystate_line(const SteadyStateReport& ss, int sig_figs) {
  const uint64_t kib = steady_mean(ss.bw_data) / 1024;
  return sfmt("  steadystate  : attained=%s, bw=%s (%s), iops=%s, %s%s=%.3f%s\n", ss.attained ? "yes" : "no",
              fio_num2str(kib, sig_figs, 1024, true, N2SUnit::byte_per_sec).c_str(),
              fio_num2str(kib, sig_figs, 1024, false, N2SUnit::byte_per_sec).c_str(),
              fio_num2str(steady_mean(ss.iops_data), sig_figs, 1, false, N2SUnit::none).c_str(),
              ss.iops ? "iops" : "bw", ss.slope ? " slope" : " mean dev", ss.criterion,
              ss.percent ? "%" : "");
}

std::string job_status(const JobResults& job, const GroupStatus& group, const RunResults& run) {
  const uint64_t total_ios = job.read.total_ios + job.write.total_ios + job.trim.total_ios;
  if (job.read.io_bytes + job.write.io_bytes + job.trim.io_bytes == 0 && total_ios == 0)
    return {};  // fio skips idle jobs
  std::string out;
  const std::string when = fio_ctime(run.timestamp_ms / 1000);
  if (job.error == 0) {
    out += sfmt("%s: (groupid=%d, jobs=%u): err=%2d: pid=%d: %s\n", job.jobname.c_str(), job.groupid,
                job.members, job.error, job.pid, when.c_str());
  } else {
    const std::string why = job.error_text.empty() ? std::strerror(job.error) : job.error_text;
    out += sfmt("%s: (groupid=%d, jobs=%u): err=%2d (%s): pid=%d: %s\n", job.jobname.c_str(), job.groupid,
                job.members, job.error, why.c_str(), job.pid, when.c_str());
  }
  if (!job.description.empty()) out += sfmt("  Description  : [%s]\n", job.description.c_str());

  // unified_rw_reporting: mixed (1) shows only the sum, both (2) each and the sum.
  if (job.unified_rw_reporting != 1)
    for (int d = 0; d < 3; ++d)
      if (job.dir(d).io_bytes) out += ddir_status(job, d, group, run.sig_figs);
  if (job.unified_rw_reporting != 0) out += ddir_status(job, 0, group, run.sig_figs, true);

  static const char* const kBands[] = {
      "2=", "4=", "10=", "20=", "50=", "100=", "250=", "500=", "750=", "1000=", "2000=", ">=2000="};
  const LatencyDistribution& ld = job.latency_dist;
  out += lat_bands(lat_percents(ld.ns, total_ios), kBands, "nsec");
  out += lat_bands(lat_percents(ld.us, total_ios), kBands, "usec");
  out += lat_bands(lat_percents(ld.ms, total_ios), kBands, "msec");

  out += sfmt("  cpu          : usr=%3.2f%%, sys=%3.2f%%, ctx=%llu, majf=%llu, minf=%llu\n", job.usr_cpu,
              job.sys_cpu, static_cast<ull>(job.ctx), static_cast<ull>(job.majf), static_cast<ull>(job.minf));
  const DepthDistribution& dd = job.depth_dist;
  auto p = dist_percents(dd.level, total_ios);
  out += sfmt(
      "  IO depths    : 1=%3.1f%%, 2=%3.1f%%, 4=%3.1f%%, 8=%3.1f%%, 16=%3.1f%%, 32=%3.1f%%, >=64=%3.1f%%\n",
      p[0], p[1], p[2], p[3], p[4], p[5], p[6]);
  p = dist_percents(dd.submit, dd.total_submit);
  out += sfmt(
      "     submit    : 0=%3.1f%%, 4=%3.1f%%, 8=%3.1f%%, 16=%3.1f%%, 32=%3.1f%%, 64=%3.1f%%, >=64=%3.1f%%\n",
      p[0], p[1], p[2], p[3], p[4], p[5], p[6]);
  p = dist_percents(dd.complete, dd.total_complete);
  out += sfmt(
      "     complete  : 0=%3.1f%%, 4=%3.1f%%, 8=%3.1f%%, 16=%3.1f%%, 32=%3.1f%%, 64=%3.1f%%, >=64=%3.1f%%\n",
      p[0], p[1], p[2], p[3], p[4], p[5], p[6]);
  out += sfmt("     issued rwts: total=%llu,%llu,%llu,0 short=%llu,%llu,%llu,0 dropped=%llu,%llu,%llu,0\n",
              static_cast<ull>(job.read.total_ios), static_cast<ull>(job.write.total_ios),
              static_cast<ull>(job.trim.total_ios), static_cast<ull>(job.read.short_ios),
              static_cast<ull>(job.write.short_ios), static_cast<ull>(job.trim.short_ios),
              static_cast<ull>(job.read.drop_ios), static_cast<ull>(job.write.drop_ios),
              static_cast<ull>(job.trim.drop_ios));
  out += sfmt("     latency   : target=%llu, window=%llu, percentile=%.2f%%, depth=%u\n",
              static_cast<unsigned long long>(job.latency_target_ns),
              static_cast<unsigned long long>(job.latency_window_us), job.latency_percentile, job.iodepth);
  if (job.steadystate) out += steadystate_line(*job.steadystate, run.sig_figs);
  if (job.raidscope) out += raidscope_block(*job.raidscope);
  return out;
}

std::string group_lines(const GroupStatus& g, int sig_figs) {
  std::string out = sfmt("\nRun status group %d (all jobs):\n", g.groupid);
  static const char* const kNames[] = {"   READ", "  WRITE", "   TRIM"};
  for (int d = 0; d < 3; ++d) {
    const GroupDirStatus& s = g.dir[d];
    if (!s.max_run_ms) continue;
    auto bw = [&](uint64_t v, bool pow2) { return fio_num2str(v, sig_figs, 1, pow2, N2SUnit::byte_per_sec); };
    auto io = [&](bool pow2) { return fio_num2str(s.io_bytes, sig_figs, 1, pow2, N2SUnit::byte); };
    out += sfmt("%s: bw=%s (%s), %s-%s (%s-%s), io=%s (%s), run=%llu-%llumsec\n", kNames[d],
                bw(s.agg_bw, true).c_str(), bw(s.agg_bw, false).c_str(), bw(s.min_bw, true).c_str(),
                bw(s.max_bw, true).c_str(), bw(s.min_bw, false).c_str(), bw(s.max_bw, false).c_str(),
                io(true).c_str(), io(false).c_str(), static_cast<ull>(s.min_run_ms),
                static_cast<ull>(s.max_run_ms));
  }
  return out;
}

}  // namespace

std::string fio_num2str(uint64_t num, int maxlen, int base, bool pow2, N2SUnit unit) {
  static const char* const kSi[] = {"", "k", "M", "G", "T", "P"};
  static const char* const kIec[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi"};
  static const char* const kUnit[] = {"", "/s", "B", "bit", "B/s", "bit/s"};
  const char* const* prefix = pow2 ? kIec : kSi;
  const uint64_t thousand = pow2 ? 1024 : 1000;
  size_t post = 0;
  for (; base > 1; ++post) base /= static_cast<int>(thousand);
  if (unit == N2SUnit::bit || unit == N2SUnit::bit_per_sec) num *= 8;
  const char* unit_str = kUnit[static_cast<int>(unit)];

  // Divide by k/Ki until the number fits in maxlen digits.
  bool divided = false, carry = false;
  uint64_t modulo = 0;
  while (post < 6 && digits(num) > static_cast<size_t>(maxlen)) {
    modulo = num % thousand;
    num /= thousand;
    carry = modulo >= thousand / 2;
    divided = true;
    ++post;
  }
  if (post >= 6) post = 0;
  auto whole = [&](uint64_t n) { return std::to_string(n) + prefix[post] + unit_str; };
  if (!divided) return whole(num);
  const int room = maxlen - static_cast<int>(digits(num));
  if (room <= 1) return whole(carry ? num + 1 : num);  // no room for decimals: round
  // Decimals from the remainder; a remainder that rounds up to 1.0 carries.
  const std::string frac =
      sfmt("%.*f", room - 1, static_cast<double>(modulo) / static_cast<double>(thousand));
  if (frac[0] == '1') ++num;
  return std::to_string(num) + "." + frac.substr(2) + prefix[post] + unit_str;
}

std::string fio_ctime(int64_t unix_seconds) {
  const time_t t = static_cast<time_t>(unix_seconds);
  struct tm tm_local {};
  localtime_r(&t, &tm_local);
  // asctime's fixed English layout, independent of the locale.
  static const char* const kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static const char* const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  return sfmt("%.3s %.3s%3d %.2d:%.2d:%.2d %d", kDays[tm_local.tm_wday % 7], kMonths[tm_local.tm_mon % 12],
              tm_local.tm_mday, tm_local.tm_hour, tm_local.tm_min, tm_local.tm_sec, 1900 + tm_local.tm_year);
}

std::string fio_lat_line(std::string_view name, const LatencyHistogram& h) {
  if (h.count() == 0) return {};
  return fio_lat_line(name, h.min(), h.max(), h.mean(), h.stddev());
}

std::string fio_lat_line(std::string_view name, uint64_t min, uint64_t max, double mean, double dev) {
  const char* base = scale_lat(min, max, mean, dev);
  return sfmt("    %.*s %s: min=%s, max=%s, avg=%5.02f, stdev=%5.02f\n", static_cast<int>(name.size()),
              name.data(), base, fio_num2str(min, 6, 1, false, N2SUnit::none).c_str(),
              fio_num2str(max, 6, 1, false, N2SUnit::none).c_str(), mean, dev);
}

std::string fio_percentile_block(std::string_view name, const LatencyHistogram& h,
                                 std::span<const double> ascending, int precision) {
  if (h.count() == 0 || ascending.empty()) return {};
  const std::vector<uint64_t> vals = h.percentiles(ascending);
  return fio_percentile_block(name, vals, ascending, precision);
}

std::string fio_percentile_block(std::string_view name, std::span<const uint64_t> values_ns,
                                 std::span<const double> ascending, int precision) {
  if (values_ns.empty() || values_ns.size() != ascending.size()) return {};
  std::vector<uint64_t> vals(values_ns.begin(), values_ns.end());
  const uint64_t minv = *std::min_element(vals.begin(), vals.end());
  const uint64_t maxv = *std::max_element(vals.begin(), vals.end());
  // fio picks the unit from the spread of the reported values.
  int scale_down = 0;
  uint64_t divisor = 1;
  const char* unit = "nsec";
  if (minv > 2'000'000 && maxv > 99'999'999ULL) {
    scale_down = 2;
    divisor = 1'000'000;
    unit = "msec";
  } else if (minv > 2000 && maxv > 99'999) {
    scale_down = 1;
    divisor = 1000;
    unit = "usec";
  }
  std::string out =
      sfmt("    %.*s percentiles (%s):\n     |", static_cast<int>(name.size()), name.data(), unit);
  const uint64_t top = maxv / divisor;
  const int time_width = top ? std::max(5, static_cast<int>(std::log10(static_cast<double>(top)) + 1)) : 5;
  const int per_line = (80 - 7) / (precision + 10 + time_width);
  for (size_t j = 0; j < vals.size(); ++j) {
    if (j != 0 && j % per_line == 0) out += "     |";
    const bool last = j + 1 == vals.size();
    for (int i = 0; i < scale_down; ++i) vals[j] = (vals[j] + 999) / 1000;  // fio rounds up
    out += sfmt(" %*.*fth=[%*llu]%c", precision + 3, precision, ascending[j], time_width,
                static_cast<ull>(vals[j]), last ? '\n' : ',');
    if (last) break;
    if (j % per_line == static_cast<size_t>(per_line - 1)) out += "\n";
  }
  return out;
}

std::string fio_bw_line(const RunningStats& kib, double per) {
  if (kib.samples() == 0) return {};
  return fio_bw_line(kib.min(), kib.max(), per, kib.mean(), kib.stddev(), kib.samples());
}

std::string fio_bw_line(uint64_t min, uint64_t max, double per, double mean, double dev, uint64_t samples) {
  const char* unit = "KiB";
  if (mean > 1024.0 * 1024.0) {  // fio switches to MiB/s above 1 GiB/s, truncating min and max
    min = static_cast<uint64_t>(static_cast<double>(min) / 1024.0);
    max = static_cast<uint64_t>(static_cast<double>(max) / 1024.0);
    mean /= 1024.0;
    dev /= 1024.0;
    unit = "MiB";
  }
  return sfmt("   bw (%5s/s): min=%5llu, max=%5llu, per=%3.2f%%, avg=%5.02f, stdev=%5.02f, samples=%llu\n",
              unit, static_cast<ull>(min), static_cast<ull>(max), per, mean, dev, static_cast<ull>(samples));
}

std::string fio_iops_line(uint64_t min, uint64_t max, double mean, double dev, uint64_t samples) {
  if (samples == 0) return {};
  return sfmt("   iops        : min=%5llu, max=%5llu, avg=%5.02f, stdev=%5.02f, samples=%llu\n",
              static_cast<ull>(min), static_cast<ull>(max), mean, dev, static_cast<ull>(samples));
}

std::string format_fio_normal(const RunResults& run) {
  const std::vector<JobResults> jobs = reported_jobs(run);
  const std::vector<GroupStatus> groups = group_status(jobs);
  auto group_of = [&](int id) -> const GroupStatus& {
    for (const GroupStatus& g : groups)
      if (g.groupid == id) return g;
    return groups.front();  // unreachable: every reported job has its group
  };
  std::string out;
  for (const std::string& m : run.messages) out += m + "\n";
  out += "\n";
  for (const JobResults& job : jobs) out += job_status(job, group_of(job.groupid), run);
  for (const GroupStatus& g : groups) out += group_lines(g, run.sig_figs);
  return out;
}

}  // namespace rs::fio
