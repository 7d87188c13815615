// Reading one member's md superblock from its device: the only place that
// knows where it lives and how big the read is.
#pragma once
#include "io/member_device.hpp"
#include "ondisk/superblock.hpp"

namespace rs::raid {

// Reads the 4 KiB at kSbOffsetBytes and decodes/validates it against the
// device size. On failure, .error names the device and the reason;
// .has_magic tells a damaged md superblock from a device without one.
struct MemberSuperblock : ondisk::DecodeResult {
  bool has_magic = false;
};
MemberSuperblock read_superblock(io::MemberDevice& dev);

}  // namespace rs::raid
