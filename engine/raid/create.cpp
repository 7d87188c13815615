// Creating an array. Every target is checked before anything is written:
// a failed check leaves every file and device exactly as it was.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <ctime>
#include <filesystem>

#include "discovery/signature.hpp"
#include "layout/raid10.hpp"
#include "raid/array.hpp"
#include "raid/member_superblock.hpp"

namespace rs::raid {

namespace {

constexpr uint64_t kDataOffsetSectors = 2048;   // 1 MiB: superblock at 4 KiB, room for a bitmap
constexpr uint64_t kMinDataBytes = 4ull << 20;  // refuse toy members below this
constexpr uint32_t kMaxDev = 128;               // role table entries (mdadm uses a few hundred)

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

// A target that is already an md member: say which array.
std::string md_member_of(const std::string& path) {
  std::string err;
  auto dev = io::MemberDevice::open(path, io::OpenMode::ReadOnly, &err);
  if (!dev) return "";
  auto res = read_superblock(*dev);
  if (!res.has_magic) return "";
  if (!res.ok) return "a damaged md superblock";
  return "an md superblock of array " + ondisk::uuid_to_string(res.sb.set_uuid) + " (" +
         ondisk::level_name(res.sb.level) + ")";
}

}  // namespace

std::unique_ptr<Array> Array::create(const CreateOptions& o, const std::vector<std::string>& paths,
                                     ProgressFn progress, std::string* error) {
  // ---- the request itself ----
  if (o.level != 1 && o.level != 10) {
    *error = "--level=" + std::to_string(o.level) + " is not supported (1 or 10)";
    return nullptr;
  }
  if (o.raid_disks < 2) {
    *error = "--raid-devices must be at least 2";
    return nullptr;
  }
  if (size_t(o.raid_disks) != paths.size()) {
    *error = "--raid-devices=" + std::to_string(o.raid_disks) + " but " + std::to_string(paths.size()) +
             " member(s) given";
    return nullptr;
  }
  if (o.level == 10 && (o.chunk_bytes < 4096 || (o.chunk_bytes & (o.chunk_bytes - 1)))) {
    *error = "--chunk must be a power of two of at least 4K, got " + std::to_string(o.chunk_bytes) + " bytes";
    return nullptr;
  }
  std::string set_name = o.name.empty() ? "raidscope" : o.name;
  if (set_name.find(':') == std::string::npos) set_name = host_name() + ":" + set_name;
  if (set_name.size() > 32) {
    *error = "array name '" + set_name + "' is longer than md's 32 bytes";
    return nullptr;
  }
  for (size_t i = 0; i < paths.size(); ++i)
    for (size_t j = i + 1; j < paths.size(); ++j)
      if (paths[i] == paths[j]) {
        *error = paths[i] + ": given twice";
        return nullptr;
      }

  // ---- every target, before anything is written ----
  std::vector<bool> to_create(paths.size(), false);
  for (size_t i = 0; i < paths.size(); ++i) {
    const std::string& p = paths[i];
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) {
      if (errno != ENOENT) {
        *error = p + ": " + std::strerror(errno);
        return nullptr;
      }
      if (!o.create_files_bytes) {
        *error = p + ": does not exist (use --create-files=SIZE to create image files)";
        return nullptr;
      }
      auto parent = std::filesystem::path(p).parent_path();
      if (!parent.empty() && !std::filesystem::is_directory(parent)) {
        *error = p + ": directory " + parent.string() + " does not exist";
        return nullptr;
      }
      to_create[i] = true;
      continue;
    }
    if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode)) {
      *error = p + ": not a regular file or block device";
      return nullptr;
    }
    if (std::string why = discovery::block_device_in_use(p); !why.empty()) {
      *error = p + ": refusing to write: " + why;
      return nullptr;
    }
    if (!o.force) {
      std::string sig = md_member_of(p);
      if (sig.empty()) sig = discovery::existing_signature(p);
      if (!sig.empty()) {
        *error = p + ": holds " + sig + "; creating an array would destroy it (use --force to overwrite)";
        return nullptr;
      }
    }
  }
  // Open (and lock) the existing targets now, so a target in use by another
  // process is refused before we create or write anything.
  auto arr = std::unique_ptr<Array>(new Array());
  for (int i = 0; i < o.raid_disks; ++i) arr->slots_.push_back(std::make_unique<Slot>());
  for (size_t i = 0; i < paths.size(); ++i) {
    if (to_create[i]) continue;
    auto dev = io::MemberDevice::open(paths[i], io::OpenMode::ReadWrite, error);
    if (!dev) return nullptr;
    if (dev->size_bytes() < kDataOffsetSectors * kSectorBytes + kMinDataBytes) {
      *error = paths[i] + ": too small (" + std::to_string(dev->size_bytes()) +
               " bytes; a member needs at least " +
               std::to_string(kDataOffsetSectors * kSectorBytes + kMinDataBytes) + ")";
      return nullptr;
    }
    arr->slots_[i]->dev = std::move(dev);
  }
  if (o.create_files_bytes && o.create_files_bytes < kDataOffsetSectors * kSectorBytes + kMinDataBytes) {
    *error = "--create-files size " + std::to_string(o.create_files_bytes) + " is too small (at least " +
             std::to_string(kDataOffsetSectors * kSectorBytes + kMinDataBytes) + " bytes)";
    return nullptr;
  }
  std::vector<std::string> created;
  auto undo_created = [&] {
    arr.reset();
    for (auto& p : created) ::unlink(p.c_str());
  };
  for (size_t i = 0; i < paths.size(); ++i) {
    if (!to_create[i]) continue;
    int fd = ::open(paths[i].c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 || ::ftruncate(fd, off_t(o.create_files_bytes)) != 0) {
      *error = paths[i] + ": cannot create: " + std::strerror(errno);
      if (fd >= 0) ::close(fd), ::unlink(paths[i].c_str());
      undo_created();
      return nullptr;
    }
    ::close(fd);
    created.push_back(paths[i]);
    auto dev = io::MemberDevice::open(paths[i], io::OpenMode::ReadWrite, error);
    if (!dev) {
      undo_created();
      return nullptr;
    }
    arr->slots_[i]->dev = std::move(dev);
  }

  // ---- geometry: the smallest member decides ----
  uint64_t data_sectors = ~uint64_t{0};
  for (auto& s : arr->slots_)
    data_sectors = std::min(data_sectors, s->dev->size_bytes() / kSectorBytes - kDataOffsetSectors);
  const uint32_t chunk_sectors = o.level == 10 ? o.chunk_bytes / uint32_t(kSectorBytes) : 0;
  uint64_t used = data_sectors / 8 * 8;  // whole 4 KiB blocks
  if (o.level == 10) {
    auto r10 = layout::raid10_from_layout(o.layout, o.raid_disks, chunk_sectors, data_sectors, error);
    if (!r10) {
      undo_created();
      return nullptr;
    }
    used = layout::raid10_used_dev_sectors(*r10);
  }
  auto geo = Geometry::make(o.level, o.raid_disks, o.level == 10 ? o.layout : 0, chunk_sectors, used,
                            kDataOffsetSectors, error);
  if (!geo) {
    undo_created();
    return nullptr;
  }
  arr->geo_ = *geo;

  ondisk::Superblock& sb = arr->sb_;
  sb.set_uuid = ondisk::random_uuid();
  sb.set_name = set_name;
  sb.ctime = sb.utime = uint64_t(::time(nullptr));
  sb.level = o.level;
  sb.layout = geo->layout;
  sb.size = used;
  sb.chunksize = chunk_sectors;
  sb.raid_disks = uint32_t(o.raid_disks);
  sb.data_offset = kDataOffsetSectors;
  sb.super_offset = ondisk::kSbOffsetSectors;
  sb.events = 0;
  sb.dev_roles.assign(kMaxDev, ondisk::kRoleSpare);
  // Freshly made image files read back as zeros on every member, so the
  // mirrors already agree; anything else gets md's initial resync.
  const bool all_new = created.size() == paths.size();
  sb.resync_offset = all_new ? ondisk::kMaxSector : 0;
  arr->resync_needed_ = !all_new;
  for (int i = 0; i < o.raid_disks; ++i) {
    Slot& s = *arr->slots_[size_t(i)];
    s.sb.dev_number = uint32_t(i);
    s.sb.device_uuid = ondisk::random_uuid();
    s.sb.data_size = s.dev->size_bytes() / kSectorBytes - kDataOffsetSectors;
    s.state = int(SlotState::InSync);
  }
  {
    std::lock_guard lock(arr->meta_mutex_);
    if (!arr->write_superblocks(error) || arr->working_members() != o.raid_disks) {
      undo_created();
      return nullptr;
    }
  }
  if (!all_new) {
    // md's initial resync: make every copy equal to the first.
    if (!arr->check(true, progress, error)) return nullptr;
  }
  return arr;
}

}  // namespace rs::raid
