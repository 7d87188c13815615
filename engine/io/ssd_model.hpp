// Timing model of a flash device (SATA SSD, NVMe, Optane) or of any disk
// whose cost is queueing rather than mechanics (a throttled virtio disk).
//
// Three resources, taken in FIFO order by every I/O:
//  - `parallelism` command slots: an I/O holds one from start to completion,
//    so at most that many are served at once (the device's internal
//    channels / queue slots) and QD1 latency is the base latency;
//  - a command clock that admits one I/O per 1/IOPS (read_iops or
//    write_iops): the small-block ceiling at full parallelism;
//  - a transfer pipe shared by reads and writes that moves bytes at the
//    sequential bandwidth of the I/O's direction: the large-block ceiling
//    (and, shared by both directions, a "total bytes" throttle like
//    libvirt's iotune).
// An I/O starts when a slot and the command clock allow, transfers when the
// pipe is free, and completes its base latency (plus the sub-4K write
// penalty for writes not covering whole 4 KiB units) after its transfer.
//
// Why one pipe instead of a per-slot share of the bandwidth: a device
// stripes one large I/O over all its channels, so a single 1 MiB read runs
// at nearly full bandwidth; a per-slot share would make QD1 large reads
// parallelism times too slow.
//
// schedule() is thread-safe (one short mutex) and deterministic: the same
// call sequence gives the same completion times. No allocation per I/O.
#pragma once
#include <cstdint>
#include <mutex>
#include <vector>

#include "io/device_model.hpp"
#include "io/device_profile.hpp"

namespace rs::io {

class SsdModel final : public DeviceModel {
 public:
  // `p` must be a valid profile (validate_profile); `scale` is applied.
  explicit SsdModel(const DeviceProfile& p);

  uint64_t schedule(uint64_t now_ns, bool write, uint64_t offset, uint32_t length) override;
  bool rotational() const override { return rotational_; }
  uint32_t io_opt() const override { return io_opt_; }
  uint32_t logical_block_size() const override { return logical_block_size_; }

 private:
  struct Direction {
    double ticks_per_byte = 0;  // transfer cost through the pipe
    uint64_t cmd_ticks = 0;     // 1/IOPS
    uint64_t base_ticks = 0;    // latency after the transfer
  };

  const bool rotational_;
  const uint32_t io_opt_;
  const uint32_t logical_block_size_;
  Direction dir_[2];  // [0] read, [1] write
  uint64_t penalty_ticks_ = 0;

  std::mutex mu_;
  std::vector<uint64_t> slot_free_;  // min-heap: when each slot frees up
  uint64_t cmd_free_ = 0;            // when the command clock admits the next I/O
  uint64_t pipe_free_ = 0;           // when the transfer pipe is free
};

}  // namespace rs::io
