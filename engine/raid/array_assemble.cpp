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

namespace {

struct Candidate {
  std::string path;
  std::shared_ptr<io::MemberDevice> dev;
  ondisk::Superblock sb;
};

const char* differing_field(const ondisk::Superblock& a, const ondisk::Superblock& b) {
  if (a.level != b.level) return "raid level";
  if (a.layout != b.layout) return "layout";
  if (a.chunksize != b.chunksize) return "chunk size";
  if (a.raid_disks != b.raid_disks) return "number of raid devices";
  if (a.size != b.size) return "used device size";
  if (a.data_offset != b.data_offset) return "data offset";
  return nullptr;
}

Result<std::vector<Candidate>> open_candidates(const std::vector<std::string>& paths, bool read_only) {
  std::vector<Candidate> cands;
  for (const auto& p : paths) {
    for (const auto& c : cands)
      if (c.path == p) return make_error(Errc::invalid_argument, p + ": given twice");
    std::string err;
    auto dev = io::MemberDevice::open(p, read_only ? io::OpenMode::ReadOnly : io::OpenMode::ReadWrite, &err);
    if (!dev) return make_error(err.find("in use") != std::string::npos || err.find("busy") != std::string::npos
                                    ? Errc::busy
                                    : Errc::not_found,
                                err);
    auto res = read_superblock(*dev);
    if (!res.ok) return make_error(res.has_magic ? Errc::corrupt : Errc::not_found, res.error);
    cands.push_back({p, std::shared_ptr<io::MemberDevice>(std::move(dev)), std::move(res.sb)});
  }
  return cands;
}

std::atomic<uint64_t> assemble_calls{0};

}  // namespace

uint64_t Array::assemble_count() {
  return assemble_calls.load(std::memory_order_relaxed);
}

