// Safety checks before RaidScope writes to a device or file: is it in use,
// does it carry data we would destroy?
#pragma once
#include <string>

namespace rs::discovery {

// What libblkid finds on `path` that writing a superblock would destroy: a
// filesystem, a partition table, a RAID or LVM signature. "" when the
// target looks blank. Example: "an ext4 filesystem (label 'data')".
std::string existing_signature(const std::string& path);

// Why a block device must never be written while in use (mounted, active
// swap, held by dm/md/another driver); "" when it is free. Regular files
// return "". These checks are not overridden by --force.
std::string block_device_in_use(const std::string& path);

}  // namespace rs::discovery
