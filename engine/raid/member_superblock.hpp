// Reading one member's md superblock from its device: the only place that
// knows where it lives and how big the read is.
#pragma once
#include "base/result.hpp"
#include "io/member_device.hpp"
#include "ondisk/superblock.hpp"

namespace rs::raid {

// Reads the 4 KiB at kSbOffsetBytes and decodes/validates it against the
// device size. Errors name the device and the reason: Errc::not_found when
// there is no md superblock (no md magic there, or a device too small to
// hold one), corrupt for a damaged one (md's magic, but it does not
// validate), io_error when the read failed.
Result<ondisk::Superblock> read_superblock(io::MemberDevice& dev);

// Whether read_superblock found md's magic: a superblock, valid or damaged.
inline bool has_md_magic(const Result<ondisk::Superblock>& r) {
  return r.ok() || r.error().code == Errc::corrupt;
}

}  // namespace rs::raid
