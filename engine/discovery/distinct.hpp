// One array must not list the same storage twice under different names: a
// file and a loop device over it, two loop devices over one file, two hard
// links, a symlink and its target. Each copy would be written as a
// different member, so redundancy would be claimed that does not exist.
#pragma once
#include <string>
#include <vector>

#include "base/result.hpp"
#include "discovery/system_roots.hpp"

namespace rs::discovery {

// Errc::invalid_argument naming both paths and why for the first pair of
// `paths` that reach the same storage (same_storage), e.g.
// "/dev/loop5 is a loop device over u.img: the same member given twice".
// Paths that do not exist yet (to be created) are compared by their
// absolute, normalised name; paths that cannot be identified otherwise
// (a directory, an unreadable loop device) are left for the open to report.
Status check_distinct(const std::vector<std::string>& paths, const SystemRoots& roots = {});

}  // namespace rs::discovery
