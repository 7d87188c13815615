#include "workload/rate_control.hpp"

#include <algorithm>
#include <cmath>

namespace rs::workload {

namespace {
// The direction's smallest block (fio's min_bs): bs, the low end of
// bsrange (also bs), or the smallest bssplit entry.
uint64_t smallest_block(const JobOptions& job, int ddir) {
  if (ddir == kDdirTrim) return job.bs_trim;
  uint64_t bs = job.bs[size_t(ddir)];
  for (const auto& e : job.bssplit[size_t(ddir)]) bs = std::min<uint64_t>(bs, e.bs);
  return bs;
}
uint64_t rate_of(const JobOptions& job, int d) {
  return d < 2 ? job.rate[size_t(d)] : job.rate_trim;
}
uint64_t rate_iops_of(const JobOptions& job, int d) {
  return d < 2 ? job.rate_iops[size_t(d)] : job.rate_iops_trim;
}
uint64_t rate_min_of(const JobOptions& job, int d) {
  return d < 2 ? job.rate_min[size_t(d)] : job.rate_min_trim;
}
uint64_t rate_iops_min_of(const JobOptions& job, int d) {
  return d < 2 ? job.rate_iops_min[size_t(d)] : job.rate_iops_min_trim;
}
const char* ddir_word(int d) {
  return d == kDdirRead ? "read" : d == kDdirWrite ? "write" : "trim";
}
}  // namespace

RateControl::RateControl(const JobOptions& job, uint64_t seed)
    : poisson_(job.rate_poisson), cycle_ms_(uint64_t(job.rate_cycle.count())) {
  for (int d = 0; d < 3; ++d) {
    Direction& x = dir_[size_t(d)];
    x.min_bs = smallest_block(job, d);
    // fio: rate= wins; rate_iops= is rate_iops x min_bs bytes per second.
    x.bps = rate_of(job, d) ? rate_of(job, d) : rate_iops_of(job, d) * x.min_bs;
    x.rate_min = rate_min_of(job, d);
    x.iops_min = rate_iops_min_of(job, d);
    x.rng = Rng(mix64(seed ^ (0x706f6973736f6e00ULL + uint64_t(d))));  // a stream of its own per direction
    limits_ = limits_ || x.bps;
    minimum_ = minimum_ || x.rate_min || x.iops_min;
  }
}

void RateControl::restart(uint64_t epoch_ns) {
  epoch_ns_ = epoch_ns;
  for (auto& x : dir_) {
    x.issued_bytes = x.last_us = x.next_us = 0;
    x.last_check_bytes = x.last_check_ios = x.last_check_ns = 0;
  }
}

uint64_t RateControl::next_issue_ns() const {
  uint64_t us = 0;
  for (const auto& x : dir_)
    if (x.bps) us = std::max(us, x.next_us);
  return epoch_ns_ + us * 1000;
}

uint64_t RateControl::poisson_gap_us(uint64_t iops, double u) {
  // fio: (int64_t)(1000000 / iops) * -logf(u), kept in a uint64_t.
  const float gap = float(int64_t(1000000 / iops)) * -std::log(float(u));
  return gap > 0 ? uint64_t(gap) : 0;
}

void RateControl::issued(int ddir, uint64_t bytes) {
  Direction& x = dir_[size_t(ddir)];
  if (!x.bps) return;
  x.issued_bytes += bytes;
  if (poisson_) {
    const uint64_t iops = x.bps / x.min_bs;
    if (iops == 0) return;  // check_rate_options() refuses such a job
    // fio's __rand_0_1: (v + 1) / (max + 1), in (0, 1].
    const double u = double((x.rng.next() >> 11) + 1) * 0x1.0p-53;
    x.last_us += poisson_gap_us(iops, u);
    x.next_us = x.last_us;
  } else {
    const uint64_t secs = x.issued_bytes / x.bps, rem = x.issued_bytes % x.bps;
    x.next_us = rem * 1000000 / x.bps + secs * 1000000;
  }
}

std::string RateControl::check_minimum(uint64_t now_ns, int ddir, uint64_t bytes_done, uint64_t ios_done) {
  Direction& x = dir_[size_t(ddir)];
  if ((!x.rate_min && !x.iops_min) || bytes_done == 0) return {};
  if (now_ns < epoch_ns_ + 2'000'000'000ULL) return {};  // fio's 2 s settle period
  if (x.last_check_bytes || x.last_check_ios) {
    const uint64_t spent_ms = (now_ns - x.last_check_ns) / 1'000'000;
    if (spent_ms < cycle_ms_ || spent_ms == 0) return {};
    if (x.rate_min) {
      const uint64_t got = (bytes_done - x.last_check_bytes) * 1000 / spent_ms;
      if (got < x.rate_min)
        return "rate_min=" + std::to_string(x.rate_min) + "B/s not met, got " + std::to_string(got) +
               "B/s (" + ddir_word(ddir) + ")";
    } else {
      const uint64_t got = (ios_done - x.last_check_ios) * 1000 / spent_ms;
      if (got < x.iops_min)
        return "rate_iops_min=" + std::to_string(x.iops_min) + " not met, got " + std::to_string(got) +
               " IOPS (" + ddir_word(ddir) + ")";
    }
  }
  x.last_check_bytes = bytes_done;
  x.last_check_ios = ios_done;
  x.last_check_ns = now_ns;
  return {};
}

std::string check_rate_options(const JobOptions& job) {
  bool rate = false, iops = false, rate_min = false, iops_min = false;
  for (int d = 0; d < 3; ++d) {
    rate |= rate_of(job, d) != 0;
    iops |= rate_iops_of(job, d) != 0;
    rate_min |= rate_min_of(job, d) != 0;
    iops_min |= rate_iops_min_of(job, d) != 0;
  }
  // fio's fixup_options refuses these.
  if ((rate && iops) || (rate_min && iops_min))
    return "rate and rate_iops are mutually exclusive (as in fio)";
  for (int d = 0; d < 3; ++d) {
    if ((rate_of(job, d) && rate_of(job, d) < rate_min_of(job, d)) ||
        (rate_iops_of(job, d) && rate_iops_of(job, d) < rate_iops_min_of(job, d)))
      return std::string("the minimum rate exceeds the rate (") + ddir_word(d) +
             "): rate_min must not exceed rate, rate_iops_min not rate_iops";
    // poisson's mean gap is 1e6 / (rate / smallest bs) microseconds: fio
    // divides by zero below one block per second.
    const uint64_t bps = rate_of(job, d) ? rate_of(job, d) : rate_iops_of(job, d) * smallest_block(job, d);
    if (job.rate_poisson && bps && bps < smallest_block(job, d))
      return "rate_process=poisson: rate=" + std::to_string(bps) + " (" + ddir_word(d) +
             ") is below one block per second; poisson needs at least 1 I/O per second";
  }
  if (job.submit_offload) {
    if (job.ioengine == IoEngine::io_uring)
      return "io_submit_mode=offload with ioengine=io_uring: fio 3.33 refuses it (\"io_uring: can't be used "
             "with offloaded submit\"); use ioengine=libaio";
    if (is_sync_engine(job.ioengine) && job.iodepth > 1)
      return "io_submit_mode=offload with ioengine=" + std::string(to_string(job.ioengine)) +
             " and iodepth=" + std::to_string(job.iodepth) +
             ": fio runs iodepth submitting threads, each one I/O at a time; RaidScope runs a "
             "synchronous engine one I/O at a time per job (use iodepth=1, or ioengine=libaio)";
  }
  return {};
}

}  // namespace rs::workload
