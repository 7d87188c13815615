#include "io/hdd_model.hpp"

#include <algorithm>
#include <cmath>

#include "io/model_time.hpp"

namespace rs::io {

using namespace model_time;

namespace {
constexpr double kTicksPerMs = 1e6 * double(kTicksPerNs);
}

HddModel::HddModel(const DeviceProfile& p, uint64_t seed)
    : rotational_(p.rotational),
      io_opt_(p.io_opt),
      logical_block_size_(p.logical_block_size),
      curve_(SeekCurve::fit(p.track_to_track_ms, p.avg_seek_ms, p.full_stroke_ms).value_or(SeekCurve{})),
      rotation_ms_(p.rpm > 0 ? 60e3 / p.rpm : 0),
      time_stretch_(p.scale > 0 ? 1.0 / p.scale : 1.0),
      inv_capacity_(1.0 / double(std::max<uint64_t>(p.capacity_bytes, 1))) {
  const double ticks_per_s = 1e9 * double(kTicksPerNs);
  // A zero rate (an unvalidated profile) means "no limit", never a division by zero.
  ticks_per_byte_[0] = p.seq_read_bw > 0 ? ticks_per_s / p.seq_read_bw * time_stretch_ : 0;
  ticks_per_byte_[1] = p.seq_write_bw > 0 ? ticks_per_s / p.seq_write_bw * time_stretch_ : 0;
  base_ticks_[0] = ticks_from_us(p.base_read_latency_us);
  base_ticks_[1] = ticks_from_us(p.base_write_latency_us);
  rotation_ticks_ = uint64_t(rotation_ms_ * kTicksPerMs * time_stretch_ + 0.5);
  penalty_ticks_ = uint64_t(double(ticks_from_us(p.sub4k_write_penalty_us)) * time_stretch_ + 0.5);
  ncq_depth_ = std::max<uint32_t>(p.ncq_depth, 1);
  recent_.assign(ncq_depth_, 0);
  // splitmix64 would map seed 0 to a fine stream too, but 0 is reserved for
  // "expected value", so mix the seed into a nonzero state.
  rng_ = seed ? (seed ^ 0x9E3779B97F4A7C15ull) | 1 : 0;
}

double HddModel::next_uniform() {
  // xorshift64*: tiny, fast and deterministic; quality is ample for a
  // rotational angle.
  rng_ ^= rng_ >> 12;
  rng_ ^= rng_ << 25;
  rng_ ^= rng_ >> 27;
  return double((rng_ * 0x2545F4914F6CDD1Dull) >> 11) * 0x1.0p-53;
}

uint64_t HddModel::positioning(uint64_t to, unsigned queued) {
  const uint64_t from = sched_head_;
  if (to == from) return 0;
  const uint64_t dist = to > from ? to - from : from - to;
  const double seek_ms = curve_.ms(double(dist) * inv_capacity_);
  double rot;
  if (rng_) {
    // Inverse CDF of the minimum of `queued` uniform waits.
    const double u = next_uniform();
    rot = queued == 1 ? u : 1.0 - std::pow(1.0 - u, 1.0 / double(queued));
  } else {
    rot = 1.0 / double(queued + 1);
  }
  const uint64_t seek_rot =
      uint64_t(seek_ms * kTicksPerMs * time_stretch_ + 0.5) + uint64_t(rot * double(rotation_ticks_) + 0.5);
  if (to > from) {
    // The head can also just wait while the platter carries the gap past.
    const uint64_t skip = uint64_t(double(dist) * ticks_per_byte_[0] + 0.5);
    return std::min(skip, seek_rot);
  }
  return seek_rot;
}

uint64_t HddModel::schedule(uint64_t now_ns, bool write, uint64_t offset, uint32_t length) {
  const int w = write ? 1 : 0;
  const uint64_t now = ticks(now_ns);
  uint64_t xfer = uint64_t(double(length) * ticks_per_byte_[w] + 0.5);
  if (partial_4k_write(write, offset, length)) xfer += penalty_ticks_;

  std::lock_guard lock(mu_);
  // Forget I/Os that have left the actuator; the rest are queued with us.
  while (recent_count_ && recent_[recent_first_] <= now) {
    recent_first_ = (recent_first_ + 1) % ncq_depth_;
    --recent_count_;
  }
  const unsigned queued = unsigned(std::min<size_t>(recent_count_ + 1, ncq_depth_));

  const uint64_t start = std::max(now, actuator_free_);
  const uint64_t end = start + positioning(offset, queued) + xfer;
  actuator_free_ = end;
  sched_head_ = offset + length;

  // Actuator end times only grow, so the ring stays ordered; when it is full
  // the oldest entry goes, and the count is already at the cap anyway.
  if (recent_count_ == ncq_depth_) {
    recent_first_ = (recent_first_ + 1) % ncq_depth_;
    --recent_count_;
  }
  recent_[(recent_first_ + recent_count_) % ncq_depth_] = end;
  ++recent_count_;
  return ns_ceil(end + base_ticks_[w]);
}

void HddModel::complete(uint64_t offset, uint32_t length) {
  head_position_.store(offset + length, std::memory_order_relaxed);
}

}  // namespace rs::io
