// Which md array a device or image file belongs to, read from the v1.2
// superblock at 4 KiB (the only placement RaidScope writes; mdadm's default).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "base/result.hpp"

namespace rs::discovery {

struct MdMembership {
  std::string array_uuid;  // mdadm style, "" when the superblock is damaged
  std::string array_name;  // "host:name"
  std::string level;       // "raid1", "raid10", "raid5"
  // "active 0 of 2", "spare", "faulty", "journal", or for a superblock that
  // has md's magic but fails its checks, "damaged superblock: <why>".
  std::string role;
  uint64_t events = 0;
  bool damaged = false;
};

// The membership recorded at byte 4096 of `path` (a device node or a file
// of `size_bytes`); nullopt when there is no md magic there; Errc::io_error
// naming the path when it cannot be read.
Result<std::optional<MdMembership>> read_md_membership(const std::string& path, uint64_t size_bytes);

}  // namespace rs::discovery
