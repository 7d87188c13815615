#include "workload/fio_logs.hpp"

#include <cerrno>
#include <cstring>
#include <functional>

namespace rs::workload {

namespace {
FILE* open_log(const std::string& prefix, const char* kind, unsigned n, bool per_job, std::string* error) {
  const std::string path = prefix + "_" + kind + (per_job ? "." + std::to_string(n) : "") + ".log";
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) {
    *error = path + ": cannot create the log: " + std::strerror(errno);
    return nullptr;
  }
  // Per-I/O lines: a large buffer, so the job thread writes every MiB, not every 4 KiB.
  std::setvbuf(f, nullptr, _IOFBF, 1 << 20);
  return f;
}
}  // namespace

std::unique_ptr<JobLogs> JobLogs::open(const JobOptions& job, unsigned n, std::string* error) {
  if (!job.bw_log && !job.iops_log && !job.lat_log) return nullptr;
  auto logs = std::unique_ptr<JobLogs>(new JobLogs());
  auto prefix = [&](const std::string& given) { return given.empty() ? job.name : given; };
  const bool per = job.per_job_logs;
  if (job.lat_log) {
    const std::string p = prefix(job.lat_log_prefix);
    const char* kinds[3] = {"lat", "clat", "slat"};
    for (int i = 0; i < 3; ++i)
      if (!(logs->lat_[i] = open_log(p, kinds[i], n, per, error))) return nullptr;
  }
  if (job.bw_log && !(logs->bw_ = open_log(prefix(job.bw_log_prefix), "bw", n, per, error))) return nullptr;
  if (job.iops_log && !(logs->iops_ = open_log(prefix(job.iops_log_prefix), "iops", n, per, error)))
    return nullptr;
  logs->log_offset_ = job.log_offset;
  logs->log_prio_ = job.log_prio;
  const uint64_t avg_ns = uint64_t(job.log_avg_msec) * 1000000ull;
  logs->lat_window_ns_ = avg_ns;
  logs->rate_window_ns_ = avg_ns ? avg_ns : 500000000ull;  // fio's bw_avg_time / iops_avg_time
  logs->lat_window_end_ = logs->lat_window_ns_;
  logs->rate_window_end_ = logs->rate_window_ns_;
  return logs;
}

JobLogs::~JobLogs() {
  for (FILE* f : {lat_[0], lat_[1], lat_[2], bw_, iops_})
    if (f) std::fclose(f);
}

void JobLogs::line(FILE* f, uint64_t ms, uint64_t value, int ddir, uint32_t bs, uint64_t offset,
                   uint16_t ioprio) {
  char prio[16];
  if (log_prio_)
    std::snprintf(prio, sizeof prio, "0x%04x", unsigned(ioprio));
  else
    std::snprintf(prio, sizeof prio, "%u", (ioprio >> 13) == 1 ? 1u : 0u);  // fio: RT class or not
  if (log_offset_)
    std::fprintf(f, "%llu, %llu, %d, %u, %llu, %s\n", static_cast<unsigned long long>(ms),
                 static_cast<unsigned long long>(value), ddir, bs, static_cast<unsigned long long>(offset),
                 prio);
  else
    std::fprintf(f, "%llu, %llu, %d, %u, %s\n", static_cast<unsigned long long>(ms),
                 static_cast<unsigned long long>(value), ddir, bs, prio);
}

void JobLogs::close_windows_until(uint64_t at_ns) {
  while (lat_[0] && lat_window_ns_ && at_ns >= lat_window_end_) {
    for (int d = 0; d < 3; ++d) {
      Window& w = lat_win_[size_t(d)];
      if (!w.ios) continue;
      for (int i = 0; i < 3; ++i) line(lat_[i], lat_window_end_ / 1000000, w.lat_sum[i] / w.ios, d, 0, 0);
      w = {};
    }
    lat_window_end_ += lat_window_ns_;
  }
  while ((bw_ || iops_) && at_ns >= rate_window_end_) {
    const double secs = double(rate_window_ns_) / 1e9;
    for (int d = 0; d < 3; ++d) {
      Window& w = rate_win_[size_t(d)];
      // fio writes a direction's sample only once it has done I/O.
      if (w.ios) {
        if (bw_) line(bw_, rate_window_end_ / 1000000, uint64_t(double(w.bytes) / 1024.0 / secs), d, 0, 0);
        if (iops_) line(iops_, rate_window_end_ / 1000000, uint64_t(double(w.ios) / secs), d, 0, 0);
      }
      w = {};
    }
    rate_window_end_ += rate_window_ns_;
  }
}

void JobLogs::record(uint64_t at_ns, int ddir, uint32_t bs, uint64_t offset, uint64_t slat_ns,
                     uint64_t clat_ns, uint64_t lat_ns, uint16_t ioprio) {
  close_windows_until(at_ns);
  if (lat_[0]) {
    if (!lat_window_ns_) {
      const uint64_t ms = at_ns / 1000000;
      line(lat_[0], ms, lat_ns, ddir, bs, offset, ioprio);
      line(lat_[1], ms, clat_ns, ddir, bs, offset, ioprio);
      line(lat_[2], ms, slat_ns, ddir, bs, offset, ioprio);
    } else {
      Window& w = lat_win_[size_t(ddir)];
      ++w.ios;
      w.lat_sum[0] += lat_ns, w.lat_sum[1] += clat_ns, w.lat_sum[2] += slat_ns;
    }
  }
  Window& r = rate_win_[size_t(ddir)];
  r.bytes += bs;
  ++r.ios;
}

void JobLogs::finish(uint64_t at_ns) {
  close_windows_until(at_ns);
  // fio's finalize_logs: the latency logs' last, partial window is written
  // at the job's end time. The bw and iops logs keep only whole windows
  // (their samples are rates over a window, taken by fio's helper thread).
  if (lat_[0] && lat_window_ns_)
    for (int d = 0; d < 3; ++d) {
      Window& w = lat_win_[size_t(d)];
      if (!w.ios) continue;
      for (int i = 0; i < 3; ++i) line(lat_[i], at_ns / 1000000, w.lat_sum[i] / w.ios, d, 0, 0);
      w = {};
    }
  for (FILE*& f : {std::ref(lat_[0]), std::ref(lat_[1]), std::ref(lat_[2]), std::ref(bw_), std::ref(iops_)})
    if (f) std::fclose(f), f = nullptr;
}

}  // namespace rs::workload
