#include "raid/member_superblock.hpp"

#include <cstring>

namespace rs::raid {

MemberSuperblock read_superblock(io::MemberDevice& dev) {
  MemberSuperblock r;
  if (dev.size_bytes() < ondisk::kSbOffsetBytes + 4096) {
    r.error =
        dev.path() + ": too small to hold an md superblock (" + std::to_string(dev.size_bytes()) + " bytes)";
    return r;
  }
  io::AlignedBuffer block(4096);
  if (!dev.read_at(ondisk::kSbOffsetBytes, block.data(), 4096, &r.error)) return r;
  uint32_t magic;
  std::memcpy(&magic, block.data(), sizeof magic);
  r.has_magic = magic == ondisk::kSbMagic;
  static_cast<ondisk::DecodeResult&>(r) = ondisk::decode({block.data(), 4096}, dev.size_bytes());
  if (!r.ok) r.error = dev.path() + ": " + r.error;
  return r;
}

}  // namespace rs::raid
