// Is a member path in use by something that writing to it would corrupt?
// Covers what a path can be reached through: a block device's own mounts,
// swap and holders (and its partitions'), a regular file that is an active
// swap file or backs a loop device that is mounted, swap or held, and a loop
// device whose backing file does. These refusals are never overridden by
// --force: the data is live.
#pragma once
#include <string>

#include "discovery/identity.hpp"
#include "discovery/system_roots.hpp"

namespace rs::discovery {

// Why `path` must not be written now, or "" when nothing uses it (also for a
// path that does not exist or is neither a file nor a block device: the
// caller's open reports those). The reason reads after "<path>: ", e.g.
// "it backs /dev/loop3, which is mounted at /mnt/x".
std::string member_in_use(const std::string& path, const SystemRoots& roots = {});

// The same for an identity already taken (e.g. from an open descriptor).
std::string member_in_use(const Identity& id, const SystemRoots& roots = {});

}  // namespace rs::discovery
