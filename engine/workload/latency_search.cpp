#include "workload/latency_search.hpp"

#include <algorithm>

namespace rs::workload {

LatencySearch::LatencySearch(const JobOptions& job)
    : target_ns_(job.latency_target_ns),
      window_ns_(uint64_t(job.latency_window.count()) * 1000),
      percentile_(job.latency_percentile),
      keep_searching_(job.latency_run),
      iodepth_(job.iodepth),
      qd_(job.latency_target_ns ? 1 : job.iodepth),
      qd_high_(job.iodepth) {}

void LatencySearch::new_window(uint64_t now_ns) {
  window_start_ns_ = now_ns;
  window_ios_ = completed_;
  failed_ = 0;
}

bool LatencySearch::completed(uint64_t lat_ns, uint64_t now_ns, bool check) {
  if (!enabled()) return true;
  ++completed_;
  if (lat_ns > target_ns_) {
    if (percentile_ == 100.0) {
      if (window_failed()) return false;
    } else {
      ++failed_;
    }
  }
  if (!check || quiesce_ || done_ || now_ns - window_start_ns_ < window_ns_) return true;
  const uint64_t ios = completed_ - window_ios_;
  const double success = ios ? 100.0 * double(ios - failed_) / double(ios) : 0.0;
  if (ios && success >= percentile_)
    window_held(now_ns);
  else
    window_failed();
  return true;
}

bool LatencySearch::window_failed() {
  if (qd_ == 1) return true;
  qd_high_ = qd_;
  if (qd_ == qd_low_) --qd_low_;
  qd_ = (qd_ + qd_low_) / 2;
  stable_count_ = 0;
  quiesce_ = true;  // the deeper queue's I/O drains before the next window
  return false;
}

void LatencySearch::window_held(uint64_t now_ns) {
  const unsigned qd = qd_;
  qd_low_ = qd_;
  // fio: three confirmations one below the upper bound raise the bound.
  if (qd_ + 1 == qd_high_ && ++stable_count_ >= 3) {
    ++qd_high_;
    stable_count_ = 0;
  }
  // Double until a window failed, then bisect towards the depth that failed.
  qd_ = qd_high_ != iodepth_ ? (qd_ + qd_high_) / 2 : qd_ * 2;
  qd_ = std::min(qd_, iodepth_);
  if (!keep_searching_ && qd_ == qd) {
    if (end_run_) {
      done_ = true;
    } else {
      end_run_ = true;
      quiesce_ = true;
      reset_pending_ = true;
      return;
    }
  }
  new_window(now_ns);
}

bool LatencySearch::drained(uint64_t now_ns) {
  quiesce_ = false;
  new_window(now_ns);
  const bool reset = reset_pending_;
  reset_pending_ = false;
  return reset;
}

}  // namespace rs::workload
