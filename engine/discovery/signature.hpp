// Safety checks before RaidScope writes to a device or file: is it in use,
// does it carry data we would destroy?
#pragma once
#include <string>

namespace rs::discovery {

// What libblkid finds on `path` that writing a superblock would destroy: a
// filesystem, a partition table, a RAID or LVM signature. "" when the
// target looks blank. Example: "an ext4 filesystem (label 'data')".
std::string existing_signature(const std::string& path);

// Why `path` must never be written now; "" when it is free. The same as
// member_in_use (discovery/in_use.hpp), which also covers regular files
// that back a mounted, swap or held loop device, and loop devices whose
// file does; kept under its old name for existing callers. Not overridden
// by --force.
std::string block_device_in_use(const std::string& path);

}  // namespace rs::discovery
