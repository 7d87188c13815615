// Creating an array. Every target is checked before anything is written:
// a failed check leaves every file and device exactly as it was.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <ctime>
#include <filesystem>

#include "base/printable.hpp"
#include "base/unique_fd.hpp"
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
  auto dev = io::MemberDevice::open(path, io::OpenMode::ReadOnly);
  if (!dev) return "";
  auto sb = read_superblock(**dev);
  if (!sb) return has_md_magic(sb) ? "a damaged md superblock" : "";
  return "an md superblock of array " + ondisk::uuid_to_string(sb->set_uuid) + " (" +
         ondisk::level_name(sb->level) + ")";
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

// What create() was asked for, checked: the level's row, the new shape (its
// dev_sectors still unknown) and the name as md stores it.
struct Request {
  const LevelInfo* level = nullptr;
  Shape shape;
  std::string set_name;
};

Result<Request> check_request(const LevelTable& levels, const CreateOptions& o,
                              const std::vector<std::string>& paths) {
  auto level_row = levels.get(o.level);
  if (!level_row) return make_error(Errc::invalid_argument, "--level: " + level_row.error().message);
  Request r;
  r.level = *level_row;
  if (Status s = r.level->check_members(o.raid_disks); !s)
    return make_error(Errc::invalid_argument, "--raid-devices: " + s.error().message);
  auto new_shape = r.level->new_shape(o.raid_disks, o.layout, o.chunk_bytes);
  if (!new_shape) return new_shape.take_error();
  r.shape = *new_shape;
  if (size_t(o.raid_disks) != paths.size())
    return make_error(Errc::invalid_argument, "--raid-devices=" + std::to_string(o.raid_disks) + " but " +
                                                  std::to_string(paths.size()) + " member(s) given");
  // The name is printed by examine and detail, one field per line: a
  // newline in it would make lines that are not there.
  if (std::string bad = first_control_byte(o.name); !bad.empty())
    return make_error(Errc::invalid_argument, "--name=" + quoted_printable(o.name) + " has " + bad +
                                                  "; an array name is printable text");
  r.set_name = o.name.empty() ? "raidscope" : o.name;
  if (r.set_name.find(':') == std::string::npos) r.set_name = host_name() + ":" + r.set_name;
  if (r.set_name.size() > 32)
    return make_error(
        Errc::invalid_argument,
        "array name " + quoted_printable(r.set_name) + " is " + std::to_string(r.set_name.size()) +
            " bytes; md keeps at most 32 (a name without ':' gets the host name and ':' in front)");
  // By identity, not name: a loop device over a member file is that file.
  if (Status s = discovery::check_distinct(paths); !s) return s.error();
  if (o.create_files_bytes && o.create_files_bytes < kMinMemberBytes)
    return make_error(Errc::invalid_argument, "--create-files size " + std::to_string(o.create_files_bytes) +
                                                  " is too small (at least " +
                                                  std::to_string(kMinMemberBytes) + " bytes)");
  return r;
}

// Every target checked, and the existing ones opened (and locked) now, so a
// target in use by another process is refused before anything is created
// or written. devs[i] is null for a target to create.
struct Targets {
  std::vector<bool> to_create;
  std::vector<std::shared_ptr<io::MemberDevice>> devs;
  uint64_t smallest = ~uint64_t{0};  // bytes: the smallest member, new files included
};

Result<Targets> open_targets(const std::vector<std::string>& paths, const CreateOptions& o) {
  Targets t;
  t.to_create.assign(paths.size(), false);
  t.devs.resize(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    auto c = check_target(paths[i], o);
    if (!c) return c.take_error();
    t.to_create[i] = *c;
  }
  if (o.create_files_bytes) t.smallest = o.create_files_bytes;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (t.to_create[i]) continue;
    auto dev = io::MemberDevice::open(paths[i], io::OpenMode::ReadWrite);
    if (!dev) return dev.take_error();
    if ((*dev)->size_bytes() < kMinMemberBytes)
      return make_error(Errc::refused, paths[i] + ": too small (" + std::to_string((*dev)->size_bytes()) +
                                           " bytes; a member needs at least " +
                                           std::to_string(kMinMemberBytes) + ")");
    t.smallest = std::min(t.smallest, (*dev)->size_bytes());
    t.devs[i] = std::move(*dev);
  }
  return t;
}

