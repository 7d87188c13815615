#include "discovery/signature.hpp"

#include <blkid/blkid.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace rs::discovery {

std::string existing_signature(const std::string& path) {
  blkid_probe pr = blkid_new_probe_from_filename(path.c_str());
  if (!pr) return "";
  blkid_probe_enable_superblocks(pr, 1);
  blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_LABEL);
  blkid_probe_enable_partitions(pr, 1);
  std::string found;
  // safeprobe returns 1 for nothing, -2 for ambiguous results (also data).
  int rc = blkid_do_safeprobe(pr);
  if (rc == 0) {
    const char* v = nullptr;
    if (blkid_probe_lookup_value(pr, "TYPE", &v, nullptr) == 0 && v) {
      std::string type = v;
      found = type == "linux_raid_member" ? "an md RAID member signature" : "a " + type + " signature";
      const char* label = nullptr;
      if (blkid_probe_lookup_value(pr, "LABEL", &label, nullptr) == 0 && label && *label)
        found += std::string(" (label '") + label + "')";
    } else if (blkid_probe_lookup_value(pr, "PTTYPE", &v, nullptr) == 0 && v) {
      found = std::string("a ") + v + " partition table";
    }
  } else if (rc == -2) {
    found = "several conflicting signatures";
  }
  blkid_free_probe(pr);
  return found;
}

std::string block_device_in_use(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISBLK(st.st_mode)) return "";
  const std::string mm = std::to_string(major(st.st_rdev)) + ":" + std::to_string(minor(st.st_rdev));
  std::ifstream mounts("/proc/self/mountinfo");
  for (std::string line; std::getline(mounts, line);) {
    std::istringstream in(line);
    std::string id, parent, devno, root, mountpoint;
    in >> id >> parent >> devno >> root >> mountpoint;
    if (devno == mm) return "it is mounted on " + mountpoint;
  }
  std::error_code ec;
  std::string canonical = std::filesystem::canonical(path, ec).string();
  std::ifstream swaps("/proc/swaps");
  for (std::string line; std::getline(swaps, line);)
    if (!canonical.empty() && line.rfind(canonical + " ", 0) == 0) return "it is an active swap device";
  const std::string holders = "/sys/dev/block/" + mm + "/holders";
  for (auto& e : std::filesystem::directory_iterator(holders, ec))
    return "it is held by " + e.path().filename().string() + " (device-mapper, md or another driver)";
  return "";
}

}  // namespace rs::discovery
