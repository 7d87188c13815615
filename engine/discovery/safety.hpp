// The safety matrix: may a member be written? Each hazard names the reason
// in words a user can act on, and whether --force (CLI) or a typed
// confirmation (GUI) may override it. Mounted, swap, held (by device-mapper,
// md or another process) and read-only are never overridden: the data is
// live or the write cannot happen. A partition table, an md superblock of
// another array or a filesystem signature is overridable: the user may mean
// to reuse the disk.
#pragma once
#include <string>
#include <vector>

#include "discovery/block_devices.hpp"
#include "discovery/open_by.hpp"

namespace rs::discovery {

struct Hazard {
  std::string reason;  // "mounted at /mnt/x", "partitioned (sda1, sda2)", "holds an ext4 signature"
  bool overridable = false;
};

struct Assessment {
  std::vector<Hazard> hazards;  // most serious first

  bool safe() const { return hazards.empty(); }
  // True when every hazard may be overridden (and there is at least one).
  bool needs_force() const;
  // True when some hazard is never overridden.
  bool refused() const;
  // "mounted at /mnt/x; holds an ext4 signature"; "" when safe.
  std::string summary() const;
};

// Judges a described device. `open_by` are the processes that hold it (the
// caller looks them up with processes_with_open, which needs root to see
// other users' processes). A device whose contents could not be probed
// gets a never-overridable "contents unknown" hazard: nothing is written
// blind.
Assessment assess(const BlockDevice& d, const std::vector<OpenBy>& open_by = {});

}  // namespace rs::discovery
