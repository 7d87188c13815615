// Superblock updates (the metadata thread's work) and failing members.
#include <sys/statvfs.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <limits>

#include "raid/array.hpp"
#include "raid/array_port.hpp"

namespace rs::raid {

uint64_t Array::request_sync() {
  return metadata_ ? metadata_->request() : 0;
}

Status Array::sync_now() {
  if (!metadata_) return {};
  metadata_->wait(metadata_->request());
  std::lock_guard lock(meta_mutex_);
  if (!last_sync_error_.empty()) return make_error(Errc::io_error, last_sync_error_);
  return {};
}

// As md's super_1_sync: every present, non-faulty member gets the array's
// superblock with its own identity; the role table lists present members by
// device number and marks every other entry faulty, so a member that is not
// here now is recognised as out of date when it comes back.
void Array::sync_superblocks() {
  struct Job {
    int slot;
    std::shared_ptr<io::MemberDevice> dev;
    ondisk::Superblock sb;
  };
  std::vector<Job> jobs;
  bool marks_active = false;
  {
    std::lock_guard lock(meta_mutex_);
    if (sb_.events == ~uint64_t{0}) {
      // Refused at assemble; never wrap to 0 (members would look stale).
      events_.record({0, 0, "array", "superblock", "not written", "the event counter is at its maximum"});
      return;
    }
    const TableRef t = table();
    sb_.events += 1;
    sb_.utime = uint64_t(::time(nullptr));
    std::fill(sb_.dev_roles.begin(), sb_.dev_roles.end(), ondisk::kRoleFaulty);
    for (int i = 0; i < t->size(); ++i) {
      const Member& m = (*t)[i];
      if (!m.dev || m.state == MemberState::faulty || m.state == MemberState::missing) continue;
      if (member_sb_[size_t(i)].dev_number < sb_.dev_roles.size())
        sb_.dev_roles[member_sb_[size_t(i)].dev_number] = uint16_t(i);
    }
    // md writes resync_offset 0 while the array is active, and its resync
    // point (recovery_cp) once it is clean.
    marks_active = dirty_requested_;
    // A write a failed ring tore may differ between members: never clean
    // until a resync (write_torn_by_ring).
    sb_.resync_offset = marks_active || torn_by_ring_.load() ? 0 : recovery_cp_.load();
    for (int i = 0; i < t->size(); ++i) {
      const Member& m = (*t)[i];
      if (!m.dev || !m.writable()) continue;
      const ondisk::Superblock& own = member_sb_[size_t(i)];
      ondisk::Superblock sb = sb_;
      sb.dev_number = own.dev_number;
      sb.device_uuid = own.device_uuid;
      sb.data_size = own.data_size;
      // md's corrected_errors: sectors rewritten after read errors.
      sb.cnt_corrected_read = uint32_t(
          std::min<uint64_t>(runtime(i).counters.corrected_errors.load(), std::numeric_limits<uint32_t>::max()));
      sb.devflags = runtime(i).write_mostly.load() ? ondisk::kDevflagWriteMostly : 0;
      sb.feature_map &= ~ondisk::kFeatureRecoveryOffset;
      sb.recovery_offset = 0;
      if (m.state == MemberState::recovering) {
        sb.feature_map |= ondisk::kFeatureRecoveryOffset;
        sb.recovery_offset = runtime(i).recovery_offset.load();
      }
      jobs.push_back({i, m.dev, sb});
    }
  }
  // The writes happen outside the lock: a completion failing a member must
  // never wait behind an fdatasync.
  std::vector<std::pair<int, std::string>> failed;
  const auto has_failed = [&](int slot) {
    return std::any_of(failed.begin(), failed.end(), [&](auto& f) { return f.first == slot; });
  };
  bool any_ok = false;
  // md writes superblocks PREFLUSH|FUA. An update that is not the active
  // mark (a clean mark, a resync or rebuild checkpoint, a member's failure)
  // may say that data is in place: every member's data goes to its media
  // first, then any superblock. Otherwise a power cut could leave one
  // member's clean mark on disk before another's data, and the array would
  // come back clean with copies that differ.
  if (!marks_active)
    for (auto& j : jobs)
      if (Status s = j.dev->flush(); !s)
        failed.emplace_back(j.slot, "flush before the superblock failed: " + s.error().message);
  // md_update_sb writes the bitmap superblock, with the new event count,
  // before the members' superblocks.
  if (!jobs.empty())
    for (auto& f : write_bitmap_super())
      if (!has_failed(f.first)) failed.push_back(std::move(f));
  for (auto& j : jobs) {
    if (has_failed(j.slot)) continue;
    const auto block = ondisk::encode(j.sb);
    auto buf = io::AlignedBuffer::allocate(4096);
    Status st = buf ? Status{} : Status(buf.error());
    if (st) {
      std::memcpy(buf->data(), block.data(), block.size());
      st = j.dev->write_at(ondisk::kSbOffsetBytes, buf->data(), 4096);
    }
    if (st) st = j.dev->flush();
    if (!st)
      failed.emplace_back(j.slot, "superblock write failed: " + st.error().message);
    else
      any_ok = true;
  }
  std::lock_guard lock(meta_mutex_);
  last_sync_error_.clear();
  for (auto& [slot, why] : failed)
    last_sync_error_ += (last_sync_error_.empty() ? "" : "; ") + (*table())[slot].name + ": " + why;
  for (auto& j : jobs)
    if (!has_failed(j.slot)) member_sb_[size_t(j.slot)] = j.sb;
  // A member we cannot write metadata to is failed, as md does; that is a
  // further change to record.
  for (auto& [slot, why] : failed) fail_locked(slot, why);
  if (marks_active && any_ok) dirty_ = true;
}

std::optional<uint64_t> Array::fail_locked(int slot, const std::string& reason) {
  const TableRef cur = table();
  const Member& m = (*cur)[slot];
  if (m.state == MemberState::faulty) return fail_epoch_[size_t(slot)];
  MemberTable t = *cur;
  t.members[size_t(slot)].state = MemberState::faulty;
  // Refuse to fail the last copy of any data: md refuses too.
  if (!personality_->can_run(t, recovery_offsets())) return std::nullopt;
  notes_[size_t(slot)] = reason;
  const std::string name = m.name;
  publish(std::move(t));
  events_.record({0, 0, "member", name, "faulty", reason});
  fail_epoch_[size_t(slot)] = request_sync();
  return fail_epoch_[size_t(slot)];
}

Status Array::fail_member(int slot, const std::string& reason) {
  if (slot < 0 || slot >= raid_disks())
    return make_error(Errc::invalid_argument, "no member " + std::to_string(slot));
  if (read_only_) return make_error(Errc::refused, "the array was assembled read-only");
  std::optional<uint64_t> epoch;
  {
    std::lock_guard lock(meta_mutex_);
    const Member& m = (*table())[slot];
    if (!m.present())
      return make_error(Errc::invalid_argument, "role " + std::to_string(slot) + " has no member to fail");
    epoch = fail_locked(slot, reason);
    if (!epoch)
      return make_error(Errc::refused,
                        m.name + " holds the last working copy of some data; refusing to fail it");
  }
  if (metadata_) metadata_->wait(*epoch);
  return {};
}

Status Array::remove_member(int slot) {
  if (slot < 0 || slot >= raid_disks())
    return make_error(Errc::invalid_argument, "no member " + std::to_string(slot));
  if (read_only_) return make_error(Errc::refused, "the array was assembled read-only");
  uint64_t epoch = 0;
  {
    std::lock_guard lock(meta_mutex_);
    const TableRef cur = table();
    const Member& m = (*cur)[slot];
    if (!m.present())
      return make_error(Errc::invalid_argument, "role " + std::to_string(slot) + " has no member to remove");
    if (m.state != MemberState::faulty)
      return make_error(Errc::refused, m.name + " is " + member_state_name(m.state) +
                                           ": only a failed member can be removed (fail it first)");
    const std::string name = m.name;
    MemberTable t = *cur;
    t.members[size_t(slot)] = Member{};  // missing: no device, no model
    notes_[size_t(slot)] = "removed";
    publish(std::move(t));
    events_.record({0, 0, "member", name, "removed", ""});
    // md updates the superblocks on a hot remove (the event count moves on).
    epoch = request_sync();
  }
  if (metadata_) metadata_->wait(epoch);
  return {};
}

namespace {

// Why a member transfer failed, as errno text. A short write to an image
// file is what a full filesystem gives (the bytes that fit, then nothing):
// named as the write of the rest would have been, ENOSPC.
std::string transfer_error(const Member& m, bool write, int result) {
  if (result < 0) return std::strerror(-result);
  struct statvfs fs {};
  if (write && m.dev && !m.dev->info().block_device && ::statvfs(m.dev->path().c_str(), &fs) == 0 &&
      fs.f_bavail == 0)
    return std::string(std::strerror(ENOSPC)) + " (a short write: the filesystem holding it is full)";
  return "short transfer";
}

}  // namespace

std::optional<uint64_t> Array::fail_or_keep_locked(int slot, const std::string& reason) {
  const auto epoch = fail_locked(slot, reason);
  if (epoch) return epoch;
  // Kept in: it holds the last working copy of some data. The error is
  // still an event, so a front end can name the member and the errno of
  // an I/O no copy could serve (at most one a second per member: a full
  // disk fails every write that reaches it).
  const uint64_t now = events_.now_ns();
  uint64_t& last = kept_error_ns_[size_t(slot)];
  if (last == 0 || now - last >= 1'000'000'000ull) {
    last = now;
    events_.record({0, 0, "member", (*table())[slot].name, "error",
                    reason + " (kept in the array: it holds the last working copy of some data)"});
  }
  return std::nullopt;
}

bool Array::member_failed(ArrayIo& io, int slot, bool write, int result, uint64_t dev_sector) {
  // The request's context lost its ring (child_finished saw it): the
  // member did nothing wrong, and the request fails with the ring's errno.
  if (io.ring_error) return false;
  runtime(slot).counters.errors.fetch_add(1, std::memory_order_relaxed);
  const std::string reason = std::string(write ? "write" : "read") + " error at device sector " +
                             std::to_string(dev_sector) + ": " +
                             transfer_error((*table())[slot], write, result);
  std::lock_guard lock(meta_mutex_);
  const auto epoch = fail_or_keep_locked(slot, reason);
  if (!epoch) return false;
  // md does not acknowledge a write until the failure is on disk: after a
  // crash the failed member must not come back as in sync.
  if (write) io.metadata_epoch = std::max(io.metadata_epoch, *epoch);
  return true;
}

}  // namespace rs::raid
