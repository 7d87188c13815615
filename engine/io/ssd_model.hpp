// Timing model of a flash device (SATA SSD, NVMe, Optane) or of any disk
// whose cost is queueing rather than mechanics (a throttled virtio disk).
//
// Four resources, taken in FIFO order by every I/O:
//  - `parallelism` command slots: an I/O holds one from start to completion,
//    so at most that many are served at once (the device's queue slots);
//  - a command clock that admits one I/O per 1/IOPS (read_iops or
//    write_iops): the controller's small-block ceiling;
//  - `dies` flash dies (or planes, or channels: whatever serves one page at
//    a time), with the device's pages striped over them (page i on die
//    i mod dies, as data written sequentially lands): a page read holds its
//    die for die_read_us (die_write_us for a program). Random small reads
//    collide on dies, which is what makes throughput grow with queue depth
//    gradually rather than at once: with n reads in flight over D dies about
//    D(1 - (1 - 1/D)^n) dies are busy;
//  - a transfer pipe shared by reads and writes that moves bytes at the
//    sequential bandwidth of the I/O's direction: the host link (and, shared
//    by both directions, a "total bytes" throttle like libvirt's iotune).
// An I/O starts when a slot and the command clock allow; its pages go to
// their dies and its bytes through the pipe (the two overlap, as a device
// streams pages out while reading others); it completes its base latency
// (controller and protocol, plus the sub-4K write penalty for writes not
// covering whole 4 KiB units) after both.
//
// Why one pipe instead of a per-slot share of the bandwidth: a device
// stripes one large I/O over all its dies, so a single 1 MiB read runs at
// nearly full bandwidth; a per-slot share would make QD1 large reads
// parallelism times too slow.
//
// schedule() is thread-safe (one short mutex) and deterministic: the same
// call sequence gives the same completion times. No allocation per I/O once
// the slots in use have been seen. Slots are freed by the time of the call,
// so calls are expected in (roughly) time order, as every backend makes them.
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
    uint64_t page_ticks = 0;    // a die's time per page
  };
  // When the pages of [offset, offset + length) are off their dies, the
  // I/O starting at `start`.
  uint64_t dies_done(uint64_t start, uint64_t offset, uint32_t length, uint64_t page_ticks);

  const bool rotational_;
  const uint32_t io_opt_;
  const uint32_t logical_block_size_;
  Direction dir_[2];  // [0] read, [1] write
  uint64_t penalty_ticks_ = 0;

  std::mutex mu_;
  size_t slots_ = 1;                // parallelism
  std::vector<uint64_t> busy_;      // min-heap: when each slot held at the last call frees
  uint64_t cmd_free_ = 0;           // when the command clock admits the next I/O
  uint64_t pipe_free_ = 0;          // when the transfer pipe is free
  std::vector<uint64_t> die_free_;  // when each die is free
  uint32_t page_shift_ = 14;        // log2(die_page_bytes)
};

}  // namespace rs::io
