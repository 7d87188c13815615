// Creating an array. Every target is checked before anything is written:
// a failed check leaves every file and device exactly as it was.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <ctime>
#include <filesystem>

#include "base/printable.hpp"
#include "discovery/distinct.hpp"
#include "discovery/signature.hpp"
#include "raid/array.hpp"
#include "raid/array_port.hpp"
#include "raid/member_superblock.hpp"

namespace rs::raid {

namespace {

constexpr uint64_t kDataOffsetSectors = 2048;   // 1 MiB: superblock at 4 KiB, room for a bitmap
constexpr uint64_t kMinDataBytes = 4ull << 20;  // refuse toy members below this
constexpr uint64_t kMinMemberBytes = kDataOffsetSectors * kSectorBytes + kMinDataBytes;
constexpr uint32_t kMaxDev = 128;             // role table entries
constexpr uint64_t kBitmapOffsetSectors = 8;  // mdadm's internal bitmap: right after the superblock

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

// Checks one target before anything is written; true when it must be created.
Result<bool> check_target(const std::string& p, const CreateOptions& o) {
  if (p.empty()) return make_error(Errc::invalid_argument, "an empty path ('') was given as a member");
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) {
    if (errno != ENOENT) return make_error(Errc::not_found, p + ": " + std::strerror(errno));
    if (!o.create_files_bytes)
      return make_error(Errc::not_found,
                        p + ": does not exist (use --create-files=SIZE to create image files)");
    auto parent = std::filesystem::path(p).parent_path();
    if (!parent.empty() && !std::filesystem::is_directory(parent))
      return make_error(Errc::not_found, p + ": directory " + parent.string() + " does not exist");
    return true;
  }
  if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
    return make_error(Errc::invalid_argument, p + ": not a regular file or block device");
  if (std::string why = discovery::block_device_in_use(p); !why.empty())
    return make_error(Errc::busy, p + ": refusing to write: " + why);
  if (!o.force) {
    std::string sig = md_member_of(p);
    if (sig.empty()) sig = discovery::existing_signature(p);
    if (!sig.empty())
      return overridable_refusal(p + ": holds " + sig + "; creating an array would destroy it");
  }
  return false;
}

}  // namespace

