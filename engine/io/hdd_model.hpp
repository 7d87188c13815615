// Timing model of a rotational disk: one actuator serving I/O in the order
// it is scheduled.
//
// Service on the actuator = positioning + transfer (+ the sub-4K write
// penalty, a read-modify-write of the 4 KiB unit). Positioning is:
//  - none for a sequential continuation (the I/O starts where the previous
//    one ended);
//  - for a short forward gap, the time the platter takes to carry the gap
//    past the head, when that is quicker than seeking;
//  - otherwise seek(distance) (see seek_curve.hpp) + rotational latency.
// Rotational latency is the expected wait for the sector to come round.
// With command queueing (ncq_depth > 1) a drive picks, among the n commands
// it holds, the one coming round first: the expected wait is then the
// minimum of n uniform waits, rotation/(n+1), and at n = 1 the familiar half
// rotation. n counts this I/O and those still on the actuator when it is
// scheduled, capped at ncq_depth. The seek is not shortened by queueing, a
// conservative simplification.
// With a nonzero seed the rotational latency is drawn (same distribution)
// from a pseudo-random stream instead: still deterministic for a call
// sequence.
//
// The base latency (controller and bus) overlaps the next I/O's mechanics,
// so it adds to each completion but not to the actuator's time.
// `scale` stretches every actuator time by 1/scale, so bandwidth and
// IOPS both scale by it.
//
// The I/O is positioned from where the previous scheduled one ends (the
// head is there when the actuator starts it). head_position(), what read
// policies see, moves only when complete() reports the I/O done.
//
// schedule() is thread-safe (one short mutex); no allocation per I/O.
#pragma once
#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "io/device_model.hpp"
#include "io/device_profile.hpp"
#include "io/seek_curve.hpp"

namespace rs::io {

class HddModel final : public DeviceModel {
 public:
  // `p` must be a valid profile with model hdd (validate_profile).
  explicit HddModel(const DeviceProfile& p, uint64_t seed = 0);

  uint64_t schedule(uint64_t now_ns, bool write, uint64_t offset, uint32_t length) override;
  void complete(uint64_t offset, uint32_t length) override;
  bool rotational() const override { return rotational_; }
  uint32_t io_opt() const override { return io_opt_; }
  uint32_t logical_block_size() const override { return logical_block_size_; }

  // Byte offset where the last completed I/O ended.
  uint64_t head_position() const { return head_position_.load(std::memory_order_relaxed); }
  const SeekCurve& seek_curve() const { return curve_; }
  double rotation_ms() const { return rotation_ms_; }

 private:
  uint64_t positioning(uint64_t to, unsigned queued);
  double next_uniform();

  const bool rotational_;
  const uint32_t io_opt_;
  const uint32_t logical_block_size_;
  const SeekCurve curve_;
  const double rotation_ms_;
  const double time_stretch_;  // 1 / scale
  const double inv_capacity_;
  double ticks_per_byte_[2];  // [0] read (also the media rate for gaps), [1] write
  uint64_t base_ticks_[2];
  uint64_t rotation_ticks_;
  uint64_t penalty_ticks_;
  unsigned ncq_depth_;

  std::mutex mu_;
  uint64_t actuator_free_ = 0;  // when the actuator finishes what it was given
  uint64_t sched_head_ = 0;     // where the head is then (byte offset)
  // When each of the last ncq_depth I/Os leaves the actuator, oldest first
  // (a ring): counts the commands the drive holds.
  std::vector<uint64_t> recent_;
  size_t recent_first_ = 0, recent_count_ = 0;
  uint64_t rng_ = 0;  // 0: expected rotational latency

  std::atomic<uint64_t> head_position_{0};
};

}  // namespace rs::io
