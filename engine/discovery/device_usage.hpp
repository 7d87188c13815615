// Who else uses a block device: a mounted filesystem, active swap, or a
// holder (device-mapper, md, ...). Writing to such a device, or to a file a
// loop device over it reads, destroys live data, so these are never
// overridden by --force.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "discovery/system_roots.hpp"

namespace rs::discovery {

struct DeviceUsage {
  std::vector<std::string> mountpoints;  // "/mnt/x" or "/mnt/x (partition loop0p1)"
  std::vector<std::string> swaps;        // "" for the device itself, or "partition loop0p1"
  std::vector<std::string> holders;      // "dm-0", or "md127 on partition loop0p2"

  bool in_use() const { return !mountpoints.empty() || !swaps.empty() || !holders.empty(); }
  // "mounted at /mnt/x", "an active swap device", "held by dm-0 (device-mapper, md or another
  // driver)"; the first reason only. "" when not in use.
  std::string reason() const;
};

// Usage of the block device `rdev`, whose node is `device_path`, and of its
// partitions (<sysfs>/dev/block/M:m/<name>/partition): mounts from
// <proc>/self/mountinfo by major:minor or by mount source (btrfs reports an
// anonymous major:minor), swap from <proc>/swaps, holders from sysfs.
DeviceUsage device_usage(uint64_t rdev, const std::string& device_path, const SystemRoots& roots = {});

// True when the regular file with this (st_dev, st_ino) is an active swap
// file in <proc>/swaps.
bool is_swap_file(uint64_t dev, uint64_t ino, const SystemRoots& roots = {});

}  // namespace rs::discovery
