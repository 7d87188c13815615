// Why a member cannot be written, by its real cause, for the refusal made
// before anything is written (a command that writes opens every member for
// writing first): a read-only block device (losetup -r, blockdev --setro,
// a write-protected disk), a file on a read-only mount (EROFS, a read-only
// bind mount too), an immutable or append-only file (chattr +i / +a:
// EPERM, whatever its mode), or a file without write permission (EACCES:
// its owner and mode).
#pragma once
#include <string>

#include "discovery/system_roots.hpp"

namespace rs::discovery {

// Whether the block device numbered `rdev` is read-only, as sysfs says.
bool block_device_read_only(uint64_t rdev, const SystemRoots& roots = {});

// "<path>: read-only block device (...): writes to it fail; ...".
std::string read_only_device_message(const std::string& path);

// Why opening the file `path` for writing failed with `err` (EROFS, EPERM,
// EACCES): "<path>: immutable (chattr +i) ...", "<path>: on a read-only
// mount (/mnt/ro) ...", or missing_permission_message's owner and mode.
// Other errors: "<path>: <strerror>".
std::string file_not_writable_message(const std::string& path, int err, const SystemRoots& roots = {});

}  // namespace rs::discovery
