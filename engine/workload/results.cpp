#include "workload/results.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

namespace rs::workload {

uint64_t DirectionResults::bw_bytes() const noexcept {
  const uint64_t ms = runtime_ms();
  if (ms == 0) return 0;
  // 128-bit so that 1000 * io_bytes cannot wrap (fio's does past 18 PB).
  return static_cast<uint64_t>(static_cast<unsigned __int128>(io_bytes) * 1000 / ms);
}

double DirectionResults::iops() const noexcept {
  const uint64_t ms = runtime_ms();
  return ms ? 1000.0 * static_cast<double>(total_ios) / static_cast<double>(ms) : 0.0;
}

uint64_t DirectionResults::iops_whole() const noexcept {
  const uint64_t ms = runtime_ms();
  return ms ? static_cast<uint64_t>(static_cast<unsigned __int128>(total_ios) * 1000 / ms) : 0;
}

namespace {

// Band of a value within one unit (fio io_u_mark_lat_nsec/usec: 0..1 -> "2",
// 2..3 -> "4", ..., 750..999 -> "1000").
unsigned band_of(uint64_t v) noexcept {
  unsigned i = 0;
  while (i + 1 < LatencyDistribution::kEdges.size() && v >= LatencyDistribution::kEdges[i]) ++i;
  return i;
}

// fio __io_u_mark_map: 0, 1-4, 5-8, 9-16, 17-32, 33-64, more.
unsigned batch_band(unsigned ios) noexcept {
  if (ios == 0) return 0;
  if (ios <= 4) return 1;
  if (ios <= 8) return 2;
  if (ios <= 16) return 3;
  if (ios <= 32) return 4;
  if (ios <= 64) return 5;
  return 6;
}

template <size_t N>
void add_arrays(std::array<uint64_t, N>& dst, const std::array<uint64_t, N>& src) {
  for (size_t i = 0; i < N; ++i) dst[i] += src[i];
}

}  // namespace

void LatencyDistribution::record(uint64_t clat_ns) noexcept {
  if (clat_ns < 1000) {
    ++ns[band_of(clat_ns)];
  } else if (clat_ns < 1'000'000) {
    ++us[band_of(clat_ns / 1000)];
  } else {
    const uint64_t msec = clat_ns / 1'000'000;
    ++ms[msec < 1000 ? band_of(msec) : (msec < 2000 ? 10 : 11)];
  }
}

void LatencyDistribution::merge(const LatencyDistribution& other) noexcept {
  add_arrays(ns, other.ns);
  add_arrays(us, other.us);
  add_arrays(ms, other.ms);
}

void LatencyDistribution::add_histogram(const LatencyHistogram& clat) noexcept {
  for (unsigned i = 0; i < LatencyHistogram::kBuckets; ++i) {
    const uint64_t n = clat.bucket(i);
    if (n == 0) continue;
    LatencyDistribution one;
    one.record(LatencyHistogram::value_of(i));
    for (auto& c : one.ns) c *= n;
    for (auto& c : one.us) c *= n;
    for (auto& c : one.ms) c *= n;
    merge(one);
  }
}

uint64_t LatencyDistribution::total() const noexcept {
  uint64_t t = 0;
  for (auto c : ns) t += c;
  for (auto c : us) t += c;
  for (auto c : ms) t += c;
  return t;
}

void DepthDistribution::record_depth(unsigned depth, unsigned ios) noexcept {
  unsigned i = 0;
  if (depth >= 64)
    i = 6;
  else if (depth >= 32)
    i = 5;
  else if (depth >= 16)
    i = 4;
  else if (depth >= 8)
    i = 3;
  else if (depth >= 4)
    i = 2;
  else if (depth >= 2)
    i = 1;
  level[i] += ios;
}

void DepthDistribution::record_submit(unsigned ios) noexcept {
  ++submit[batch_band(ios)];
  ++total_submit;
}

void DepthDistribution::record_complete(unsigned ios) noexcept {
  ++complete[batch_band(ios)];
  ++total_complete;
}

void DepthDistribution::merge(const DepthDistribution& other) noexcept {
  add_arrays(level, other.level);
  add_arrays(submit, other.submit);
  add_arrays(complete, other.complete);
  total_submit += other.total_submit;
  total_complete += other.total_complete;
}

RunResults make_run_results(OptionList global_options, std::vector<JobResults> jobs) {
  RunResults run;
  run.raidscope_version = RAIDSCOPE_VERSION;  // the project's VERSION (engine/CMakeLists.txt)
  run.timestamp_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  run.global_options = std::move(global_options);
  run.jobs = std::move(jobs);
  return run;
}

std::string fio_version_string(const RunResults& run) {
  std::string v = "raidscope";
  if (!run.raidscope_version.empty()) v += "-" + run.raidscope_version;
  return v + " (fio-3.33 compatible)";
}

std::vector<const DirectionResults::PrioLatency*> DirectionResults::shown_prios() const {
  std::vector<const PrioLatency*> v;
  for (const auto& p : prios)
    if (p.lat.count()) v.push_back(&p);
  if (v.size() < 2) v.clear();
  return v;
}

namespace {

void merge_direction(DirectionResults& dst, const DirectionResults& src) {
  dst.io_bytes += src.io_bytes;
  dst.total_ios += src.total_ios;
  dst.short_ios += src.short_ios;
  dst.drop_ios += src.drop_ios;
  dst.runtime_ns = std::max(dst.runtime_ns, src.runtime_ns);  // the group ran as long as its slowest
  dst.slat.merge(src.slat);
  dst.clat.merge(src.clat);
  dst.lat.merge(src.lat);
  dst.bw_samples.add_up(src.bw_samples);
  dst.iops_samples.add_up(src.iops_samples);
  // fio's clat_prio_stats_copy: entries of one priority add up, new ones go last.
  for (const auto& p : src.prios) {
    auto it = std::find_if(dst.prios.begin(), dst.prios.end(), [&](auto& d) { return d.ioprio == p.ioprio; });
    if (it == dst.prios.end())
      dst.prios.push_back(p);
    else
      it->lat.merge(p.lat);
  }
}

void merge_raidscope(std::optional<RaidscopeJobExtension>& dst,
                     const std::optional<RaidscopeJobExtension>& src) {
  if (!src) return;
  if (!dst) {
    dst = src;
    return;
  }
  for (const MemberShare& m : src->members) {
    auto it = std::find_if(dst->members.begin(), dst->members.end(),
                           [&](const MemberShare& d) { return d.path == m.path; });
    if (it == dst->members.end()) {
      dst->members.push_back(m);
      continue;
    }
    it->reads += m.reads;
    it->read_bytes += m.read_bytes;
    it->writes += m.writes;
    it->write_bytes += m.write_bytes;
    it->mean_pending += m.mean_pending;  // concurrent jobs' queues add up
  }
  uint64_t all_reads = 0;
  for (const MemberShare& m : dst->members) all_reads += m.reads;
  for (MemberShare& m : dst->members)
    m.read_share = all_reads ? static_cast<double>(m.reads) / static_cast<double>(all_reads) : 0.0;
}

}  // namespace

DirectionResults mixed_direction(const JobResults& job) {
  DirectionResults mixed = job.read;
  merge_direction(mixed, job.write);
  merge_direction(mixed, job.trim);
  return mixed;
}

void merge_into_group(JobResults& dst, const JobResults& src) {
  merge_direction(dst.read, src.read);
  merge_direction(dst.write, src.write);
  merge_direction(dst.trim, src.trim);
  // fio sums user/system time and run times, then divides: a runtime-weighted mean.
  const double rt_dst = static_cast<double>(dst.job_runtime_ns);
  const double rt_src = static_cast<double>(src.job_runtime_ns);
  if (rt_dst + rt_src > 0) {
    dst.usr_cpu = (dst.usr_cpu * rt_dst + src.usr_cpu * rt_src) / (rt_dst + rt_src);
    dst.sys_cpu = (dst.sys_cpu * rt_dst + src.sys_cpu * rt_src) / (rt_dst + rt_src);
  }
  // fio adds the members' run times in whole ms; keep that rounding.
  constexpr uint64_t kMs = 1'000'000;
  dst.job_runtime_ns = (dst.job_runtime_ns / kMs + src.job_runtime_ns / kMs) * kMs;
  dst.elapsed_sec = std::max(dst.elapsed_sec, src.elapsed_sec);
  dst.ctx += src.ctx;
  dst.sync_ios += src.sync_ios;
  dst.sync_lat.merge(src.sync_lat);
  dst.majf += src.majf;
  dst.minf += src.minf;
  dst.latency_dist.merge(src.latency_dist);
  dst.depth_dist.merge(src.depth_dist);
  dst.members += src.members;
  dst.zone_resets += src.zone_resets;
  if (dst.error == 0 && src.error != 0) {
    dst.error = src.error;
    dst.error_text = src.error_text;
  }
  // fio takes these from the group's last job.
  dst.options = src.options;
  dst.iodepth = src.iodepth;
  dst.latency_target_ns = src.latency_target_ns;
  dst.latency_window_us = src.latency_window_us;
  dst.latency_percentile = src.latency_percentile;
  dst.percentile_list = src.percentile_list;
  dst.percentile_precision = src.percentile_precision;
  dst.clat_percentiles = src.clat_percentiles;
  dst.lat_percentiles = src.lat_percentiles;
  dst.slat_percentiles = src.slat_percentiles;
  dst.unified_rw_reporting = src.unified_rw_reporting;
  // fio's group entry takes the last job's steady state: the job that
  // holds the group's pooled samples.
  if (src.steadystate) dst.steadystate = src.steadystate;
  merge_raidscope(dst.raidscope, src.raidscope);
}

std::vector<JobResults> reported_jobs(const RunResults& run) {
  std::vector<JobResults> out;
  int last_group = 0;
  for (const JobResults& job : run.jobs) {
    // fio starts a new entry unless this job reports by group and is in the
    // same group as the job before it.
    if (out.empty() || !job.group_reporting || job.groupid != last_group) {
      out.push_back(job);
    } else {
      merge_into_group(out.back(), job);
    }
    last_group = job.groupid;
  }
  return out;
}

std::vector<GroupStatus> group_status(const std::vector<JobResults>& reported) {
  std::map<int, GroupStatus> groups;
  for (const JobResults& job : reported) {
    GroupStatus& g = groups[job.groupid];
    g.groupid = job.groupid;
    for (int d = 0; d < 3; ++d) {
      const DirectionResults& dr = job.dir(d);
      const uint64_t run_ms = dr.runtime_ms();
      if (run_ms == 0) continue;
      GroupDirStatus& s = g.dir[d];
      const uint64_t bw = dr.bw_bytes();
      const bool first = s.max_run_ms == 0;
      if (first || run_ms < s.min_run_ms) s.min_run_ms = run_ms;
      if (run_ms > s.max_run_ms) s.max_run_ms = run_ms;
      if (first || bw < s.min_bw) s.min_bw = bw;
      if (bw > s.max_bw) s.max_bw = bw;
      s.io_bytes += dr.io_bytes;
    }
  }
  std::vector<GroupStatus> out;
  for (auto& [id, g] : groups) {
    for (GroupDirStatus& s : g.dir)
      if (s.max_run_ms)
        s.agg_bw = static_cast<uint64_t>(static_cast<unsigned __int128>(s.io_bytes) * 1000 / s.max_run_ms);
    out.push_back(g);
  }
  return out;
}

std::vector<double> effective_percentiles(const JobResults& job) {
  std::vector<double> list;
  if (job.percentile_list.empty())
    list.assign(kFioDefaultPercentiles.begin(), kFioDefaultPercentiles.end());
  else
    for (double p : job.percentile_list)
      if (p > 0.0 && p <= 100.0) list.push_back(p);
  std::sort(list.begin(), list.end());
  return list;
}

int effective_percentile_precision(const JobResults& job) {
  if (job.percentile_precision >= 0) return job.percentile_precision;
  if (job.percentile_list.empty()) return 2;
  int digits = 0;
  for (double p : effective_percentiles(job)) {
    int d = 0;
    double scaled = p;
    while (d < 6 && std::fabs(scaled - std::round(scaled)) > 1e-9 * std::max(1.0, scaled)) {
      scaled *= 10.0;
      ++d;
    }
    digits = std::max(digits, d);
  }
  return digits;
}

double bw_percent_of_group(const GroupDirStatus& group, double mean_kib) {
  if (group.agg_bw <= 1024) return 100.0;
  // fio passes the mean through an int parameter, dropping its fraction.
  const double whole = static_cast<double>(static_cast<int64_t>(mean_kib));
  const double p = whole * 100.0 / (static_cast<double>(group.agg_bw) / 1024.0);
  return std::min(p, 100.0);
}

}  // namespace rs::workload
