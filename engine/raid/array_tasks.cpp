// Long operations on the array as tasks on their own context threads:
// resync (md's, after an unclean stop or at create), rebuild onto an added
// member, check and repair. Each works piece by piece under the resync
// barrier, reports progress, stops within a piece of a cancel, and records
// where it got.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/unique_fd.hpp"
#include "discovery/signature.hpp"
#include "io/uring_backend.hpp"
#include "raid/array.hpp"
#include "raid/array_port.hpp"
#include "raid/member_superblock.hpp"

namespace rs::raid {

namespace {
constexpr uint64_t kCheckpointSectors = 64 * 2048;  // record rebuild progress every 64 MiB

std::string percent(uint64_t done, uint64_t total) {
  return std::to_string(total ? done * 100 / total : 100) + "%";
}
}  // namespace

io::TaskHandle Array::start_task(std::string kind, std::string target,
                                 std::function<Status(io::TaskState&)> body) {
  auto task = io::make_task(kind + (target.empty() ? "" : " " + target));
  auto thread = std::make_unique<io::ContextThread>("md-" + kind, [] {
    return std::unique_ptr<io::Backend>(new io::SyncBackend(std::span<io::MemberDevice* const>{}));
  });
  events_.record({0, 0, "task", task->name(), "started", ""});
  io::ContextThread* runner = thread.get();
  {
    std::lock_guard lock(task_mutex_);
    // Threads of finished tasks are idle: let them go.
    for (size_t i = 0; i < tasks_.size();) {
      if (tasks_[i].task->finished()) {
        tasks_.erase(tasks_.begin() + std::ptrdiff_t(i));
        task_threads_.erase(task_threads_.begin() + std::ptrdiff_t(i));
      } else {
        ++i;
      }
    }
    // Listed before it runs: running_tasks() finds it from its first piece.
    tasks_.push_back({std::move(kind), std::move(target), task});
    task_threads_.push_back(std::move(thread));
    // Posted under the lock: stop_tasks() cannot take the thread away first.
    runner->post([this, task, body = std::move(body)] {
      Status s = body(*task);
      events_.record({0, 0, "task", task->name(),
                      s ? "finished" : (s.error().code == Errc::cancelled ? "cancelled" : "failed"),
                      s ? "" : s.error().message});
      task->finish(std::move(s));
    });
  }
  return task;
}

void Array::stop_tasks() {
  std::vector<std::unique_ptr<io::ContextThread>> threads;
  std::vector<RunningTask> tasks;
  {
    std::lock_guard lock(task_mutex_);
    for (auto& t : tasks_) t.task->cancel();
    threads.swap(task_threads_);
    tasks = tasks_;
  }
  for (auto& t : tasks) (void)t.task->wait();  // each reports its own outcome as an event
  threads.clear();                             // joins
  std::lock_guard lock(task_mutex_);
  tasks_.clear();
}

std::vector<RunningTask> Array::running_tasks() const {
  std::lock_guard lock(task_mutex_);
  std::vector<RunningTask> v;
  for (const auto& t : tasks_)
    if (!t.task->finished()) v.push_back(t);
  return v;
}

io::TaskHandle Array::resync_task() const {
  for (auto& t : running_tasks())
    if (t.kind == "resync") return t.task;
  return nullptr;
}

io::TaskHandle Array::start_resync() {
  if (!resync_pending() || read_only_ || simulated_) return nullptr;
  // A degraded RAID5's parity cannot be made to agree: the point stays.
  if (!personality_->can_resync(*table())) return nullptr;
  if (auto running = resync_task()) return running;
  return start_task("resync", "", [this](io::TaskState& task) { return run_resync(task); });
}

// ---- maintenance member I/O ----

Status Array::read_member(const MemberTable& t, int slot, uint64_t dev_sector, void* buf, uint64_t bytes) {
  return maintenance_transfer(t, slot, false, dev_sector, buf, bytes);
}

Status Array::write_member(const MemberTable& t, int slot, uint64_t dev_sector, const void* buf,
                           uint64_t bytes) {
  return maintenance_transfer(t, slot, true, dev_sector, const_cast<void*>(buf), bytes);
}

// A maintenance write that fails fails the member, as md does; a read that
// fails is a read error (the member is failed past max_read_errors only).
// Either returns once a failure is recorded.
Status Array::maintenance_transfer(const MemberTable& t, int slot, bool write, uint64_t dev_sector, void* buf,
                                   uint64_t bytes) {
  const Member& m = t[slot];
  if (!m.dev) return make_error(Errc::unsupported, "member " + std::to_string(slot) + " has no device");
  const uint64_t at = (shape_.data_offset + dev_sector) * kSectorBytes;
  const Status done = write ? m.dev->write_at(at, buf, bytes) : m.dev->read_at(at, buf, bytes);
  if (done) return {};
  if (done.error().code != Errc::io_error) return done;  // no bounce buffer: not the member's fault
  const std::string& err = done.error().message;
  auto& c = runtime(slot).counters;
  c.errors.fetch_add(1, std::memory_order_relaxed);
  if (!write) c.read_errors.fetch_add(1, std::memory_order_relaxed);
  std::optional<uint64_t> epoch;
  {
    std::lock_guard lock(meta_mutex_);
    epoch = write ? fail_locked(slot, "write error during maintenance: " + err)
                  : count_read_error_locked(slot, dev_sector, err);
  }
  if (epoch && metadata_) metadata_->wait(*epoch);
  return make_error(Errc::io_error, err);
}

// ---- resync ----

// md's resync: make the redundancy agree from the resync point to the end.
// Reads beyond the point use the first copy meanwhile (the personality's
// read rule); the point moves forward piece by piece.
Status Array::run_resync(io::TaskState& task) {
  const uint64_t total = personality_->array_sectors();
  // With a write-intent bitmap only the chunks dirty at the unclean stop;
  // without one, everything from the resync point on.
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  if (!resync_bits_.empty()) {
    const uint64_t cs = bitmap_->chunk_sectors();
    for (uint64_t c = 0; c < bitmap_->chunks(); ++c)
      if (resync_bits_[c / 8] & (1u << (c % 8))) {
        auto [lo, hi] = personality_->array_range_of_bitmap(c * cs, (c + 1) * cs);
        ranges.emplace_back(lo, std::min(hi, total));
      }
  } else {
    ranges.emplace_back(0, total);
  }
  uint64_t todo = 0, done = 0;
  const uint64_t start = std::min(recovery_cp_.load(), total);
  for (auto& [lo, hi] : ranges) {
    lo = std::max(lo, start);
    if (lo < hi) todo += hi - lo;
  }
  task.set_total(todo * kSectorBytes);
  for (const auto& [lo, hi] : ranges) {
    for (uint64_t sector = lo; sector < hi;) {
      task.set_done(done * kSectorBytes);
      if (task.cancel_requested())
        return make_error(Errc::cancelled, "resync stopped at " + percent(done, todo) + "; it resumes there");
      // A member lost meanwhile: md's resync point survives it, and the
      // rest is resynced once every member is back (never marked done).
      const TableRef t = table();
      if (!personality_->can_resync(*t))
        return make_error(Errc::refused, "resync stopped at " + percent(done, todo) +
                                             ": the array is degraded (" + short_members(*t) +
                                             "), so its parity cannot be made to agree; the rest is resynced "
                                             "once every member is back");
      PieceRange r = personality_->check_range(sector);
      r.array_hi = std::min(r.array_hi, hi);
      {
        ResyncBarrier::Piece piece(barrier_, r.array_lo, r.array_hi);
        auto res = personality_->check_piece(*t, r, /*repair=*/true);
        if (!res) return res.take_error();
      }
      done += r.array_hi - sector;
      sector = r.array_hi;
      recovery_cp_.store(sector, std::memory_order_release);
      if (piece_hook_) piece_hook_("resync", done * kSectorBytes);
    }
  }
  if (Status s = flush(); !s) return s;
  recovery_cp_.store(ondisk::kMaxSector, std::memory_order_release);
  task.set_done(todo * kSectorBytes);
  request_sync();  // a clean array records it now; an active one at close
  return {};
}

// ---- rebuild ----

namespace {
// "a", "a and b": the members a rebuild is for, in its messages.
std::string names_of(const MemberTable& t, const std::vector<int>& slots) {
  std::string s;
  for (size_t i = 0; i < slots.size(); ++i)
    s += (i == 0 ? "" : i + 1 == slots.size() ? " and " : ", ") + t[slots[i]].name;
  return s;
}
}  // namespace

// Targets whose pieces cover the same array range (parity levels: the
// stripe) go to the personality together, under one barrier piece; others
// (raid10's copies of different data) one after the other.
Status Array::rebuild_at(const MemberTable& t, const std::vector<int>& targets, uint64_t dev_sector,
                         uint64_t& dev_sectors) {
  const PieceRange r = personality_->rebuild_range(targets[0], dev_sector);
  dev_sectors = r.dev_sectors;
  bool shared = true;
  for (int s : targets) {
    const PieceRange o = personality_->rebuild_range(s, dev_sector);
    shared = shared && o.array_lo == r.array_lo && o.array_hi == r.array_hi && o.dev_sectors == r.dev_sectors;
  }
  if (!shared) {
    for (int s : targets) {
      const PieceRange o = personality_->rebuild_range(s, dev_sector);
      std::optional<ResyncBarrier::Piece> piece;
      if (o.array_lo != o.array_hi) piece.emplace(barrier_, o.array_lo, o.array_hi);
      if (Status st = personality_->rebuild_piece(t, s, dev_sector, o); !st) return st;
    }
    return {};
  }
  std::optional<ResyncBarrier::Piece> piece;
  if (r.array_lo != r.array_hi) piece.emplace(barrier_, r.array_lo, r.array_hi);
  if (targets.size() == 1) return personality_->rebuild_piece(t, targets[0], dev_sector, r);
  return personality_->rebuild_pieces(t, targets, dev_sector, r);
}

// md's recovery: one pass over the members' device sectors from the lowest
// recovery_offset of those it rebuilds; a member further along (an earlier
// pass got further on it) joins the pass when it reaches its point.
Status Array::run_rebuild(io::TaskState& task, const std::vector<int>& slots) {
  const uint64_t total = shape_.dev_sectors;
  task.set_total(total * kSectorBytes);
  // Every write counts in the barrier's buckets, so each piece waits for
  // the writes running in its units, also those that started before the
  // rebuild and do not write the new members.
  uint64_t since_checkpoint = 0, dev_sector = total;
  for (int s : slots) dev_sector = std::min(dev_sector, runtime(s).recovery_offset.load());
  std::vector<int> targets;
  // Walk the device sectors in order, so each recovery_offset only grows.
  while (dev_sector < total) {
    task.set_done(dev_sector * kSectorBytes);
    const TableRef t = table();
    for (int s : slots)
      if ((*t)[s].state != MemberState::recovering)
        return make_error(Errc::io_error, (*t)[s].name + " failed during rebuild: " + member_note(s));
    if (task.cancel_requested()) {
      // Like md, record how far we got so the rebuild resumes there.
      (void)sync_now();  // a failed checkpoint only costs rework at the next add
      return make_error(Errc::cancelled, "rebuild of " + names_of(*t, slots) + " stopped at " +
                                             percent(dev_sector, total) + "; run add again to resume");
    }
    targets.clear();
    for (int s : slots)
      if (runtime(s).recovery_offset.load() <= dev_sector) targets.push_back(s);
    uint64_t step = 0;
    if (Status s = rebuild_at(*t, targets, dev_sector, step); !s) return s;
    dev_sector += step;
    for (int s : targets) runtime(s).recovery_offset.store(dev_sector, std::memory_order_release);
    since_checkpoint += step;
    if (since_checkpoint >= kCheckpointSectors) {
      request_sync();
      since_checkpoint = 0;
    }
    if (piece_hook_) piece_hook_("rebuild", dev_sector * kSectorBytes);
  }
  for (int s : slots)
    if (Status st = (*table())[s].dev->flush(); !st) return st;
  {
    std::lock_guard lock(meta_mutex_);
    MemberTable t = *table();
    for (int s : slots) {
      t.members[size_t(s)].state = MemberState::in_sync;
      runtime(s).recovery_offset = 0;
    }
    publish(std::move(t));
    for (int s : slots) events_.record({0, 0, "member", (*table())[s].name, "active sync", "rebuilt"});
  }
  task.set_done(total * kSectorBytes);
  return sync_now();
}

// ---- check / repair ----

Status Array::can_compare(bool repair) const {
  if (redundant()) return {};
  return make_error(Errc::refused, std::string(repair ? "repair" : "check") +
                                       " cannot compare anything: the array has no redundancy left (" +
                                       std::to_string(working_members()) + " of " +
                                       std::to_string(raid_disks()) +
                                       " members working: nothing is left to compare a block with); add a "
                                       "member and let the rebuild finish first");
}

Result<io::TaskHandle> Array::start_check(bool repair) {
  if (read_only_ && repair) return make_error(Errc::refused, "the array was assembled read-only");
  if (simulated_) return make_error(Errc::unsupported, "check needs real members");
  if (Status s = can_compare(repair); !s) return s.error();
  mismatch_cnt_ = 0;
  check_p_wrong_ = 0;
  check_q_wrong_ = 0;
  return start_task(repair ? "repair" : "check", "",
                    [this, repair](io::TaskState& task) { return run_check(task, repair); });
}

Status Array::run_check(io::TaskState& task, bool repair) {
  // Writes running meanwhile must not land between reading one copy and the
  // next (a false mismatch) or between the read and a repair's write (an
  // older copy written over a newer one): md holds them at the same barrier.
  const uint64_t total = personality_->array_sectors();
  task.set_total(total * kSectorBytes);
  for (uint64_t sector = 0; sector < total;) {
    task.set_done(sector * kSectorBytes);
    if (task.cancel_requested())
      return make_error(Errc::cancelled,
                        std::string(repair ? "repair" : "check") + " stopped at " + percent(sector, total) +
                            " (mismatches so far: " + std::to_string(mismatch_cnt_.load()) + ")");
    const PieceRange r = personality_->check_range(sector);
    ResyncBarrier::Piece piece(barrier_, r.array_lo, r.array_hi);
    auto res = personality_->check_piece(*table(), r, repair);
    if (!res) return res.take_error();
    mismatch_cnt_.fetch_add(res->mismatches, std::memory_order_relaxed);
    check_p_wrong_.fetch_add(res->p_wrong_pages, std::memory_order_relaxed);
    check_q_wrong_.fetch_add(res->q_wrong_pages, std::memory_order_relaxed);
    sector = r.array_hi;
    if (piece_hook_) piece_hook_(repair ? "repair" : "check", sector * kSectorBytes);
  }
  task.set_done(total * kSectorBytes);
  if (std::string found = check_findings(repair); !found.empty())
    events_.record({0, 0, "task", task.name(), "mismatches", found});
  if (!repair) return {};
  if (Status s = flush(); !s) return s;
  if (resync_pending() && personality_->can_resync(*table())) {
    // A full repair is md's resync: the array is consistent again (not
    // when a member was short: then it compared nothing there).
    recovery_cp_.store(ondisk::kMaxSector, std::memory_order_release);
    return sync_now();
  }
  return {};
}

namespace {
std::string pages(uint64_t n) {
  return std::to_string(n) + (n == 1 ? " page" : " pages");
}
}  // namespace

std::string Array::check_findings(bool repair) const {
  const uint64_t p = check_p_wrong_pages(), q = check_q_wrong_pages();
  if (!p && !q) return "";
  std::string s =
      "P (the parity) was wrong on " + pages(p) + " and Q (the second syndrome) on " + pages(q) + " of 4 KiB";
  if (p && q) s += "; a page with both wrong usually means its data block was damaged";
  if (repair) s += "; repair rewrote P and Q there from the data";
  return s;
}

// ---- add ----

namespace {

// A target that is not this array's member yet: may we write to it?
Status check_add_target(const std::string& path, const ondisk::Uuid& array_uuid, bool force) {
  if (std::string why = discovery::block_device_in_use(path); !why.empty())
    return make_error(Errc::busy, path + ": refusing to write: " + why);
  std::string sig = discovery::existing_signature(path);
  // A former member of this array may come back without --force.
  bool ours = false;
  if (auto dev = io::MemberDevice::open(path, io::OpenMode::ReadOnly)) {
    auto sb = read_superblock(**dev);
    ours = sb && sb->set_uuid == array_uuid;
    if (sb && !ours) sig = "an md superblock of another array (" + ondisk::uuid_to_string(sb->set_uuid) + ")";
  }
  if (!ours && !sig.empty() && !force)
    return overridable_refusal(path + ": holds " + sig + "; adding it would destroy it");
  return {};
}

}  // namespace

Result<io::TaskHandle> Array::start_add(const std::string& path, const AddOptions& opt) {
  return start_add(std::vector<std::string>{path}, opt);
}

Result<io::TaskHandle> Array::start_add(const std::vector<std::string>& paths, const AddOptions& opt) {
  if (read_only_ || simulated_)
    return make_error(Errc::refused, "members can only be added to a real, writable array");
  if (paths.empty()) return make_error(Errc::invalid_argument, "no member to add");
  // Before anything is written: each path once, and no more new members
  // than slots to put them in.
  int fresh = 0, open_slots = 0;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (std::find(paths.begin(), paths.begin() + std::ptrdiff_t(i), paths[i]) !=
        paths.begin() + std::ptrdiff_t(i))
      return make_error(Errc::invalid_argument, paths[i] + " is given twice; nothing added");
    fresh += slot_of(paths[i]) < 0;
  }
  {
    const TableRef t = table();
    for (int i = 0; i < t->size(); ++i)
      open_slots +=
          (*t)[i].state == MemberState::missing || (*t)[i].state == MemberState::faulty || !(*t)[i].present();
  }
  if (paths.size() > 1 && fresh > open_slots)
    return make_error(Errc::refused, std::to_string(fresh) + " new members to add, but the array has " +
                                         std::to_string(open_slots) +
                                         " missing or failed member(s) to put them in; nothing added");
  std::vector<int> slots;
  std::string names;
  for (const std::string& path : paths) {
    auto slot = attach_member(path, opt);
    if (!slot) {
      if (slots.empty()) return slot.take_error();
      return make_error(slot.error().code,
                        slot.error().message + " (" + names +
                            " was added before it and waits: run add again to rebuild it)");
    }
    slots.push_back(*slot);
    names += (names.empty() ? "" : ", ") + path;
  }
  if (Status s = sync_now(); !s) return s.error();
  return start_task("rebuild", names,
                    [this, slots](io::TaskState& task) { return run_rebuild(task, slots); });
}

