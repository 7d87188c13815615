// Timing model of a rotational disk, from the mechanics a datasheet gives:
// seek time as a function of distance (seek_curve.hpp), the platter's
// rotation, the media rate, command queueing (NCQ) and the read-ahead cache.
//
// Geometry: a track holds what the head reads in one revolution
// (track_bytes = seq_read_bw x rotation period); byte offset o lies on track
// o / track_bytes at angle frac(o / track_bytes). The platter turns at a
// constant rate from angle 0 at time 0, so where the head is over the
// platter follows from the time: rotational latency is computed, not drawn.
// Seek distances are fractions of the whole disk (capacity_bytes), so a
// member that uses part of a disk seeks like that part of the real disk.
// Zoned recording (slower inner tracks) is not modelled: the seeds read the
// outer part of their disks.
//
// Serving a command from time t, the drive takes the quickest of
//  - streaming: the head is reading at offset h and the command starts at
//    o >= h: the platter carries the gap past, (o - h) at the media rate;
//  - positioning: seek to the target track (none on the same track), then
//    wait until the target sector comes round;
// and then transfers at the media rate (plus the sub-4K write penalty).
// Read-ahead: while it has nothing queued, the drive keeps reading after
// its last read into its cache, up to readahead_bytes; a read of cached
// data costs no positioning (and only its uncached tail streams).
//
// Two ways to drive it:
//  - EventDevice (the simulator): the drive holds every command it is sent
//    and, whenever the actuator frees, starts the one among the first
//    ncq_depth (in arrival order) that it can finish soonest (shortest
//    positioning time first, as NCQ firmware does; ties by arrival). With
//    ncq_depth 1 it serves them in order.
//  - DeviceModel::schedule() (the io_uring path, which cannot revise a
//    completion time once given): commands are served in arrival order, so
//    NCQ reordering is not modelled there.
// The base latency (controller and bus) adds to each completion but overlaps
// the next command's mechanics. `scale` stretches every mechanical time by
// 1/scale, so bandwidth and IOPS both scale by it.
#pragma once
#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "io/device_model.hpp"
#include "io/device_profile.hpp"
#include "io/event_device.hpp"
#include "io/seek_curve.hpp"

namespace rs::io {

class HddModel final : public DeviceModel, public EventDevice {
 public:
  // `p` must be a valid profile with model hdd (validate_profile).
  explicit HddModel(const DeviceProfile& p);

  uint64_t schedule(uint64_t now_ns, bool write, uint64_t offset, uint32_t length) override;
  void complete(uint64_t offset, uint32_t length) override;
  bool rotational() const override { return rotational_; }
  uint32_t io_opt() const override { return io_opt_; }
  uint32_t logical_block_size() const override { return logical_block_size_; }

  void arrive(uint64_t now_ns, uint64_t token, bool write, uint64_t offset, uint32_t length,
              EventSink& sink) override;
  void delivered(uint64_t now_ns, uint64_t token, EventSink& sink) override;

  // Byte offset where the last completed I/O ended.
  uint64_t head_position() const { return head_position_.load(std::memory_order_relaxed); }
  const SeekCurve& seek_curve() const { return curve_; }
  double rotation_ms() const { return rotation_ms_; }
  double track_bytes() const { return track_bytes_; }

 private:
  struct Command {
    uint64_t token;
    uint64_t offset;
    uint64_t arrival;  // ticks
    uint32_t length;
    bool write;
  };
  // Ticks from `at` until the drive has served `c`, from the current state.
  uint64_t service_ticks(uint64_t at, const Command& c) const;
  // Starts `c` at `at` (service from service_ticks); returns its end.
  uint64_t start(uint64_t at, const Command& c, uint64_t service);
  // Where the cache's read-ahead has got to at `at` (>= head_).
  uint64_t readahead_end(uint64_t at) const;
  // Decides every command whose decision time has come by `now` (ticks).
  void settle(uint64_t now, EventSink& sink);

  const bool rotational_;
  const uint32_t io_opt_;
  const uint32_t logical_block_size_;
  const SeekCurve curve_;
  const double rotation_ms_;
  const double time_stretch_;  // 1 / scale
  const double track_bytes_;
  const double capacity_;
  double ticks_per_byte_[2];  // [0] read (also the media rate), [1] write
  double bytes_per_tick_;
  uint64_t base_ticks_[2];
  uint64_t rotation_ticks_;
  uint64_t penalty_ticks_;
  uint64_t readahead_bytes_;
  size_t ncq_depth_;

  std::mutex mu_;               // schedule() only: the io_uring path feeds it from several threads
  uint64_t actuator_free_ = 0;  // when the actuator finishes (or finished) its last command
  uint64_t head_ = 0;           // offset the head has read up to at actuator_free_
  uint64_t cache_start_ = 0;    // [cache_start_, read-ahead end) is in the cache, unread
  std::vector<Command> queue_;  // event path: commands not started yet, in arrival order

  std::atomic<uint64_t> head_position_{0};
};

}  // namespace rs::io
