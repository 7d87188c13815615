#include "discovery/signature.hpp"

#include <blkid/blkid.h>

#include "discovery/in_use.hpp"

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
      const bool vowel = std::string("aeiou").find(type[0]) != std::string::npos;
      found = type == "linux_raid_member" ? "an md RAID member signature"
                                          : (vowel ? "an " : "a ") + type + " signature";
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
  return member_in_use(path);
}

}  // namespace rs::discovery
