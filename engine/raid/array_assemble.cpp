// Assembling an array from its members, as md and mdadm do: every member
// must describe the same array; the freshest superblock speaks for it; a
// member one event behind is still current (a crash between superblock
// writes leaves exactly that); members that were active at the last update
// must all be there unless the caller insists (mdadm's --run).
#include <algorithm>

#include "discovery/distinct.hpp"
#include "raid/array.hpp"
#include "raid/array_port.hpp"
#include "raid/member_superblock.hpp"

namespace rs::raid {

// A device given to assemble, with the superblock it holds.
struct MemberCandidate {
  std::string path;
  std::shared_ptr<io::MemberDevice> dev;
  ondisk::Superblock sb;
};

namespace {

const char* differing_field(const ondisk::Superblock& a, const ondisk::Superblock& b) {
  if (a.level != b.level) return "raid level";
  if (a.layout != b.layout) return "layout";
  if (a.chunksize != b.chunksize) return "chunk size";
  if (a.raid_disks != b.raid_disks) return "number of raid devices";
  if (a.size != b.size) return "used device size";
  if (a.data_offset != b.data_offset) return "data offset";
  return nullptr;
}

Result<std::vector<MemberCandidate>> open_candidates(const std::vector<std::string>& paths, bool read_only) {
  std::vector<MemberCandidate> cands;
  for (const auto& p : paths) {
    for (const auto& c : cands)
      if (c.path == p) return make_error(Errc::invalid_argument, p + ": given twice");
    auto dev = io::MemberDevice::open(p, read_only ? io::OpenMode::ReadOnly : io::OpenMode::ReadWrite);
    if (!dev) return dev.take_error();
    auto sb = read_superblock(**dev);
    if (!sb) return sb.take_error();
    cands.push_back({p, std::shared_ptr<io::MemberDevice>(std::move(*dev)), std::move(*sb)});
  }
  return cands;
}

std::atomic<uint64_t> assemble_calls{0};

}  // namespace

uint64_t Array::assemble_count() {
  return assemble_calls.load(std::memory_order_relaxed);
}

Result<std::unique_ptr<Array>> Array::assemble(const LevelTable& levels,
                                               const std::vector<std::string>& paths,
                                               const AssembleOptions& opt) {
  assemble_calls.fetch_add(1, std::memory_order_relaxed);
  if (paths.empty()) return make_error(Errc::invalid_argument, "no members given");
  {
    std::vector<std::string> all = paths;
    all.insert(all.end(), opt.resume_members.begin(), opt.resume_members.end());
    // One file reached by two names (a loop device over it, a hard link)
    // would be driven as two members.
    if (Status s = discovery::check_distinct(all); !s) return s.error();
  }
  const bool read_only = opt.read_only || opt.describe_only;
  auto opened = open_candidates(paths, read_only);
  if (!opened) return opened.take_error();
  std::vector<MemberCandidate>& cands = *opened;
  // `add`: a target takes part when it is this array's member with an
  // active role (recovering: the rebuild resumes; in sync: add refuses it);
  // a stale or failed one is add's to start afresh, without a warning here.
  for (const std::string& resume : opt.resume_members) {
    if (std::any_of(cands.begin(), cands.end(), [&](const MemberCandidate& c) { return c.path == resume; }))
      continue;
    auto target = open_candidates({resume}, read_only);
    if (target && (*target)[0].sb.set_uuid == cands[0].sb.set_uuid) cands.push_back(std::move((*target)[0]));
  }

  size_t fresh = 0;
  for (size_t i = 0; i < cands.size(); ++i) {
    if (cands[i].sb.set_uuid != cands[0].sb.set_uuid)
      return make_error(Errc::refused, cands[i].path + " and " + cands[0].path +
                                           " belong to different arrays (array UUID " +
                                           ondisk::uuid_to_string(cands[i].sb.set_uuid) + " vs " +
                                           ondisk::uuid_to_string(cands[0].sb.set_uuid) + ")");
    if (cands[i].sb.events > cands[fresh].sb.events) fresh = i;
  }
  const ondisk::Superblock fsb = cands[fresh].sb;
  for (const auto& c : cands)
    if (const char* what = differing_field(c.sb, fsb))
      return make_error(Errc::corrupt, c.path + " disagrees with " + cands[fresh].path + " on the " + what +
                                           ": the superblocks are inconsistent");
  if (!read_only && fsb.events == ~uint64_t{0})
    return make_error(Errc::refused, cands[fresh].path + ": its event counter is at the maximum (" +
                                         std::to_string(fsb.events) +
                                         "); the next superblock update would wrap it to 0 and lose track of "
                                         "which member is current. Refusing to write to this array");

  Shape shape{fsb.level, int(fsb.raid_disks), fsb.layout, fsb.chunksize, fsb.size, fsb.data_offset};
  auto arr = std::unique_ptr<Array>(new Array());
  arr->read_only_ = read_only;
  arr->observer_ = opt.observer;
  arr->faults_ = opt.faults;
  for (auto& c : cands) arr->observe(*c.dev);
  if (Status s = arr->init(levels, shape); !s) return s.error();
  arr->sb_ = fsb;
  if (Status s = arr->place_members(cands, opt); !s) return s.error();
  if (Status s = arr->take_sync_state(cands, fresh, opt); !s) return s.error();
  arr->start_metadata();
  if (arr->bitmap_ && !read_only)
    if (Status s = arr->start_bitmap_thread(); !s) return s.error();
  if (opt.resync && !read_only) arr->start_resync();
  return arr;
}

// Each member into the role the freshest superblock gives it; refuses
// missing members unless the caller insists, and an array that cannot run.
Status Array::place_members(const std::vector<MemberCandidate>& cands, const AssembleOptions& opt) {
  const ondisk::Superblock& fsb = sb_;
  MemberTable placed;
  placed.members.resize(size_t(shape_.raid_disks));
  for (auto& c : cands) {
    const bool resume =
        std::find(opt.resume_members.begin(), opt.resume_members.end(), c.path) != opt.resume_members.end();
    const uint16_t role =
        c.sb.dev_number < fsb.dev_roles.size() ? fsb.dev_roles[c.sb.dev_number] : ondisk::kRoleSpare;
    // md's rule (super_1_validate, mdadm's event margin): one event behind
    // is still current; further behind missed writes.
    const bool stale = c.sb.events + 1 < fsb.events;
    if (resume && (stale || role >= shape_.raid_disks)) continue;  // add starts it afresh
    if (stale) {
      rejected_.push_back({c.path, "out of date (events " + std::to_string(c.sb.events) +
                                       ", the array is at " + std::to_string(fsb.events) +
                                       "): re-add it with `add`"});
      continue;
    }
    if (role == ondisk::kRoleFaulty) {
      rejected_.push_back({c.path, "marked faulty or removed in the array: re-add it with `add`"});
      continue;
    }
    if (role == ondisk::kRoleSpare || role >= shape_.raid_disks) {
      rejected_.push_back({c.path, "a spare: its device number " + std::to_string(c.sb.dev_number) +
                                       " has no active role in the array"});
      continue;
    }
    Member& m = placed.members[role];
    if (m.dev)
      return make_error(Errc::corrupt,
                        c.path + " and " + m.name + " both claim role " + std::to_string(role));
    const bool recovering = (c.sb.feature_map & ondisk::kFeatureRecoveryOffset) != 0;
    m.dev = c.dev;
    m.name = c.path;
    m.state = recovering ? MemberState::recovering : MemberState::in_sync;
    member_sb_[role] = c.sb;
    // md's super_1_validate: the member's corrected_errors from its superblock.
    runtime(role).counters.corrected_errors.store(c.sb.cnt_corrected_read);
    runtime(role).write_mostly = (c.sb.devflags & ondisk::kDevflagWriteMostly) != 0;
    if (recovering) runtime(role).recovery_offset = c.sb.recovery_offset;
  }

  // Members that were active at the last update and are not here.
  std::vector<std::string> missing;
  for (size_t d = 0; d < fsb.dev_roles.size(); ++d) {
    const uint16_t role = fsb.dev_roles[d];
    if (role >= shape_.raid_disks || placed.members[role].dev) continue;
    std::string why = "role " + std::to_string(role) + " (device number " + std::to_string(d) + ")";
    for (const auto& r : rejected_)
      for (const auto& c : cands)
        if (c.path == r.path && c.sb.dev_number == d) why += ": " + r.path + " is " + r.reason;
    missing.push_back(why);
  }
  for (int i = 0; i < shape_.raid_disks; ++i)
    if (!placed.members[size_t(i)].dev) notes_[size_t(i)] = "no member given for this role";
  if (!missing.empty() && !opt.run && !read_only_) {
    std::string msg = "not starting the array degraded: " + std::to_string(missing.size()) +
                      " member(s) active at the last update " + (missing.size() == 1 ? "is" : "are") +
                      " missing (";
    for (size_t i = 0; i < missing.size(); ++i) msg += (i ? "; " : "") + missing[i];
    msg += "). Give every member, or start it degraded (the missing ones then need to be added)";
    return consentable_refusal(msg, Consent::start_degraded);
  }
  publish(std::move(placed));
  if (!personality_->can_run(*table(), recovery_offsets())) {
    std::string msg = "not enough working members to run the array (" + std::to_string(working_members()) +
                      " of " + std::to_string(shape_.raid_disks) +
                      " usable, and some data has no in-sync copy)";
    for (auto& r : rejected_) msg += "; " + r.path + ": " + r.reason;
    return make_error(Errc::refused, msg);
  }
  return {};
}

// The resync point and the write-intent bitmap; refuses a dirty degraded
// RAID5 unless told to start it.
Status Array::take_sync_state(const std::vector<MemberCandidate>& cands, size_t fresh,
                              const AssembleOptions& opt) {
  // A clean/active disagreement means unclean: a member one event behind
  // that still says active lost its clean mark in a crash, and the copies
  // may differ. The lowest resync point any member records wins.
  uint64_t cp = sb_.resync_offset;
  const TableRef t = table();
  for (int i = 0; i < t->size(); ++i) {
    if (!(*t)[i].dev || member_sb_[size_t(i)].resync_offset >= cp) continue;
    cp = member_sb_[size_t(i)].resync_offset;
    events_.record({0, 0, "member", (*t)[i].name, "not clean",
                    "its superblock records an unfinished resync the freshest one does not: resyncing"});
  }
  recovery_cp_ = cp;
  if (sb_.feature_map & ondisk::kFeatureBitmapOffset)
    if (Status s = load_bitmap(cands, fresh); !s) return s;
  if (resync_pending() && !personality_->can_resync(*table())) {
    if (!opt.start_dirty_degraded && !opt.describe_only) return dirty_degraded_refusal();
    if (opt.start_dirty_degraded)
      events_.record({0, 0, "array", "", "started dirty and degraded",
                      "parity of stripes not resynced may be wrong for " + short_members(*table())});
  }
  return {};
}

Error Array::dirty_degraded_refusal() const {
  const uint64_t total = personality_->array_sectors();
  const uint64_t done = std::min(resync_point(), total);
  return consentable_refusal(
      "not starting the array: it is dirty and degraded. Not in sync: " + short_members(*table()) +
          ". The resync has not finished (the array stopped uncleanly, or its resync was interrupted; " +
          std::to_string(total ? done * 100 / total : 0) +
          "% in sync), so parity may be wrong on stripes that were being written when it stopped or were "
          "never "
          "resynced, and the missing member's data rebuilt from them may be wrong. Give every member so the "
          "resync can finish, or start it anyway (then add a member and check the data you rely on)",
      Consent::start_dirty_degraded);
}

Result<std::unique_ptr<Array>> Array::simulated(const LevelTable& levels, const Shape& shape,
                                                std::vector<std::shared_ptr<io::DeviceModel>> models,
                                                uint32_t bitmap_chunk_bytes) {
  auto arr = std::unique_ptr<Array>(new Array());
  arr->simulated_ = true;
  if (Status s = arr->init(levels, shape); !s) return s.error();
  arr->sb_.level = shape.level;
  arr->sb_.raid_disks = uint32_t(shape.raid_disks);
  arr->sb_.layout = shape.layout;
  arr->sb_.chunksize = shape.chunk_sectors;
  arr->sb_.size = shape.dev_sectors;
  MemberTable table;
  table.members.resize(size_t(shape.raid_disks));
  for (int i = 0; i < shape.raid_disks; ++i) {
    if (size_t(i) >= models.size() || !models[size_t(i)]) continue;
    Member& m = table.members[size_t(i)];
    m.model = models[size_t(i)];
    m.state = MemberState::in_sync;
    m.name = "sim" + std::to_string(i);
  }
  arr->publish(std::move(table));
  arr->dirty_ = true;  // no superblocks to mark
  if (bitmap_chunk_bytes) {
    // Where mdadm puts an internal bitmap: 8 sectors after the superblock,
    // up to a 1 MiB data offset.
    BitmapLayout layout{8192, (1 << 20) - 8192, arr->personality_->bitmap_sectors(), bitmap_chunk_bytes};
    if (Status st = ondisk::validate_new_bitmap(layout.sync_size, bitmap_chunk_bytes, layout.space_bytes);
        !st)
      return st.error();
    ondisk::BitmapSuper bsb;
    bsb.sync_size = layout.sync_size;
    bsb.chunksize = bitmap_chunk_bytes;
    arr->bitmap_ = std::make_unique<WriteIntentBitmap>(layout, bsb, std::vector<uint8_t>{});
    arr->register_bitmap_tunables();
    if (Status s = arr->start_bitmap_thread(); !s) return s.error();
  }
  return arr;
}

}  // namespace rs::raid
