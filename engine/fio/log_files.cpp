#include "fio/log_files.hpp"

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "fio/log_compression.hpp"

namespace rs::fio {

using workload::JobLog;
using workload::JobLogSetup;
using workload::JobOptions;
using workload::LoggedIo;

namespace {

// A log file, closed with its owner.
struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

// `made` collects the path (the logs finish() compresses).
Result<File> create_log(const std::string& prefix, const char* kind, unsigned n, bool per_job,
                        std::vector<std::string>& made) {
  const std::string path = prefix + "_" + kind + (per_job ? "." + std::to_string(n) : "") + ".log";
  made.push_back(path);
  File f(std::fopen(path.c_str(), "w"));
  if (!f) return make_error(Errc::io_error, path + ": cannot create the log: " + std::strerror(errno));
  // Per-I/O lines: a large buffer, so the job thread writes every MiB, not every 4 KiB.
  std::setvbuf(f.get(), nullptr, _IOFBF, 1 << 20);
  return f;
}

// The bw, iops and lat logs (fio's flush_samples lines), and the iolog.
class FioJobLogs final : public JobLog {
 public:
  Status open(const JobOptions& job, const JobLogSetup& setup);
  void files(uint64_t at_ns, FileEvent event) override;
  void issued(const LoggedIo& io) override;
  void completed(const LoggedIo& io) override;
  void finish(uint64_t at_ns) override;

 private:
  struct Window {  // one direction's running figures for the current window
    uint64_t bytes = 0, ios = 0;
    uint64_t lat_sum[3] = {0, 0, 0};  // lat, clat, slat
  };
  void line(std::FILE* f, uint64_t ms, uint64_t value, int ddir, uint32_t bs, uint64_t offset,
            uint16_t ioprio = 0);
  void close_windows_until(uint64_t at_ns);

