#include "raid/array.hpp"

#include <algorithm>
#include <cstring>
#include <ctime>

#include "io/uring_backend.hpp"
#include "raid/member_superblock.hpp"

namespace rs::raid {

const char* slot_state_name(SlotState s) {
  switch (s) {
    case SlotState::Missing:
      return "missing";
    case SlotState::InSync:
      return "active sync";
    case SlotState::Recovering:
      return "recovering";
    case SlotState::Faulty:
      return "faulty";
  }
  return "?";
}

namespace {

struct Candidate {
  std::string path;
  std::unique_ptr<io::MemberDevice> dev;
  ondisk::Superblock sb;
};

bool same_geometry(const ondisk::Superblock& a, const ondisk::Superblock& b, std::string* what) {
  if (a.level != b.level)
    *what = "raid level";
  else if (a.layout != b.layout)
    *what = "layout";
  else if (a.chunksize != b.chunksize)
    *what = "chunk size";
  else if (a.raid_disks != b.raid_disks)
    *what = "number of raid devices";
  else if (a.size != b.size)
    *what = "used device size";
  else if (a.data_offset != b.data_offset)
    *what = "data offset";
  else
    return true;
  return false;
}

}  // namespace

std::unique_ptr<Array> Array::assemble(const std::vector<std::string>& paths, std::string* error) {
  if (paths.empty()) {
    *error = "no members given";
    return nullptr;
  }
  std::vector<Candidate> cands;
  for (const auto& p : paths) {
    for (const auto& c : cands)
      if (c.path == p) {
        *error = p + ": given twice";
        return nullptr;
      }
    Candidate c;
    c.path = p;
    c.dev = io::MemberDevice::open(p, io::OpenMode::ReadWrite, error);
    if (!c.dev) return nullptr;
    auto res = read_superblock(*c.dev);
    if (!res.ok) {
      *error = res.error;
      return nullptr;
    }
    c.sb = std::move(res.sb);
    cands.push_back(std::move(c));
  }

  // All members must describe one array; the freshest superblock speaks for it.
  size_t fresh = 0;
  for (size_t i = 0; i < cands.size(); ++i) {
    if (cands[i].sb.set_uuid != cands[0].sb.set_uuid) {
      *error = cands[i].path + " and " + cands[0].path + " belong to different arrays (array UUID " +
               ondisk::uuid_to_string(cands[i].sb.set_uuid) + " vs " +
               ondisk::uuid_to_string(cands[0].sb.set_uuid) + ")";
      return nullptr;
    }
    if (cands[i].sb.events > cands[fresh].sb.events) fresh = i;
  }
  const ondisk::Superblock& fsb = cands[fresh].sb;
  for (const auto& c : cands) {
    std::string what;
    if (!same_geometry(c.sb, fsb, &what)) {
      *error = c.path + " disagrees with " + cands[fresh].path + " on the " + what +
               ": the superblocks are inconsistent";
      return nullptr;
    }
  }
  auto geo = Geometry::make(fsb.level, int(fsb.raid_disks), fsb.layout, fsb.chunksize, fsb.size,
                            fsb.data_offset, error);
  if (!geo) return nullptr;

  auto arr = std::unique_ptr<Array>(new Array());
  arr->geo_ = *geo;
  arr->sb_ = fsb;
  arr->resync_needed_ = fsb.resync_offset != ondisk::kMaxSector;
  for (int i = 0; i < geo->raid_disks; ++i) {
    arr->slots_.push_back(std::make_unique<Slot>());
    arr->slots_.back()->note = "not given";
  }
  for (auto& c : cands) {
    uint16_t role =
        c.sb.dev_number < fsb.dev_roles.size() ? fsb.dev_roles[c.sb.dev_number] : ondisk::kRoleSpare;
    if (c.sb.events < fsb.events) {
      arr->rejected_.push_back({c.path, "out of date (events " + std::to_string(c.sb.events) + " < " +
                                            std::to_string(fsb.events) + "): re-add it with `add`"});
      continue;
    }
    if (role == ondisk::kRoleFaulty) {
      arr->rejected_.push_back({c.path, "marked faulty or removed in the array: re-add it with `add`"});
      continue;
    }
    if (role == ondisk::kRoleSpare || role >= geo->raid_disks) {
      arr->rejected_.push_back({c.path, "a spare (no active role)"});
      continue;
    }
    Slot& s = *arr->slots_[role];
    if (s.dev) {
      *error = c.path + " and " + s.dev->path() + " both claim role " + std::to_string(role);
      return nullptr;
    }
    s.dev = std::move(c.dev);
    s.sb = c.sb;
    s.note.clear();
    s.write_mostly = (c.sb.devflags & ondisk::kDevflagWriteMostly) != 0;
    if (c.sb.feature_map & ondisk::kFeatureRecoveryOffset) {
      s.recovery_offset = c.sb.recovery_offset;
      s.state = int(SlotState::Recovering);
    } else {
      s.state = int(SlotState::InSync);
    }
  }
  for (auto& sl : arr->slots_)
    if (!sl->dev) sl->note = "no member given for this role";
  if (!arr->has_all_data()) {
    std::string msg = "not enough working members to run the array (" +
                      std::to_string(arr->working_members()) + " of " + std::to_string(geo->raid_disks) +
                      " usable, and some data has no in-sync copy)";
    for (auto& r : arr->rejected_) msg += "; " + r.path + ": " + r.reason;
    *error = msg;
    return nullptr;
  }
  return arr;
}

std::unique_ptr<Array> Array::simulated(const Geometry& geometry,
                                        std::vector<std::shared_ptr<io::DeviceModel>> models) {
  auto arr = std::unique_ptr<Array>(new Array());
  arr->geo_ = geometry;
  arr->sb_.level = geometry.level;
  arr->sb_.raid_disks = uint32_t(geometry.raid_disks);
  arr->sb_.layout = geometry.layout;
  arr->sb_.chunksize = geometry.chunk_sectors;
  arr->sb_.size = geometry.dev_sectors;
  for (int i = 0; i < geometry.raid_disks; ++i) {
    auto slot = std::make_unique<Slot>();
    if (size_t(i) < models.size() && models[size_t(i)]) {
      slot->sim_model = models[size_t(i)];
      slot->state = int(SlotState::InSync);
    }
    arr->slots_.push_back(std::move(slot));
  }
  return arr;
}

Array::~Array() {
  std::string ignored;
  close(&ignored);
}

std::vector<io::MemberDevice*> Array::devices() const {
  std::vector<io::MemberDevice*> v;
  for (auto& s : slots_) v.push_back(s->st() == SlotState::Faulty ? nullptr : s->dev.get());
  return v;
}

int Array::working_members() const {
  int n = 0;
  for (auto& s : slots_) n += s->st() == SlotState::InSync;
  return n;
}

std::string Array::state_text() const {
  std::string s = dirty_ || needs_resync() ? "active" : "clean";
  if (degraded()) s += ", degraded";
  for (auto& sl : slots_)
    if (sl->st() == SlotState::Recovering) {
      s += ", recovering";
      break;
    }
  if (needs_resync()) s += ", resync needed (not cleanly stopped: run `repair`)";
  return s;
}

bool Array::set_tunables(const balance::Tunables& t, std::string* error) {
  std::string msg = balance::validate(t);
  if (!msg.empty()) {
    *error = msg;
    return false;
  }
  min_contig_read_ = t.min_contig_read;
  rot_round_down_ = t.rot_round_down;
  nonrot_round_down_ = t.nonrot_round_down;
  return true;
}

balance::Tunables Array::tunables() const {
  balance::Tunables t;
  t.min_contig_read = min_contig_read_.load(std::memory_order_relaxed);
  t.rot_round_down = rot_round_down_.load(std::memory_order_relaxed);
  t.nonrot_round_down = nonrot_round_down_.load(std::memory_order_relaxed);
  return t;
}

std::unique_ptr<io::Backend> Array::make_backend(unsigned depth, std::string* note) {
  std::lock_guard lock(meta_mutex_);
  auto devs = devices();
  // Each array I/O may fan out to every copy of a few chunks.
  auto backend = io::make_real_backend(devs, depth * unsigned(geo_.copies()) * 2, note);
  backend->set_members_version(members_version_.load(std::memory_order_acquire));
  return backend;
}

void Array::update_backend(io::Backend& backend) {
  std::lock_guard lock(meta_mutex_);
  const auto devs = devices();
  for (size_t i = 0; i < devs.size(); ++i) backend.replace_member(int(i), devs[i]);
  backend.set_members_version(members_version_.load(std::memory_order_acquire));
}

// The copy maps repeat within a few rounds of raid_disks chunks (map() also
// returns the far copies), so scanning those rounds finds any sector left
// without an in-sync copy.
bool Array::has_all_data() const {
  const uint64_t step = geo_.level == 10 ? geo_.chunk_sectors : geo_.dev_sectors;
  const uint64_t rounds = uint64_t(geo_.raid_disks) * uint64_t(geo_.copies()) * 4;
  const uint64_t end = std::min<uint64_t>(geo_.array_sectors(), step * rounds);
  for (uint64_t sector = 0; sector < end; sector += step) {
    layout::DevAddress addr[kMaxCopies];
    int n = geo_.map(sector, addr);
    bool ok = false;
    for (int k = 0; k < n; ++k) ok |= slots_[size_t(addr[k].disk)]->st() == SlotState::InSync;
    if (!ok) return false;
  }
  return true;
}

int Array::slot_of(const std::string& path) const {
  for (size_t i = 0; i < slots_.size(); ++i)
    if (slots_[i]->dev && slots_[i]->dev->path() == path) return int(i);
  return -1;
}

// Writes the array's superblock to every present, non-faulty member, as md's
// super_1_sync does: the role table lists present members by their device
// number; everything else is marked faulty, so a member that is not here now
// is recognised as out of date when it comes back.
bool Array::write_superblocks(std::string* error) {
  sb_.events += 1;
  sb_.utime = uint64_t(::time(nullptr));
  std::fill(sb_.dev_roles.begin(), sb_.dev_roles.end(), ondisk::kRoleFaulty);
  for (size_t i = 0; i < slots_.size(); ++i) {
    Slot& s = *slots_[i];
    if (!s.dev || s.st() == SlotState::Faulty) continue;
    if (s.sb.dev_number >= sb_.dev_roles.size()) continue;
    sb_.dev_roles[s.sb.dev_number] = uint16_t(i);
  }
  bool ok = true;
  for (size_t i = 0; i < slots_.size(); ++i) {
    Slot& s = *slots_[i];
    if (!s.dev || s.st() == SlotState::Faulty) continue;
    ondisk::Superblock sb = sb_;
    sb.dev_number = s.sb.dev_number;
    sb.device_uuid = s.sb.device_uuid;
    sb.devflags = s.write_mostly ? ondisk::kDevflagWriteMostly : 0;
    sb.cnt_corrected_read = s.sb.cnt_corrected_read;
    sb.data_size = s.sb.data_size;
    sb.feature_map &= ~ondisk::kFeatureRecoveryOffset;
    sb.recovery_offset = 0;
    if (s.st() == SlotState::Recovering) {
      sb.feature_map |= ondisk::kFeatureRecoveryOffset;
      sb.recovery_offset = s.recovery_offset.load();
    }
    auto block = ondisk::encode(sb);
    io::AlignedBuffer buf(4096);
    std::copy(block.begin(), block.end(), buf.data());
    std::string err;
    if (!s.dev->write_at(ondisk::kSbOffsetBytes, buf.data(), 4096, &err) || !s.dev->flush(&err)) {
      // A member we cannot write metadata to is failed, as md does.
      s.state = int(SlotState::Faulty);
      s.note = "superblock write failed: " + err;
      ok = false;
      continue;
    }
    s.sb = sb;
  }
  if (!ok && error) *error = "could not update the superblock on every member (see member notes)";
  return ok || working_members() > 0;
}

bool Array::mark_dirty() {
  std::lock_guard lock(meta_mutex_);
  if (dirty_) return true;
  // md marks the array active (resync_offset 0) before the first write, so
  // a crash mid-write is detected at the next assemble.
  sb_.resync_offset = 0;
  std::string err;
  bool ok = write_superblocks(&err);
  dirty_ = true;
  return ok;
}

bool Array::close(std::string* error) {
  std::lock_guard lock(meta_mutex_);
  if (!dirty_ && !metadata_changed_) return true;
  if (dirty_) sb_.resync_offset = ondisk::kMaxSector;
  dirty_ = false;
  metadata_changed_ = false;
  return write_superblocks(error);
}

void Array::on_member_error(int slot, bool write, int result, uint64_t dev_sector) {
  Slot& s = *slots_[size_t(slot)];
  s.counters.errors.fetch_add(1, std::memory_order_relaxed);
  std::string reason = std::string(write ? "write" : "read") + " error at device sector " +
                       std::to_string(dev_sector) + ": " +
                       (result < 0 ? std::strerror(-result) : "short transfer");
  std::string err;
  fail_member(slot, reason, &err);
}

bool Array::fail_member(int slot, const std::string& reason, std::string* error) {
  std::lock_guard lock(meta_mutex_);
  Slot& s = *slots_[size_t(slot)];
  if (s.st() == SlotState::Faulty) return true;
  if (!s.present()) {
    *error = "role " + std::to_string(slot) + " has no member to fail";
    return false;
  }
  // Refuse to fail the last copy of any data: md refuses too.
  SlotState before = s.st();
  s.state = int(SlotState::Faulty);
  if (!has_all_data()) {
    s.state = int(before);
    *error = s.name() + " holds the last working copy of some data; refusing to fail it";
    return false;
  }
  s.note = reason;
  metadata_changed_ = true;
  return write_superblocks(error);
}

}  // namespace rs::raid
