#include "discovery/md_member.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "ondisk/le.hpp"
#include "ondisk/superblock.hpp"

namespace rs::discovery {

namespace {

std::string role_text(const ondisk::Superblock& sb) {
  const uint16_t role = sb.role();
  if (role == ondisk::kRoleSpare) return "spare";
  if (role == ondisk::kRoleFaulty) return "faulty";
  if (role == ondisk::kRoleJournal) return "journal";
  return "active " + std::to_string(role) + " of " + std::to_string(sb.raid_disks);
}

}  // namespace

std::optional<MdMembership> read_md_membership(const std::string& path, uint64_t size_bytes, std::string* error) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    if (error) *error = path + ": " + std::strerror(errno);
    return std::nullopt;
  }
  std::array<uint8_t, 4096> block{};
  const ssize_t n = ::pread(fd, block.data(), block.size(), off_t(ondisk::kSbOffsetBytes));
  const int err = errno;
  ::close(fd);
  if (n < 0) {
    if (error) *error = path + ": " + std::strerror(err);
    return std::nullopt;
  }
  if (size_t(n) < 4 || ondisk::le::get32(block.data()) != ondisk::kSbMagic) return std::nullopt;
  MdMembership m;
  const auto decoded = ondisk::decode(block, size_bytes);
  if (!decoded.ok) {
    m.damaged = true;
    m.role = "damaged superblock: " + decoded.error;
    return m;
  }
  m.array_uuid = ondisk::uuid_to_string(decoded.sb.set_uuid);
  m.array_name = decoded.sb.set_name;
  m.level = ondisk::level_name(decoded.sb.level);
  m.role = role_text(decoded.sb);
  m.events = decoded.sb.events;
  return m;
}

}  // namespace rs::discovery
