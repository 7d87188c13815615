// What a member path IS, as opposed to what it is called: two paths reach
// the same bytes when they name the same file (also through a hard link or
// a symlink), the same block device, or a loop device and the file behind
// it. Members are compared by identity, never by path.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "base/result.hpp"
#include "discovery/system_roots.hpp"

namespace rs::discovery {

// The storage a bound loop device reads and writes. The kernel's
// LOOP_GET_STATUS64 is the authority for which inode it is; sysfs gives the
// path, which is only for messages (it can be stale after a rename, and
// ends in " (deleted)" for a deleted file).
struct LoopBacking {
  uint64_t dev = 0;   // st_dev of the backing file's filesystem (lo_device)
  uint64_t ino = 0;   // its inode (lo_inode)
  uint64_t rdev = 0;  // when the backing file is itself a block device: its number, else 0
  std::string path;   // /sys/dev/block/M:m/loop/backing_file, "" when unreadable
};

struct Identity {
  enum class Kind { file, block_device };

  std::string path;  // as the user gave it, for messages
  Kind kind = Kind::file;
  uint64_t dev = 0;                 // file: st_dev
  uint64_t ino = 0;                 // file: st_ino
  uint64_t rdev = 0;                // block device: st_rdev
  std::optional<LoopBacking> loop;  // a bound loop device: what is behind it

  bool is_loop() const { return loop.has_value(); }
  // "7:3" for a block device, "" for a file.
  std::string major_minor() const;
};

// The identity of `path` (symlinks followed). A loop device is recognised by
// its major (7) or sysfs (<sysfs>/dev/block/M:m/loop) and asked
// LOOP_GET_STATUS64 through a read-only descriptor (an autoclear one is
// answered from sysfs, see loop_backing); an unbound loop device is a plain
// block device.
// Errors: not_found (with the path), unsupported for anything that is
// neither a regular file nor a block device (a directory, a FIFO, ...).
Result<Identity> identify(const std::string& path, const SystemRoots& roots = {});

// The same, for a descriptor the caller has already opened on `path` (no
// second lookup, so the identity is that of the file actually opened).
Result<Identity> identify_fd(int fd, const std::string& path, const SystemRoots& roots = {});

// What is behind the loop device numbered `rdev`, whose node is
// `device_path`: nullopt when it is not a bound loop device. Asks the kernel
// through the node when it can (the node is checked to be that device);
// an autoclear device is never opened (closing its last descriptor would
// detach it) and, like a missing node, is answered from a stat of the sysfs
// backing_file path instead.
Result<std::optional<LoopBacking>> loop_backing(uint64_t rdev, const std::string& device_path,
                                                const SystemRoots& roots = {});

// True when a and b reach the same bytes: the same file, the same block
// device, a loop device and its backing file (or backing block device), or
// two loop devices over one file. Loop offsets are ignored: two loops over
// different ranges of one file still count as the same storage. Partitions
// and their whole disk are not related here (O_EXCL covers those).
bool same_storage(const Identity& a, const Identity& b);

// Why same_storage(a, b) holds, for an error message: "/dev/loop5 is a loop
// device over /tmp/u.img", "a.img and b.img are the same file (hard links
// or symlinks)", "/dev/loop0 and /dev/loop1 are loop devices over
// /tmp/u.img". "" when it does not.
std::string same_storage_reason(const Identity& a, const Identity& b);

}  // namespace rs::discovery
