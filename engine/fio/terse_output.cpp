#include "fio/terse_output.hpp"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

#include "fio/normal_output.hpp"

namespace rs::fio {

using namespace rs::workload;

namespace {

constexpr size_t kTersePercentiles = 20;  // fio's FIO_IO_U_LIST_MAX_LEN: always 20 fields

void terse_add(std::string& out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void terse_add(std::string& out, const char* fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  const int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n > 0) out.append(buf, std::min(size_t(n), sizeof buf - 1));
}

// fio's ";min;max;mean;dev" of a latency in microseconds (ns / 1000), zeros
// when it has no samples.
void add_lat(std::string& out, const LatencyHistogram& h) {
  if (!h.count()) {
    terse_add(out, ";0;0;%f;%f", 0.0, 0.0);
    return;
  }
  terse_add(out, ";%llu;%llu;%f;%f", (unsigned long long)(h.min() / 1000),
            (unsigned long long)(h.max() / 1000), h.mean() / 1000, h.stddev() / 1000);
}

// fio show_ddir_status_terse.
void add_direction(std::string& out, const JobResults& job, const DirectionResults& dr,
                   const GroupDirStatus& group, int version) {
  terse_add(out, ";%llu;%llu;%llu;%llu", (unsigned long long)(dr.io_bytes >> 10),
            (unsigned long long)(dr.bw_bytes() / 1024), (unsigned long long)(dr.iops_whole()),
            (unsigned long long)(dr.runtime_ms()));
  add_lat(out, dr.slat);
  add_lat(out, dr.clat);
  // The percentiles of total latency with lat_percentiles, else of
  // completion latency with clat_percentiles, else none.
  std::vector<double> plist;
  std::vector<uint64_t> vals;
  if (job.lat_percentiles || job.clat_percentiles) {
    const LatencyHistogram& h = job.lat_percentiles ? dr.lat : dr.clat;
    plist = effective_percentiles(job);
    if (plist.size() > kTersePercentiles) plist.resize(kTersePercentiles);
    vals = h.count() ? h.percentiles(plist) : std::vector<uint64_t>(plist.size(), 0);
  }
  for (size_t i = 0; i < kTersePercentiles; ++i) {
    if (i < plist.size())
      terse_add(out, ";%f%%=%llu", plist[i], (unsigned long long)(vals[i] / 1000));
    else
      out += ";0%=0";
  }
  add_lat(out, dr.lat);
  const RunningStats& b = dr.bw_samples;
  if (b.samples()) {
    // fio: the mean over the group's aggregate in whole KiB/s, at most 100.
    double per = 100.0;
    if (group.agg_bw && group.agg_bw / 1024)
      per = std::min(b.mean() * 100 / double(group.agg_bw / 1024), 100.0);
    terse_add(out, ";%llu;%llu;%f%%;%f;%f", (unsigned long long)(b.min()), (unsigned long long)(b.max()), per,
              b.mean(), b.stddev());
  } else {
    terse_add(out, ";0;0;%f%%;%f;%f", 0.0, 0.0, 0.0);
  }
  if (version != 5) return;
  terse_add(out, ";%llu", (unsigned long long)(b.samples()));
  const RunningStats& i = dr.iops_samples;
  terse_add(out, ";%llu;%llu;%f;%f;%llu", (unsigned long long)(i.min()), (unsigned long long)(i.max()),
            i.mean(), i.stddev(), (unsigned long long)(i.samples()));
}

// fio show_thread_status_terse_all.
std::string job_line(const RunResults& run, const JobResults& job, const GroupStatus& group, int version) {
  std::string out;
  if (version == 2)
    terse_add(out, "2;%s;%d;%d", job.jobname.c_str(), job.groupid, job.error);
  else
    terse_add(out, "%d;%s;%s;%d;%d", version, fio_version_string(run).c_str(), job.jobname.c_str(),
              job.groupid, job.error);
  // unified_rw_reporting=mixed: the first direction is the mix, and the only one.
  if (job.unified_rw_reporting == 1) {
    add_direction(out, job, mixed_direction(job), group.dir[0], version);
  } else {
    add_direction(out, job, job.read, group.dir[0], version);
    add_direction(out, job, job.write, group.dir[1], version);
    if (version != 3) add_direction(out, job, job.trim, group.dir[2], version);
  }
  if (job.unified_rw_reporting == 2) add_direction(out, job, mixed_direction(job), group.dir[0], version);
  terse_add(out, ";%f%%;%f%%;%llu;%llu;%llu", job.usr_cpu, job.sys_cpu, (unsigned long long)(job.ctx),
            (unsigned long long)(job.majf), (unsigned long long)(job.minf));

  const uint64_t total = job.read.total_ios + job.write.total_ios + job.trim.total_ios;
  for (double p : fio_percents(job.depth_dist.level, total, 0.1)) terse_add(out, ";%3.1f%%", p);
  // fio keeps terse's fields: the ns bands are added to the first us band.
  auto lat_u = fio_percents(job.latency_dist.us, total, 0.01);
  uint64_t ns_total = 0;
  for (uint64_t n : job.latency_dist.ns) ns_total += n;
  if (total) lat_u[0] += 100.0 * double(ns_total) / double(total);
  for (double p : lat_u) terse_add(out, ";%3.2f%%", p);
  for (double p : fio_percents(job.latency_dist.ms, total, 0.01)) terse_add(out, ";%3.2f%%", p);
  if (!job.description.empty()) {
    if (version == 2) out += "\n";
    out += ";" + job.description;
  }
  return out + "\n";
}

}  // namespace

std::string format_fio_terse(const RunResults& run, int version) {
  const std::vector<JobResults> jobs = reported_jobs(run);
  const std::vector<GroupStatus> groups = group_status(jobs);
  std::string out;
  for (const JobResults& job : jobs) {
    GroupStatus group;
    for (const GroupStatus& g : groups)
      if (g.groupid == job.groupid) group = g;
    out += job_line(run, job, group, version);
  }
  return out;
}

}  // namespace rs::fio
