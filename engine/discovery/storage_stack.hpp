// What a member's bytes are stored on, all the way down: the storage two
// engines must not both write, whatever names they reach it by.
//
// A member is a file (its inode), or a block device (its number) and what
// that device is built on, as the kernel says:
//  - a loop device: its backing inode (LOOP_GET_STATUS64's lo_device and
//    lo_inode, which still name a deleted file), or its backing block
//    device, followed down again (a loop device over a loop device);
//  - a partition: its whole disk (sysfs: the partition's directory sits in
//    the disk's), followed down again;
//  - a device-mapper or md device: each of its slaves (sysfs slaves/),
//    followed down again.
// Each layer is a claim. The member's own layer, and every layer under a
// loop device, is claimed exclusively: a loop device reads and writes all
// of what it is over (offsets are not trusted to keep two apart). The
// layers under a partition or a slave are claimed shared: two partitions of
// one disk, or two device-mapper devices on one disk, are different bytes,
// but the whole disk is all of them, so its exclusive claim conflicts with
// their shared ones.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "discovery/identity.hpp"
#include "discovery/system_roots.hpp"

namespace rs::discovery {

struct StorageClaim {
  enum class Kind { file, block_device };
  Kind kind = Kind::file;
  uint64_t dev = 0, ino = 0;  // file: st_dev and st_ino
  uint64_t rdev = 0;          // block device: its number
  bool shared = false;
  std::string name;   // for messages: "/tmp/u.img", "/tmp/u.img (deleted)", "/dev/loop3", "device 8:0"
  std::string chain;  // the layers from the member down to this one: "/dev/loop6 -> /dev/loop5 -> /tmp/u.img"

  // A name for the lock file, unique per storage: "file-<dev>-<ino>" with
  // the device as major.minor, or "block-<major>.<minor>".
  std::string key() const;
  bool same_storage(const StorageClaim& o) const {
    return kind == o.kind && (kind == Kind::file ? dev == o.dev && ino == o.ino : rdev == o.rdev);
  }
};

// The claims for `id`, its own first, then downwards; one per storage (an
// exclusive claim wins over a shared one of the same storage). Fails
// (Errc::unsupported) naming the layer whose storage could not be
// established: a block device sysfs does not know, a loop device whose
// backing can be reached neither through the kernel nor by its path, or a
// stack deeper than 16 layers.
Result<std::vector<StorageClaim>> storage_claims(const Identity& id, const SystemRoots& roots = {});

}  // namespace rs::discovery