  File lat_[3];  // lat, clat, slat
  File bw_, iops_;
  File iolog_;
  std::vector<std::string> paths_;  // the iolog's names of the job's files
  std::vector<std::string> made_;   // the bw, iops and lat logs' paths
  bool store_compressed_ = false;   // log_store_compressed: finish() turns them into .fz
  uint64_t chunk_bytes_ = 0;        // log_compression
  bool log_offset_ = false;
  bool log_prio_ = false;
  bool log_slat_ = true;         // fio measures no submission latency of a synchronous engine
  uint64_t lat_window_ns_ = 0;   // 0: every I/O
  uint64_t rate_window_ns_ = 0;  // bw and iops; 0: every I/O
  uint64_t lat_window_end_ = 0, rate_window_end_ = 0;
  std::array<Window, 3> lat_win_{}, rate_win_{};
};

Status FioJobLogs::open(const JobOptions& job, const JobLogSetup& setup) {
  auto prefix = [&](const std::string& given) { return given.empty() ? job.name : given; };
  const bool per = job.per_job_logs;
  const unsigned n = setup.thread_number;
  auto take = [](Result<File> made, File& into) -> Status {
    if (!made) return made.take_error();
    into = std::move(*made);
    return {};
  };
  if (job.lat_log) {
    const std::string p = prefix(job.lat_log_prefix);
    const char* kinds[3] = {"lat", "clat", "slat"};
    for (int i = 0; i < 3; ++i)
      if (Status st = take(create_log(p, kinds[i], n, per, made_), lat_[i]); !st) return st;
  }
  if (job.bw_log)
    if (Status st = take(create_log(prefix(job.bw_log_prefix), "bw", n, per, made_), bw_); !st) return st;
  if (job.iops_log)
    if (Status st = take(create_log(prefix(job.iops_log_prefix), "iops", n, per, made_), iops_); !st)
      return st;
  if (!job.write_iolog.empty()) {
    iolog_.reset(std::fopen(job.write_iolog.c_str(), "a"));  // fio appends (init_iolog)
    if (!iolog_)
      return make_error(Errc::io_error, "write_iolog=" + job.write_iolog + ": " + std::strerror(errno));
    std::fprintf(iolog_.get(), "fio version 3 iolog\n");
    paths_ = setup.paths;
  }
  log_offset_ = job.log_offset;
  store_compressed_ = job.log_store_compressed;
  chunk_bytes_ = job.log_compression;
  log_prio_ = job.log_prio;
  const uint64_t avg_ns = uint64_t(job.log_avg_msec) * 1000000ull;
  // Without log_avg_msec every log has a line per I/O (fio's per_unit_log).
  lat_window_ns_ = avg_ns;
  rate_window_ns_ = avg_ns;
  log_slat_ = workload::measures_slat(job);
  lat_window_end_ = lat_window_ns_;
  rate_window_end_ = rate_window_ns_;
  return {};
}

void FioJobLogs::files(uint64_t at_ns, FileEvent event) {
  if (!iolog_) return;
  const char* action = event == FileEvent::add ? "add" : event == FileEvent::open ? "open" : "close";
  for (const auto& p : paths_)
    std::fprintf(iolog_.get(), "%llu %s %s\n", static_cast<unsigned long long>(at_ns / 1000), p.c_str(),
                 action);
}

void FioJobLogs::issued(const LoggedIo& io) {
  if (!iolog_) return;
  std::fprintf(iolog_.get(), "%llu %s %s %llu %u\n", static_cast<unsigned long long>(io.at_ns / 1000),
               io.file < paths_.size() ? paths_[io.file].c_str() : "?",
               io.ddir == workload::kDdirTrim    ? "trim"
               : io.ddir == workload::kDdirWrite ? "write"
                                                 : "read",
               static_cast<unsigned long long>(io.offset), io.length);
}

void FioJobLogs::line(std::FILE* f, uint64_t ms, uint64_t value, int ddir, uint32_t bs, uint64_t offset,
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

void FioJobLogs::close_windows_until(uint64_t at_ns) {
  while (lat_[0] && lat_window_ns_ && at_ns >= lat_window_end_) {
    for (int d = 0; d < 3; ++d) {
      Window& w = lat_win_[size_t(d)];
      if (!w.ios) continue;
      for (int i = 0; i < 3; ++i)
        line(lat_[i].get(), lat_window_end_ / 1000000, w.lat_sum[i] / w.ios, d, 0, 0);
      w = {};
    }
    lat_window_end_ += lat_window_ns_;
  }
  while ((bw_ || iops_) && rate_window_ns_ && at_ns >= rate_window_end_) {
    const double secs = double(rate_window_ns_) / 1e9;
    for (int d = 0; d < 3; ++d) {
      Window& w = rate_win_[size_t(d)];
      // fio writes a direction's sample only once it has done I/O.
      if (w.ios) {
        if (bw_)
          line(bw_.get(), rate_window_end_ / 1000000, uint64_t(double(w.bytes) / 1024.0 / secs), d, 0, 0);
        if (iops_) line(iops_.get(), rate_window_end_ / 1000000, uint64_t(double(w.ios) / secs), d, 0, 0);
      }
      w = {};
    }
    rate_window_end_ += rate_window_ns_;
  }
}

void FioJobLogs::completed(const LoggedIo& io) {
  close_windows_until(io.at_ns);
  if (lat_[0]) {
    if (!lat_window_ns_) {
      const uint64_t ms = io.at_ns / 1000000;
      line(lat_[0].get(), ms, io.lat_ns, io.ddir, io.length, io.offset, io.ioprio);
      line(lat_[1].get(), ms, io.clat_ns, io.ddir, io.length, io.offset, io.ioprio);
      if (log_slat_) line(lat_[2].get(), ms, io.slat_ns, io.ddir, io.length, io.offset, io.ioprio);
    } else {
      Window& w = lat_win_[size_t(io.ddir)];
      ++w.ios;
      w.lat_sum[0] += io.lat_ns, w.lat_sum[1] += io.clat_ns, w.lat_sum[2] += io.slat_ns;
    }
  }
  if (!rate_window_ns_) {
    // fio's add_bw_sample / add_iops_sample: the I/O's own rate, bytes *
    // 1e6 / its completion latency in ns; and 1 per I/O.
    const uint64_t ms = io.at_ns / 1000000;
    if (bw_)
      line(bw_.get(), ms, io.clat_ns ? uint64_t(io.length) * 1000000ull / io.clat_ns : 0, io.ddir, io.length,
           io.offset, io.ioprio);
    if (iops_) line(iops_.get(), ms, 1, io.ddir, io.length, io.offset, io.ioprio);
    return;
  }
  Window& r = rate_win_[size_t(io.ddir)];
  r.bytes += io.length;
  ++r.ios;
}

void FioJobLogs::finish(uint64_t at_ns) {
  close_windows_until(at_ns);
  // fio's finalize_logs: the latency logs' last, partial window is written
  // at the job's end time. The bw and iops logs keep only whole windows
  // (their samples are rates over a window, taken by fio's helper thread).
  if (lat_[0] && lat_window_ns_)
    for (int d = 0; d < 3; ++d) {
      Window& w = lat_win_[size_t(d)];
      if (!w.ios) continue;
      for (int i = 0; i < 3; ++i) line(lat_[i].get(), at_ns / 1000000, w.lat_sum[i] / w.ios, d, 0, 0);
      w = {};
    }
  for (File* f : {&lat_[0], &lat_[1], &lat_[2], &bw_, &iops_}) f->reset();
  // A log that cannot be compressed stays as text: nothing measured is lost.
  if (store_compressed_)
    for (const std::string& path : made_) (void)store_log_compressed(path, chunk_bytes_);
}

}  // namespace

Result<std::unique_ptr<JobLog>> open_job_logs(const JobOptions& job, const JobLogSetup& setup) {
  if (!workload::wants_logs(job)) return std::unique_ptr<JobLog>();
  auto logs = std::make_unique<FioJobLogs>();
  if (Status st = logs->open(job, setup); !st) return st.error();
  return std::unique_ptr<JobLog>(std::move(logs));
}

}  // namespace rs::fio
