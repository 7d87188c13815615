// The bound loop devices of the system, and which of them read and write a
// given file or block device: the paths by which a member can be reached
// without being named.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "discovery/device_usage.hpp"
#include "discovery/identity.hpp"
#include "discovery/system_roots.hpp"

namespace rs::discovery {

struct LoopDevice {
  std::string name;         // "loop3"
  std::string device_path;  // "<dev>/loop3"
  uint64_t rdev = 0;
  LoopBacking backing;

  // Its identity as identify() would give it for device_path.
  Identity identity() const;
};

// Every bound loop device: <sysfs>/block/loop*/ with a loop/ directory,
// its number from the dev attribute, its backing as loop_backing() says.
// A device that cannot be identified (its backing file unreachable and the
// kernel not askable) is left out.
std::vector<LoopDevice> bound_loop_devices(const SystemRoots& roots = {});

struct LoopUser {
  LoopDevice loop;
  DeviceUsage usage;
};

// The bound loop devices that reach `target`'s storage (same_storage), other
// than `target` itself, each with what uses it (mounted, swap, held).
std::vector<LoopUser> loops_over(const Identity& target, const SystemRoots& roots = {});

}  // namespace rs::discovery
