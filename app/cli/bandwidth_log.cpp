#include "bandwidth_log.hpp"

#include <cerrno>
#include <cstring>

#include "args.hpp"

namespace rs::cli {

BandwidthLog::BandwidthLog() {
  const char* names[3] = {"agg-read_bw.log", "agg-write_bw.log", "agg-trim_bw.log"};
  for (int d = 0; d < 3; ++d) {
    files_[d].reset(std::fopen(names[d], "w"));
    if (!files_[d])
      throw RuntimeError(std::string("--bandwidth-log: cannot write ") + names[d] + ": " +
                         std::strerror(errno));
  }
}

void BandwidthLog::sample(const telemetry::Sample& s) {
  // A sample covers (t_ns - interval_ns, t_ns]: its bytes go to the window
  // its end falls in (samples are 10 to 50 per second, windows 2 per second).
  while (s.t_ns > window_end_ns_) {
    for (int d = 0; d < 2; ++d) {
      if (bytes_[d] > 0)
        std::fprintf(files_[d].get(), "%llu, %llu, %d, 0, 0\n",
                     static_cast<unsigned long long>(window_end_ns_ / 1'000'000),
                     static_cast<unsigned long long>(bytes_[d] / 1024.0 / (double(kWindowNs) / 1e9)), d);
      bytes_[d] = 0;
    }
    window_end_ns_ += kWindowNs;
  }
  const double secs = double(s.interval_ns) / 1e9;
  bytes_[0] += s.array.read_bw_bytes * secs;
  bytes_[1] += s.array.write_bw_bytes * secs;
}

void BandwidthLog::finish() {
  for (auto& f : files_) f.reset();
}

}  // namespace rs::cli