Result<int> Array::attach_member(const std::string& path, const AddOptions& opt) {
  int slot = slot_of(path);
  if (slot >= 0 && (*table())[slot].state != MemberState::recovering)
    return make_error(Errc::invalid_argument,
                      path + " is already an active member (role " + std::to_string(slot) + ")");
  if (slot < 0) {
    {
      const TableRef t = table();
      for (int i = 0; i < t->size() && slot < 0; ++i)
        if ((*t)[i].state == MemberState::missing || (*t)[i].state == MemberState::faulty ||
            !(*t)[i].present())
          slot = i;
    }
    if (slot < 0)
      return make_error(Errc::refused,
                        "the array has no missing or failed member: nothing to rebuild onto " + path);
    struct stat st {};
    bool created = false;
    if (::stat(path.c_str(), &st) != 0) {
      if (!opt.create_files_bytes)
        return make_error(Errc::not_found,
                          path + ": does not exist (use --create-files=SIZE to create an image file)");
      UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
      if (!fd || ::ftruncate(fd.get(), off_t(opt.create_files_bytes)) != 0) {
        const std::string why = std::strerror(errno);
        if (fd) ::unlink(path.c_str());
        return make_error(Errc::io_error, path + ": cannot create: " + why);
      }
      created = true;
    } else if (Status s = check_add_target(path, superblock().set_uuid, opt.force); !s) {
      return s.error();
    }
    auto opened = io::MemberDevice::open(path, io::OpenMode::ReadWrite);
    const uint64_t need = (shape_.data_offset + shape_.dev_sectors) * kSectorBytes;
    if (!opened || (*opened)->size_bytes() < need) {
      if (created) ::unlink(path.c_str());
      if (!opened) return opened.take_error();
      return make_error(Errc::refused, path + ": too small (" + std::to_string((*opened)->size_bytes()) +
                                           " bytes; the array needs " + std::to_string(need) +
                                           " per member)");
    }
    std::unique_ptr<io::MemberDevice> dev = std::move(*opened);
    observe(*dev);
    std::lock_guard lock(meta_mutex_);
    MemberTable t = *table();
    // A device number no present member uses (md's desc_nr).
    uint32_t dev_number = 0;
    for (bool used = true; used;) {
      used = false;
      for (int i = 0; i < t.size(); ++i)
        if (i != slot && t[i].dev && t[i].state != MemberState::faulty &&
            member_sb_[size_t(i)].dev_number == dev_number)
          used = true;
      if (used) ++dev_number;
    }
    ondisk::Superblock& own = member_sb_[size_t(slot)];
    own = ondisk::Superblock{};
    own.dev_number = dev_number;
    own.device_uuid = ondisk::random_uuid();
    own.data_size = dev->size_bytes() / kSectorBytes - shape_.data_offset;
    Member& m = t.members[size_t(slot)];
    m.dev = std::shared_ptr<io::MemberDevice>(std::move(dev));
    m.model = nullptr;
    m.name = path;
    m.state = MemberState::recovering;
    runtime(slot).recovery_offset = 0;
    // A new disk: md's counts start again (corrected_errors, read_errors).
    runtime(slot).counters.corrected_errors = 0;
    runtime(slot).read_errors = 0;
    runtime(slot).last_read_error_ns = 0;
    notes_[size_t(slot)].clear();
    publish(std::move(t));
    events_.record({0, 0, "member", path, "recovering", "added"});
  }
  return slot;
}

}  // namespace rs::raid