Result<std::unique_ptr<Array>> Array::assemble(const LevelTable& levels, const std::vector<std::string>& paths,
                                               const AssembleOptions& opt) {
  assemble_calls.fetch_add(1, std::memory_order_relaxed);
  if (paths.empty()) return make_error(Errc::invalid_argument, "no members given");
  {
    std::vector<std::string> all = paths;
    if (!opt.resume_member.empty()) all.push_back(opt.resume_member);
    // One file reached by two names (a loop device over it, a hard link)
    // would be driven as two members.
    if (Status s = discovery::check_distinct(all); !s) return s.error();
  }
  auto opened = open_candidates(paths, opt.read_only);
  if (!opened) return opened.take_error();
  std::vector<Candidate>& cands = *opened;
  // `add`: the target takes part when it is this array's member with an
  // active role (recovering: the rebuild resumes; in sync: add refuses it);
  // a stale or failed one is add's to start afresh, without a warning here.
  if (!opt.resume_member.empty() &&
      std::none_of(cands.begin(), cands.end(), [&](const Candidate& c) { return c.path == opt.resume_member; })) {
    auto target = open_candidates({opt.resume_member}, opt.read_only);
    if (target && (*target)[0].sb.set_uuid == cands[0].sb.set_uuid) cands.push_back(std::move((*target)[0]));
  }

  size_t fresh = 0;
  for (size_t i = 0; i < cands.size(); ++i) {
    if (cands[i].sb.set_uuid != cands[0].sb.set_uuid)
      return make_error(Errc::refused,
                        cands[i].path + " and " + cands[0].path + " belong to different arrays (array UUID " +
                            ondisk::uuid_to_string(cands[i].sb.set_uuid) + " vs " +
                            ondisk::uuid_to_string(cands[0].sb.set_uuid) + ")");
    if (cands[i].sb.events > cands[fresh].sb.events) fresh = i;
  }
  const ondisk::Superblock fsb = cands[fresh].sb;
  for (const auto& c : cands)
    if (const char* what = differing_field(c.sb, fsb))
      return make_error(Errc::corrupt, c.path + " disagrees with " + cands[fresh].path + " on the " + what +
                                           ": the superblocks are inconsistent");
  if (!opt.read_only && fsb.events == ~uint64_t{0})
    return make_error(Errc::refused, cands[fresh].path + ": its event counter is at the maximum (" +
                                         std::to_string(fsb.events) +
                                         "); the next superblock update would wrap it to 0 and lose track of "
                                         "which member is current. Refusing to write to this array");

  Shape shape{fsb.level, int(fsb.raid_disks), fsb.layout, fsb.chunksize, fsb.size, fsb.data_offset};
  auto arr = std::unique_ptr<Array>(new Array());
  arr->read_only_ = opt.read_only;
  if (Status s = arr->init(levels, shape); !s) return s.error();
  arr->sb_ = fsb;

  MemberTable table;
  table.members.resize(size_t(shape.raid_disks));
  for (auto& c : cands) {
    const bool resume = c.path == opt.resume_member;
    const uint16_t role =
        c.sb.dev_number < fsb.dev_roles.size() ? fsb.dev_roles[c.sb.dev_number] : ondisk::kRoleSpare;
    // md's rule (super_1_validate, mdadm's event margin): one event behind
    // is still current; further behind missed writes.
    const bool stale = c.sb.events + 1 < fsb.events;
    if (resume && (stale || role >= shape.raid_disks)) continue;  // add starts it afresh
    if (stale) {
      arr->rejected_.push_back({c.path, "out of date (events " + std::to_string(c.sb.events) + ", the array is at " +
                                            std::to_string(fsb.events) + "): re-add it with `add`"});
      continue;
    }
    if (role == ondisk::kRoleFaulty) {
      arr->rejected_.push_back({c.path, "marked faulty or removed in the array: re-add it with `add`"});
      continue;
    }
    if (role == ondisk::kRoleSpare || role >= shape.raid_disks) {
      arr->rejected_.push_back({c.path, "a spare: its device number " + std::to_string(c.sb.dev_number) +
                                            " has no active role in the array"});
      continue;
    }
    Member& m = table.members[role];
    if (m.dev)
      return make_error(Errc::corrupt, c.path + " and " + m.name + " both claim role " + std::to_string(role));
    const bool recovering = (c.sb.feature_map & ondisk::kFeatureRecoveryOffset) != 0;
    m.dev = c.dev;
    m.name = c.path;
    m.state = recovering ? MemberState::recovering : MemberState::in_sync;
    arr->member_sb_[role] = c.sb;
    arr->runtime(role).write_mostly = (c.sb.devflags & ondisk::kDevflagWriteMostly) != 0;
    if (recovering) arr->runtime(role).recovery_offset = c.sb.recovery_offset;
  }

  // Members that were active at the last update and are not here.
  std::vector<std::string> missing;
  for (size_t d = 0; d < fsb.dev_roles.size(); ++d) {
    const uint16_t role = fsb.dev_roles[d];
    if (role >= shape.raid_disks || table.members[role].dev) continue;
    std::string why = "role " + std::to_string(role) + " (device number " + std::to_string(d) + ")";
    for (const auto& r : arr->rejected_)
      for (const auto& c : cands)
        if (c.path == r.path && c.sb.dev_number == d) why += ": " + r.path + " is " + r.reason;
    missing.push_back(why);
  }
  for (int i = 0; i < shape.raid_disks; ++i)
    if (!table.members[size_t(i)].dev) arr->notes_[size_t(i)] = "no member given for this role";
  if (!missing.empty() && !opt.run && !opt.read_only) {
    std::string msg = "not starting the array degraded: " + std::to_string(missing.size()) + " member(s) active at the last update " +
                      (missing.size() == 1 ? "is" : "are") + " missing (";
    for (size_t i = 0; i < missing.size(); ++i) msg += (i ? "; " : "") + missing[i];
    msg += "). Give every member, or --run to start it degraded (the missing ones then need `add`)";
    return make_error(Errc::refused, msg);
  }
  arr->publish(std::move(table));
  if (!arr->personality_->can_run(*arr->table(), arr->recovery_offsets())) {
    std::string msg = "not enough working members to run the array (" + std::to_string(arr->working_members()) +
                      " of " + std::to_string(shape.raid_disks) + " usable, and some data has no in-sync copy)";
    for (auto& r : arr->rejected_) msg += "; " + r.path + ": " + r.reason;
    return make_error(Errc::refused, msg);
  }
  arr->recovery_cp_ = fsb.resync_offset;
  if (fsb.feature_map & ondisk::kFeatureBitmapOffset) {
    auto bm = load_bitmap(*cands[fresh].dev, fsb, arr->personality_->bitmap_sectors());
    if (!bm) return bm.take_error();
    arr->bitmap_ = std::move(*bm);
    arr->register_bitmap_tunables();
    // After an unclean stop only the chunks whose bits are set differ.
    if (arr->resync_pending()) arr->resync_bits_ = arr->bitmap_->snapshot_bits();
  }
  arr->start_metadata();
  if (arr->bitmap_ && !opt.read_only) arr->start_bitmap_thread();
  if (arr->resync_pending() && opt.resync && !opt.read_only) arr->start_resync();
  return arr;
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
    if (std::string why = ondisk::validate_new_bitmap(layout.sync_size, bitmap_chunk_bytes, layout.space_bytes);
        !why.empty())
      return make_error(Errc::invalid_argument, why);
    ondisk::BitmapSuper bsb;
    bsb.sync_size = layout.sync_size;
    bsb.chunksize = bitmap_chunk_bytes;
    arr->bitmap_ = std::make_unique<WriteIntentBitmap>(layout, bsb, std::vector<uint8_t>{});
    arr->register_bitmap_tunables();
    arr->start_bitmap_thread();
  }
  return arr;
}

}  // namespace rs::raid
