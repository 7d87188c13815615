#include "discovery/md_member.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "base/unique_fd.hpp"
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

Result<std::optional<MdMembership>> read_md_membership(const std::string& path, uint64_t size_bytes) {
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK));
  if (!fd) return make_error(Errc::io_error, path + ": " + std::strerror(errno));
  std::array<uint8_t, 4096> block{};
  const ssize_t n = ::pread(fd.get(), block.data(), block.size(), off_t(ondisk::kSbOffsetBytes));
  if (n < 0) return make_error(Errc::io_error, path + ": " + std::strerror(errno));
  if (size_t(n) < 4 || ondisk::le::get32(block.data()) != ondisk::kSbMagic)
    return std::optional<MdMembership>{};
  MdMembership m;
  const auto sb = ondisk::decode(block, size_bytes);
  if (!sb) {
    m.damaged = true;
    m.role = "damaged superblock: " + sb.error().message;
    return std::optional<MdMembership>(std::move(m));
  }
  m.array_uuid = ondisk::uuid_to_string(sb->set_uuid);
  m.array_name = sb->set_name;
  m.level = ondisk::level_name(sb->level);
  m.role = role_text(*sb);
  m.events = sb->events;
  return std::optional<MdMembership>(std::move(m));
}

}  // namespace rs::discovery
