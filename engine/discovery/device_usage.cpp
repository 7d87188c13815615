#include "discovery/device_usage.hpp"

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "discovery/sysfs_attr.hpp"

namespace rs::discovery {
namespace {

namespace fs = std::filesystem;

bool is_octal(char c, char max = '7') {
  return c >= '0' && c <= max;
}

// mountinfo and swaps escape space, tab, newline and backslash as \ooo.
std::string unescape_octal(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 4 <= s.size() && is_octal(s[i + 1], '3') && is_octal(s[i + 2]) &&
        is_octal(s[i + 3])) {
      out += char((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

// One block device to look for: the device itself or one of its partitions.
struct Part {
  uint64_t rdev = 0;
  std::string node;   // device node path, to match mount sources and swap names
  std::string label;  // "" for the device itself, "partition loop0p1" otherwise
};

std::vector<Part> device_and_partitions(uint64_t rdev, const std::string& device_path,
                                        const SystemRoots& roots) {
  std::vector<Part> parts{{rdev, device_path, ""}};
  const fs::path dir = fs::path(roots.sysfs) / "dev/block" / major_minor(rdev);
  const fs::path node_dir = fs::path(device_path).parent_path();
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::error_code ec2;
    if (!fs::exists(e.path() / "partition", ec2)) continue;
    unsigned maj = 0, min = 0;
    char colon = 0;
    std::ifstream dev(e.path() / "dev");
    if (!(dev >> maj >> colon >> min) || colon != ':') continue;
    const std::string name = e.path().filename().string();
    parts.push_back({makedev(maj, min), (node_dir / name).string(), "partition " + name});
  }
  return parts;
}

// True when `name` (a mount source or a swap file name) is the node of `part`.
bool names_device(const std::string& name, const Part& part) {
  if (name == part.node) return true;
  if (name.rfind("/dev/", 0) != 0) return false;  // do not stat network or pseudo sources
  struct stat st {};
  return ::stat(name.c_str(), &st) == 0 && S_ISBLK(st.st_mode) && st.st_rdev == part.rdev;
}

std::string with_label(const std::string& what, const Part& part) {
  return part.label.empty() ? what : what + " (" + part.label + ")";
}

void find_mounts(const std::vector<Part>& parts, const SystemRoots& roots, DeviceUsage& usage) {
  std::ifstream mounts(roots.proc + "/self/mountinfo");
  for (std::string line; std::getline(mounts, line);) {
    std::istringstream in(line);
    std::string id, parent, devno, root, mountpoint, field;
    in >> id >> parent >> devno >> root >> mountpoint;
    while (in >> field && field != "-") {
    }
    std::string fstype, source;
    in >> fstype >> source;
    source = unescape_octal(source);
    for (const auto& part : parts) {
      if (devno == major_minor(part.rdev) || names_device(source, part)) {
        usage.mountpoints.push_back(with_label(unescape_octal(mountpoint), part));
        break;
      }
    }
  }
}

// The file or device names in <proc>/swaps, unescaped.
std::vector<std::string> swap_names(const SystemRoots& roots) {
  std::vector<std::string> names;
  std::ifstream swaps(roots.proc + "/swaps");
  std::string line;
  std::getline(swaps, line);  // header
  while (std::getline(swaps, line)) {
    std::istringstream in(line);
    std::string name;
    if (in >> name) names.push_back(unescape_octal(name));
  }
  return names;
}

void find_swaps(const std::vector<Part>& parts, const SystemRoots& roots, DeviceUsage& usage) {
  for (const auto& name : swap_names(roots))
    for (const auto& part : parts)
      if (names_device(name, part)) usage.swaps.push_back(part.label);
}

void find_holders(const std::vector<Part>& parts, const SystemRoots& roots, DeviceUsage& usage) {
  for (const auto& part : parts) {
    std::error_code ec;
    const fs::path holders = fs::path(roots.sysfs) / "dev/block" / major_minor(part.rdev) / "holders";
    for (const auto& e : fs::directory_iterator(holders, ec))
      usage.holders.push_back(e.path().filename().string() + (part.label.empty() ? "" : " on " + part.label));
  }
}

}  // namespace

std::string DeviceUsage::reason() const {
  if (!mountpoints.empty()) return "mounted at " + mountpoints.front();
  if (!swaps.empty())
    return swaps.front().empty() ? "an active swap device" : "an active swap device (" + swaps.front() + ")";
  if (!holders.empty()) return "held by " + holders.front() + " (device-mapper, md or another driver)";
  return "";
}

DeviceUsage device_usage(uint64_t rdev, const std::string& device_path, const SystemRoots& roots) {
  const auto parts = device_and_partitions(rdev, device_path, roots);
  DeviceUsage usage;
  find_mounts(parts, roots, usage);
  find_swaps(parts, roots, usage);
  find_holders(parts, roots, usage);
  return usage;
}

bool is_swap_file(uint64_t dev, uint64_t ino, const SystemRoots& roots) {
  for (const auto& name : swap_names(roots)) {
    struct stat st {};
    if (::stat(name.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == dev && st.st_ino == ino)
      return true;
  }
  return false;
}

}  // namespace rs::discovery