// The write-intent bitmap: mdadm's rule (internal above 100 GiB), 8 sectors
// after the superblock, bits that must fit before the data. chunk 0: none.
struct BitmapPlan {
  uint64_t at = (ondisk::kSbOffsetSectors + kBitmapOffsetSectors) * kSectorBytes;
  uint64_t room = kDataOffsetSectors * kSectorBytes - at;
  uint64_t sync_size = 0;
  uint32_t chunk = 0;
};

Result<BitmapPlan> plan_bitmap(const CreateOptions& o, uint64_t sync_size, uint64_t array_bytes) {
  BitmapPlan b;
  b.sync_size = sync_size;
  const bool want =
      o.bitmap == BitmapMode::internal || (o.bitmap == BitmapMode::automatic && array_bytes > (100ull << 30));
  if (!want) {
    if (o.bitmap_chunk_bytes && o.bitmap == BitmapMode::none)
      return make_error(Errc::invalid_argument, "--bitmap-chunk needs a bitmap (--bitmap=internal)");
    return b;
  }
  if (o.bitmap_chunk_bytes) {
    if (Status st = ondisk::validate_new_bitmap(sync_size, o.bitmap_chunk_bytes, b.room); !st)
      return make_error(Errc::invalid_argument, "--bitmap-chunk: " + st.error().message);
    b.chunk = o.bitmap_chunk_bytes;
    return b;
  }
  b.chunk = 64u << 20;
  while (!ondisk::validate_new_bitmap(sync_size, b.chunk, b.room).ok() && b.chunk < (1u << 31)) b.chunk <<= 1;
  return b;
}

