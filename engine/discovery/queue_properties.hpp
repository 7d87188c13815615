// What a block device's request queue says about it (sysfs queue/): the
// figures the read policies and the bitmap sizing use (seeds 000, 001, 003).
#pragma once
#include <cstdint>
#include <optional>

#include "discovery/identity.hpp"
#include "discovery/system_roots.hpp"

namespace rs::discovery {

struct QueueProperties {
  bool rotational = false;              // queue/rotational
  uint32_t io_opt = 0;                  // queue/optimal_io_size, bytes; 0 = not reported
  uint32_t logical_block_size = 512;    // queue/logical_block_size
  uint32_t physical_block_size = 512;   // queue/physical_block_size
};

// The queue of the block device `rdev`: <sysfs>/dev/block/M:m/queue, or for
// a partition (which has none) its disk's. nullopt when sysfs does not know
// the device (an anonymous device number: tmpfs, overlayfs, btrfs).
std::optional<QueueProperties> queue_properties(uint64_t rdev, const SystemRoots& roots = {});

// What a member behaves like. A plain block device: its own queue. A loop
// device or an image file: rotational and io_opt of the device the bytes
// really live on (the file's filesystem device, or the loop's backing block
// device, followed through nested loops), because a loop device's own queue
// only repeats defaults; block sizes stay the member's own (they set the
// I/O alignment). nullopt when no queue can be found (a file on tmpfs).
std::optional<QueueProperties> member_queue_properties(const Identity& id, const SystemRoots& roots = {});

}  // namespace rs::discovery
