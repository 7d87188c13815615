#include "discovery/identity.hpp"

#include <fcntl.h>
#include <linux/loop.h>
#include <linux/major.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "base/unique_fd.hpp"
#include "discovery/sysfs_attr.hpp"

namespace rs::discovery {
namespace {

std::string first_line(const std::string& file) {
  std::ifstream in(file);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string loop_sysfs_dir(uint64_t rdev, const SystemRoots& roots) {
  return roots.sysfs + "/dev/block/" + major_minor(rdev) + "/loop";
}

bool sysfs_says_loop(uint64_t rdev, const SystemRoots& roots) {
  std::error_code ec;
  return std::filesystem::is_directory(loop_sysfs_dir(rdev, roots), ec);
}

// Fills dev/ino/rdev from a stat of the sysfs path: the fallback when the
// kernel cannot be asked. Returns false for a deleted or unreachable file.
bool backing_from_path(LoopBacking& b) {
  struct stat st {};
  if (b.path.empty() || ::stat(b.path.c_str(), &st) != 0) return false;
  b.dev = st.st_dev;
  b.ino = st.st_ino;
  b.rdev = S_ISBLK(st.st_mode) ? st.st_rdev : 0;
  return true;
}

// What the loop device `rdev` (open as `fd`, or -1) is backed by; nullopt
// when it is not bound. The ioctl answers for the inode the kernel actually
// holds, whatever has happened to its path since.
Result<std::optional<LoopBacking>> backing_of_open_loop(int fd, uint64_t rdev, const std::string& path,
                                                        const SystemRoots& roots) {
  using Answer = std::optional<LoopBacking>;
  LoopBacking b;
  b.path = first_line(loop_sysfs_dir(rdev, roots) + "/backing_file");
  if (fd >= 0) {
    loop_info64 info{};
    if (::ioctl(fd, LOOP_GET_STATUS64, &info) == 0) {
      b.dev = info.lo_device;
      b.ino = info.lo_inode;
      // Current kernels report the backing file's st_rdev (0 for a regular
      // file); old ones repeated lo_device for regular files.
      b.rdev = info.lo_rdevice != info.lo_device ? info.lo_rdevice : 0;
      return Answer(b);
    }
    if (errno == ENXIO) return Answer();  // an unbound loop device
    if (errno != ENOTTY && errno != EINVAL)
      return make_error(Errc::io_error, path + ": cannot ask the loop device what file is behind it: " +
                                            std::strerror(errno));
  }
  if (b.path.empty()) return Answer();  // sysfs shows no backing file: not bound
  if (!backing_from_path(b))
    return make_error(Errc::io_error,
                      path + ": loop device over " + b.path + ", which cannot be reached to identify it");
  return Answer(b);
}

bool autoclear(uint64_t rdev, const SystemRoots& roots) {
  return first_line(loop_sysfs_dir(rdev, roots) + "/autoclear") == "1";
}

Result<Identity> from_stat(const struct stat& st, int fd, const std::string& path, const SystemRoots& roots) {
  Identity id;
  id.path = path;
  if (S_ISREG(st.st_mode)) {
    id.kind = Identity::Kind::file;
    id.dev = st.st_dev;
    id.ino = st.st_ino;
    return id;
  }
  if (!S_ISBLK(st.st_mode)) {
    const char* what = S_ISDIR(st.st_mode) ? "a directory" : "not a regular file or block device";
    return make_error(Errc::unsupported, path + ": " + what);
  }
  id.kind = Identity::Kind::block_device;
  id.rdev = st.st_rdev;
  if (major(st.st_rdev) == LOOP_MAJOR || sysfs_says_loop(st.st_rdev, roots)) {
    auto backing = backing_of_open_loop(fd, st.st_rdev, path, roots);
    if (!backing.ok()) return backing.take_error();
    id.loop = std::move(*backing);
  }
  return id;
}

Error stat_error(const std::string& path, int err) {
  return make_error(err == ENOENT || err == ENOTDIR ? Errc::not_found : Errc::io_error,
                    path + ": " + std::strerror(err));
}

// The storage units an identity reaches: a file is one inode, a block
// device its device number plus, for a loop device, whatever is behind it.
struct StorageKey {
  bool block = false;
  uint64_t a = 0, b = 0;
  bool operator==(const StorageKey&) const = default;
};

std::vector<StorageKey> storage_keys(const Identity& id) {
  if (id.kind == Identity::Kind::file) return {{false, id.dev, id.ino}};
  std::vector<StorageKey> keys{{true, id.rdev, 0}};
  if (id.loop) {
    if (id.loop->rdev)
      keys.push_back({true, id.loop->rdev, 0});
    else
      keys.push_back({false, id.loop->dev, id.loop->ino});
  }
  return keys;
}

bool loop_reaches(const Identity& loop, const Identity& other) {
  if (!loop.loop) return false;
  const LoopBacking& b = *loop.loop;
  if (other.kind == Identity::Kind::file) return !b.rdev && b.dev == other.dev && b.ino == other.ino;
  return b.rdev && b.rdev == other.rdev;
}

std::string backing_name(const LoopBacking& b) {
  return b.path.empty() ? "device " + major_minor(b.dev) + " inode " + std::to_string(b.ino) : b.path;
}

}  // namespace

std::string Identity::major_minor() const {
  return kind == Kind::block_device ? discovery::major_minor(rdev) : "";
}

Result<Identity> identify_fd(int fd, const std::string& path, const SystemRoots& roots) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return stat_error(path, errno);
  return from_stat(st, fd, path, roots);
}

Result<Identity> identify(const std::string& path, const SystemRoots& roots) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return stat_error(path, errno);
  if (!S_ISBLK(st.st_mode)) return from_stat(st, -1, path, roots);
  const UniqueFd fd(autoclear(st.st_rdev, roots) ? -1
                                                 : ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  return from_stat(st, fd.get(), path, roots);
}

Result<std::optional<LoopBacking>> loop_backing(uint64_t rdev, const std::string& device_path,
                                                const SystemRoots& roots) {
  UniqueFd fd(autoclear(rdev, roots) ? -1 : ::open(device_path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  struct stat st {};
  if (fd && (::fstat(fd.get(), &st) != 0 || !S_ISBLK(st.st_mode) || st.st_rdev != rdev))
    fd.reset();  // not the node of this device (a fixture tree, a stale /dev)
  return backing_of_open_loop(fd.get(), rdev, device_path, roots);
}

bool same_storage(const Identity& a, const Identity& b) {
  for (const auto& ka : storage_keys(a))
    for (const auto& kb : storage_keys(b))
      if (ka == kb) return true;
  return false;
}

std::string same_storage_reason(const Identity& a, const Identity& b) {
  if (!same_storage(a, b)) return "";
  if (a.path == b.path) return a.path + " is named twice";
  using Kind = Identity::Kind;
  if (a.kind == Kind::file && b.kind == Kind::file)
    return a.path + " and " + b.path + " are the same file (hard links or symlinks)";
  if (a.kind == Kind::block_device && b.kind == Kind::block_device && a.rdev == b.rdev)
    return a.path + " and " + b.path + " are the same block device (" + a.major_minor() + ")";
  if (loop_reaches(a, b)) return a.path + " is a loop device over " + b.path;
  if (loop_reaches(b, a)) return b.path + " is a loop device over " + a.path;
  // Both loop devices, over one file or one block device.
  return a.path + " and " + b.path + " are loop devices over " + backing_name(*a.loop);
}

}  // namespace rs::discovery