// Creates the image files create() was asked to make and opens them into
// t.devs; their paths go to `created` (for the caller to remove on failure).
Status create_files(const std::vector<std::string>& paths, const CreateOptions& o, Targets& t,
                    std::vector<std::string>& created) {
  for (size_t i = 0; i < paths.size(); ++i) {
    if (!t.to_create[i]) continue;
    UniqueFd fd(::open(paths[i].c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
    if (!fd || ::ftruncate(fd.get(), off_t(o.create_files_bytes)) != 0) {
      Error e = make_error(Errc::io_error, paths[i] + ": cannot create: " + std::strerror(errno));
      if (fd) ::unlink(paths[i].c_str());
      return e;
    }
    fd.reset();
    created.push_back(paths[i]);
    auto dev = io::MemberDevice::open(paths[i], io::OpenMode::ReadWrite);
    if (!dev) return dev.take_error();
    t.devs[i] = std::move(*dev);
  }
  return {};
}

// Writes a new bitmap (header and bits) to every member and returns its
// image. md's initial resync covers everything: unless every member is a
// new (zeroed) file, every bit starts set, so a crash during it resumes the
// whole of it.
Result<std::vector<uint8_t>> write_new_bitmap(const BitmapPlan& plan, const ondisk::BitmapSuper& bsb,
                                              bool all_new,
                                              const std::vector<std::shared_ptr<io::MemberDevice>>& devs) {
  const uint64_t chunks = ondisk::bitmap_chunks(plan.sync_size, plan.chunk);
  auto buffer = io::AlignedBuffer::allocate(ondisk::bitmap_pages(chunks) * ondisk::kBitmapPageBytes);
  if (!buffer) return buffer.take_error();
  io::AlignedBuffer& image = *buffer;
  std::memset(image.data(), 0, image.size());
  const auto head = ondisk::encode_bitmap(bsb);
  std::memcpy(image.data(), head.data(), head.size());
  if (!all_new)
    for (uint64_t c = 0; c < chunks; ++c)
      image.data()[ondisk::kBitmapSuperBytes + c / 8] |= uint8_t(1u << (c % 8));
  for (const auto& dev : devs) {
    Status st = dev->write_at(plan.at, image.data(), image.size());
    if (st) st = dev->flush();
    if (!st) return st.error();
  }
  return std::vector<uint8_t>(image.data(), image.data() + image.size());
}

}  // namespace

Result<std::unique_ptr<Array>> Array::create(const LevelTable& levels, const CreateOptions& o,
                                             const std::vector<std::string>& paths) {
  auto request = check_request(levels, o, paths);
  if (!request) return request.take_error();
  auto targets = open_targets(paths, o);
  if (!targets) return targets.take_error();
  Targets& t = *targets;

  // ---- geometry: the smallest member decides, and must hold something ----
  Shape shape = request->shape;
  shape.data_offset = kDataOffsetSectors;
  const uint64_t member_sectors = t.smallest / kSectorBytes - kDataOffsetSectors;
  auto used = request->level->used_dev_sectors(shape, member_sectors);
  if (!used) return used.take_error();
  shape.dev_sectors = *used;

  auto arr = std::unique_ptr<Array>(new Array());
  if (Status s = arr->init(levels, shape); !s) return s.error();
  arr->observer_ = o.observer;
  arr->faults_ = o.faults;
  auto bitmap = plan_bitmap(o, arr->personality_->bitmap_sectors(), arr->size_bytes());
  if (!bitmap) return bitmap.take_error();

  // ---- from here on we write; a failure removes the files made ----
  std::vector<std::string> created;
  auto undo_created = [&](Error e) -> Error {
    arr.reset();
    t.devs.clear();
    for (auto& p : created) ::unlink(p.c_str());
    return e;
  };
  if (Status s = create_files(paths, o, t, created); !s) return undo_created(s.error());
  for (auto& d : t.devs) arr->observe(*d);

  ondisk::Superblock& sb = arr->sb_;
  sb.set_uuid = ondisk::random_uuid();
  sb.set_name = request->set_name;
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
  if (bitmap->chunk) {
    sb.feature_map |= ondisk::kFeatureBitmapOffset;
    sb.bitmap_offset = int32_t(kBitmapOffsetSectors);
    ondisk::BitmapSuper bsb;
    bsb.uuid = sb.set_uuid;
    bsb.sync_size = bitmap->sync_size;
    bsb.chunksize = bitmap->chunk;
    auto image = write_new_bitmap(*bitmap, bsb, all_new, t.devs);
    if (!image) return undo_created(image.take_error());
    arr->bitmap_ = std::make_unique<WriteIntentBitmap>(
        BitmapLayout{bitmap->at, bitmap->room, bitmap->sync_size, bitmap->chunk}, bsb, std::move(*image));
    arr->register_bitmap_tunables();
    if (!all_new) arr->resync_bits_ = arr->bitmap_->snapshot_bits();
  }
  MemberTable table;
  table.members.resize(paths.size());
  for (int i = 0; i < o.raid_disks; ++i) {
    Member& m = table.members[size_t(i)];
    m.dev = t.devs[size_t(i)];
    m.name = paths[size_t(i)];
    m.state = MemberState::in_sync;
    ondisk::Superblock& own = arr->member_sb_[size_t(i)];
    own.dev_number = uint32_t(i);
    own.device_uuid = ondisk::random_uuid();
    own.data_size = m.dev->size_bytes() / kSectorBytes - kDataOffsetSectors;
  }
  arr->publish(std::move(table));
  arr->start_metadata();
  if (Status s = arr->sync_now(); !s || arr->working_members() != o.raid_disks)
    return undo_created(s ? make_error(Errc::io_error, "could not write every member's superblock")
                          : s.error());
  if (arr->bitmap_)
    if (Status s = arr->start_bitmap_thread(); !s) return s.error();
  if (!all_new) arr->start_resync();
  return arr;
}

}  // namespace rs::raid
