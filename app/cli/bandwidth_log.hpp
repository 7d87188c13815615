// fio's --bandwidth-log: the run's aggregate bandwidth per direction, in
// agg-read_bw.log, agg-write_bw.log and agg-trim_bw.log in the current
// directory, a line per 500 ms window (fio's bw_avg_time): "ms, KiB/s,
// ddir, 0, 0" as fio's log lines without an offset. The figures come from
// the run's telemetry samples (what completed on the target); trims are
// not in them, so agg-trim_bw.log stays empty.
#pragma once
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "telemetry/sample.hpp"

namespace rs::cli {

class BandwidthLog {
 public:
  // Creates the three files; throws RuntimeError naming one it cannot write.
  BandwidthLog();
  void sample(const telemetry::Sample& s);
  // Writes the last whole window and closes the files.
  void finish();

 private:
  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  std::unique_ptr<std::FILE, Closer> files_[3];
  double bytes_[2] = {0, 0};  // read, write in the current window
  uint64_t window_end_ns_ = kWindowNs;
  static constexpr uint64_t kWindowNs = 500'000'000;
};

}  // namespace rs::cli