Result<std::unique_ptr<Array>> Array::create(const LevelTable& levels, const CreateOptions& o,
                                             const std::vector<std::string>& paths) {
  // ---- the request itself ----
  auto level_row = levels.get(o.level);
  if (!level_row) return make_error(Errc::invalid_argument, "--level: " + level_row.error().message);
  const LevelInfo* level = *level_row;
  if (Status s = level->check_members(o.raid_disks); !s)
    return make_error(Errc::invalid_argument, "--raid-devices: " + s.error().message);
  auto new_shape = level->new_shape(o.raid_disks, o.layout, o.chunk_bytes);
  if (!new_shape) return new_shape.take_error();
  if (size_t(o.raid_disks) != paths.size())
    return make_error(Errc::invalid_argument, "--raid-devices=" + std::to_string(o.raid_disks) + " but " +
                                                  std::to_string(paths.size()) + " member(s) given");
  // The name is printed by examine and detail, one field per line: a
  // newline in it would make lines that are not there.
  if (std::string bad = first_control_byte(o.name); !bad.empty())
    return make_error(Errc::invalid_argument, "--name=" + quoted_printable(o.name) + " has " + bad +
                                                  "; an array name is printable text");
  std::string set_name = o.name.empty() ? "raidscope" : o.name;
  if (set_name.find(':') == std::string::npos) set_name = host_name() + ":" + set_name;
  if (set_name.size() > 32)
    return make_error(
        Errc::invalid_argument,
        "array name " + quoted_printable(set_name) + " is " + std::to_string(set_name.size()) +
            " bytes; md keeps at most 32 (a name without ':' gets the host name and ':' in front)");
  // By identity, not name: a loop device over a member file is that file.
  if (Status s = discovery::check_distinct(paths); !s) return s.error();
  if (o.create_files_bytes && o.create_files_bytes < kMinMemberBytes)
    return make_error(Errc::invalid_argument, "--create-files size " + std::to_string(o.create_files_bytes) +
                                                  " is too small (at least " +
                                                  std::to_string(kMinMemberBytes) + " bytes)");

  // ---- every target, before anything is written ----
  std::vector<bool> to_create(paths.size(), false);
  for (size_t i = 0; i < paths.size(); ++i) {
    auto c = check_target(paths[i], o);
    if (!c) return c.take_error();
    to_create[i] = *c;
  }
  // Open (and lock) the existing targets now, so a target in use by another
  // process is refused before we create or write anything.
  std::vector<std::shared_ptr<io::MemberDevice>> devs(paths.size());
  uint64_t smallest = o.create_files_bytes ? o.create_files_bytes : ~uint64_t{0};
  for (size_t i = 0; i < paths.size(); ++i) {
    if (to_create[i]) continue;
    std::string err;
    auto dev = io::MemberDevice::open(paths[i], io::OpenMode::ReadWrite, &err);
    if (!dev) return make_error(Errc::busy, err);
    if (dev->size_bytes() < kMinMemberBytes)
      return make_error(Errc::refused, paths[i] + ": too small (" + std::to_string(dev->size_bytes()) +
                                           " bytes; a member needs at least " +
                                           std::to_string(kMinMemberBytes) + ")");
    smallest = std::min(smallest, dev->size_bytes());
    devs[i] = std::move(dev);
  }

  // ---- geometry: the smallest member decides, and must hold something ----
  Shape shape = *new_shape;
  shape.data_offset = kDataOffsetSectors;
  const uint64_t member_sectors = smallest / kSectorBytes - kDataOffsetSectors;
  auto used = level->used_dev_sectors(shape, member_sectors);
  if (!used) return used.take_error();
  shape.dev_sectors = *used;

  auto arr = std::unique_ptr<Array>(new Array());
  if (Status s = arr->init(levels, shape); !s) return s.error();
  arr->observer_ = o.observer;
  arr->faults_ = o.faults;
  for (auto& d : devs)
    if (d) arr->observe(*d);

  // ---- the write-intent bitmap: mdadm's rule (internal above 100 GiB), 8
  // sectors after the superblock, bits that must fit before the data ----
  const uint64_t bitmap_at = (ondisk::kSbOffsetSectors + kBitmapOffsetSectors) * kSectorBytes;
  const uint64_t bitmap_room = kDataOffsetSectors * kSectorBytes - bitmap_at;
  const uint64_t sync_size = arr->personality_->bitmap_sectors();
  const bool want_bitmap = o.bitmap == BitmapMode::internal ||
                           (o.bitmap == BitmapMode::automatic && arr->size_bytes() > (100ull << 30));
  uint32_t bitmap_chunk = o.bitmap_chunk_bytes;
  if (want_bitmap) {
    if (bitmap_chunk) {
      if (std::string why = ondisk::validate_new_bitmap(sync_size, bitmap_chunk, bitmap_room); !why.empty())
        return make_error(Errc::invalid_argument, "--bitmap-chunk: " + why);
    } else {
      bitmap_chunk = 64u << 20;
      while (!ondisk::validate_new_bitmap(sync_size, bitmap_chunk, bitmap_room).empty() &&
             bitmap_chunk < (1u << 31))
        bitmap_chunk <<= 1;
    }
  } else if (o.bitmap_chunk_bytes && o.bitmap == BitmapMode::none) {
    return make_error(Errc::invalid_argument, "--bitmap-chunk needs a bitmap (--bitmap=internal)");
  }

  // ---- from here on we write ----
  std::vector<std::string> created;
  auto undo_created = [&] {
    arr.reset();
    devs.clear();
    for (auto& p : created) ::unlink(p.c_str());
  };
  for (size_t i = 0; i < paths.size(); ++i) {
    if (!to_create[i]) continue;
    const int fd = ::open(paths[i].c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0 || ::ftruncate(fd, off_t(o.create_files_bytes)) != 0) {
      Error e = make_error(Errc::io_error, paths[i] + ": cannot create: " + std::strerror(errno));
      if (fd >= 0) ::close(fd), ::unlink(paths[i].c_str());
      undo_created();
      return e;
    }
    ::close(fd);
    created.push_back(paths[i]);
    std::string err;
    auto dev = io::MemberDevice::open(paths[i], io::OpenMode::ReadWrite, &err);
    if (!dev) {
      undo_created();
      return make_error(Errc::busy, err);
    }
    arr->observe(*dev);
    devs[i] = std::move(dev);
  }

  ondisk::Superblock& sb = arr->sb_;
  sb.set_uuid = ondisk::random_uuid();
  sb.set_name = set_name;
  sb.ctime = sb.utime = uint64_t(::time(nullptr));
  sb.level = o.level;
  sb.layout = shape.layout;
  sb.size = shape.dev_sectors;
  sb.chunksize = shape.chunk_sectors;
  sb.raid_disks = uint32_t(o.raid_disks);
  sb.data_offset = kDataOffsetSectors;
  sb.super_offset = ondisk::kSbOffsetSectors;
  sb.events = 0;
  sb.dev_roles.assign(kMaxDev, ondisk::kRoleSpare);
  // Freshly made image files read back as zeros on every member, so the
  // copies already agree; anything else gets md's initial resync.
  const bool all_new = created.size() == paths.size();
  arr->recovery_cp_ = all_new ? ondisk::kMaxSector : 0;
  if (want_bitmap) {
    sb.feature_map |= ondisk::kFeatureBitmapOffset;
    sb.bitmap_offset = int32_t(kBitmapOffsetSectors);
    BitmapLayout layout{bitmap_at, bitmap_room, sync_size, bitmap_chunk};
    ondisk::BitmapSuper bsb;
    bsb.uuid = sb.set_uuid;
    bsb.sync_size = sync_size;
    bsb.chunksize = bitmap_chunk;
    // md's initial resync covers everything: every bit starts set, so a
    // crash during it resumes the whole of it.
    const uint64_t chunks = ondisk::bitmap_chunks(sync_size, bitmap_chunk);
    io::AlignedBuffer image(ondisk::bitmap_pages(chunks) * ondisk::kBitmapPageBytes);
    std::memset(image.data(), 0, image.size());
    const auto head = ondisk::encode_bitmap(bsb);
    std::memcpy(image.data(), head.data(), head.size());
    if (!all_new)
      for (uint64_t c = 0; c < chunks; ++c)
        image.data()[ondisk::kBitmapSuperBytes + c / 8] |= uint8_t(1u << (c % 8));
    for (size_t i = 0; i < devs.size(); ++i) {
      std::string err;
      if (!devs[i]->write_at(bitmap_at, image.data(), image.size(), &err) || !devs[i]->flush(&err)) {
        undo_created();
        return make_error(Errc::io_error, err);
      }
    }
    arr->bitmap_ = std::make_unique<WriteIntentBitmap>(
        layout, bsb, std::vector<uint8_t>(image.data(), image.data() + image.size()));
    arr->register_bitmap_tunables();
    if (!all_new) arr->resync_bits_ = arr->bitmap_->snapshot_bits();
  }
  MemberTable table;
  table.members.resize(paths.size());
  for (int i = 0; i < o.raid_disks; ++i) {
    Member& m = table.members[size_t(i)];
    m.dev = devs[size_t(i)];
    m.name = paths[size_t(i)];
    m.state = MemberState::in_sync;
    ondisk::Superblock& own = arr->member_sb_[size_t(i)];
    own.dev_number = uint32_t(i);
    own.device_uuid = ondisk::random_uuid();
    own.data_size = m.dev->size_bytes() / kSectorBytes - kDataOffsetSectors;
  }
  arr->publish(std::move(table));
  arr->start_metadata();
  if (Status s = arr->sync_now(); !s || arr->working_members() != o.raid_disks) {
    Error e = s ? make_error(Errc::io_error, "could not write every member's superblock") : s.error();
    undo_created();
    return e;
  }
  if (arr->bitmap_) arr->start_bitmap_thread();
  if (!all_new) arr->start_resync();
  return arr;
}

}  // namespace rs::raid
