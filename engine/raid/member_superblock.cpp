#include "raid/member_superblock.hpp"

#include <cstring>

namespace rs::raid {

Result<ondisk::Superblock> read_superblock(io::MemberDevice& dev) {
  if (dev.size_bytes() < ondisk::kSbOffsetBytes + 4096)
    return make_error(Errc::not_found, dev.path() + ": too small to hold an md superblock (" +
                                           std::to_string(dev.size_bytes()) + " bytes)");
  auto block = io::AlignedBuffer::allocate(4096);
  if (!block) return block.take_error();
  if (Status s = dev.read_at(ondisk::kSbOffsetBytes, block->data(), 4096); !s) return s.error();
  uint32_t magic;
  std::memcpy(&magic, block->data(), sizeof magic);
  auto sb = ondisk::decode({block->data(), 4096}, dev.size_bytes());
  if (sb) return sb;
  // Only md's magic makes it a (damaged) superblock; anything else is none.
  return make_error(magic == ondisk::kSbMagic ? Errc::corrupt : Errc::not_found,
                    dev.path() + ": " + sb.error().message);
}

}  // namespace rs::raid
