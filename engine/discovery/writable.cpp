#include "discovery/writable.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/unique_fd.hpp"
#include "discovery/privileges.hpp"
#include "discovery/sysfs_attr.hpp"

namespace rs::discovery {

namespace {

// The chattr flags of `path` (FS_IOC_GETFLAGS); 0 when they cannot be read.
unsigned file_flags(const std::string& path) {
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
  if (!fd) return 0;
  int flags = 0;
  if (::ioctl(fd.get(), FS_IOC_GETFLAGS, &flags) != 0) flags = 0;
  return unsigned(flags);
}

// mountinfo escapes blanks and backslashes in paths as \ooo.
std::string unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size()) {
      out += char((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

// The mount point `path` is under (the longest one that is a prefix of
// its real path), and whether that mount is read-only; "" when unknown.
std::string mount_of(const std::string& path, bool* read_only, const SystemRoots& roots) {
  std::error_code ec;
  const std::string real = std::filesystem::weakly_canonical(path, ec).string();
  std::ifstream in(roots.proc + "/self/mountinfo");
  std::string best;
  for (std::string line; std::getline(in, line);) {
    std::istringstream f(line);
    std::string id, parent, devno, root, point, options;
    if (!(f >> id >> parent >> devno >> root >> point >> options)) continue;
    point = unescape(point);
    const bool under = real == point || point == "/" ||
                       (real.size() > point.size() && real.compare(0, point.size(), point) == 0 &&
                        real[point.size()] == '/');
    if (!under || point.size() < best.size()) continue;
    best = point;
    *read_only = ("," + options + ",").find(",ro,") != std::string::npos;
  }
  return best;
}

}  // namespace

bool block_device_read_only(uint64_t rdev, const SystemRoots& roots) {
  return read_attr(roots.sysfs + "/dev/block/" + major_minor(rdev) + "/ro") == "1";
}

std::string read_only_device_message(const std::string& path) {
  return path +
         ": read-only block device (set up read-only: losetup -r, blockdev --setro, or a write-protected " +
         "disk): writes to it would fail; make it writable or leave it out";
}

std::string file_not_writable_message(const std::string& path, int err, const SystemRoots& roots) {
  if (err == EPERM) {
    const unsigned flags = file_flags(path);
    if (flags & FS_IMMUTABLE_FL)
      return path + ": immutable (chattr +i): nobody may write it, root included; 'chattr -i " + path +
             "' makes it writable again";
    if (flags & FS_APPEND_FL)
      return path + ": append-only (chattr +a): it may not be written in place; 'chattr -a " + path +
             "' lifts that";
  }
  if (err == EROFS) {
    bool ro = false;
    const std::string point = mount_of(path, &ro, roots);
    return path + ": on a read-only filesystem (" +
           (point.empty() ? std::string("its filesystem is read-only")
                          : point + (ro ? " is mounted read-only" : "'s filesystem is read-only")) +
           "): it cannot be written there";
  }
  if (err == EACCES || err == EPERM) return missing_permission_message(path, err);
  return path + ": " + std::strerror(err);
}

}  // namespace rs::discovery
