// Read-error correction (read_errors.hpp): the per-member count and its
// threshold, rewriting an unreadable block and reading it back, and the
// queue of rewrites the I/O path hands off.
#include "raid/read_errors.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include "raid/array.hpp"

namespace rs::raid {

uint32_t decay_read_errors(uint32_t count, uint64_t last_ns, uint64_t now_ns) {
  if (last_ns == 0 || now_ns <= last_ns) return count;  // the first error: nothing to decay
  const uint64_t hours = (now_ns - last_ns) / (3600ull * 1'000'000'000ull);
  return hours >= 32 ? 0 : count >> hours;
}

// ---- the queue ----

ReadFixQueue::~ReadFixQueue() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
    queue_.clear();
  }
  work_cv_.notify_all();
  idle_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool ReadFixQueue::contains(const ReadFix& f, int slot, uint64_t dev_sector, uint64_t sectors) {
  return f.slot == slot && f.dev_sector <= dev_sector && dev_sector + sectors <= f.dev_sector + f.sectors;
}

bool ReadFixQueue::covers_locked(int slot, uint64_t dev_sector, uint64_t sectors) const {
  if (running_ && contains(*running_, slot, dev_sector, sectors)) return true;
  return std::any_of(queue_.begin(), queue_.end(),
                     [&](const ReadFix& f) { return contains(f, slot, dev_sector, sectors); });
}

bool ReadFixQueue::covers(int slot, uint64_t dev_sector, uint64_t sectors) const {
  std::lock_guard lock(mutex_);
  return covers_locked(slot, dev_sector, sectors);
}

bool ReadFixQueue::post(const ReadFix& fix) {
  {
    std::lock_guard lock(mutex_);
    if (stop_ || covers_locked(fix.slot, fix.dev_sector, fix.sectors)) return false;
    queue_.push_back(fix);
    if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
  }
  work_cv_.notify_one();
  return true;
}

void ReadFixQueue::settle() {
  std::unique_lock lock(mutex_);
  idle_cv_.wait(lock, [this] { return stop_ || (queue_.empty() && !running_); });
}

void ReadFixQueue::loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    work_cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
    if (stop_) return;
    running_ = queue_.front();
    queue_.pop_front();
    lock.unlock();
    run_(*running_);
    lock.lock();
    running_.reset();
    if (queue_.empty()) idle_cv_.notify_all();
  }
}

// ---- the array's side ----

void Array::register_read_error_tunable() {
  telemetry::TunableSpec spec{
      "max_read_errors",
      telemetry::TunableType::integer,
      0,
      std::numeric_limits<int32_t>::max(),
      {},
      "read errors",
      "read errors a member may have (halved for every hour without one) before it is "
      "failed; below it each unreadable block is rewritten from a good copy and the "
      "member stays (md's max_corr_read_errors)"};
  tunables_.add(
      spec, [this](int) { return std::to_string(max_read_errors_.load(std::memory_order_relaxed)); },
      [this](int, const telemetry::TunableValue& v) {
        max_read_errors_.store(int(v.number), std::memory_order_relaxed);
        return Status{};
      });
}

std::optional<uint64_t> Array::count_read_error_locked(int slot, uint64_t dev_sector,
                                                       const std::string& why) {
  SlotRuntime& rt = runtime(slot);
  const uint64_t now = events_.now_ns();
  const uint32_t n = decay_read_errors(rt.read_errors.load(), rt.last_read_error_ns.load(), now) + 1;
  rt.read_errors.store(n);
  rt.last_read_error_ns.store(now);
  const int max = max_read_errors_.load(std::memory_order_relaxed);
  if (int64_t(n) <= max) return std::nullopt;
  return fail_or_keep_locked(
      slot, "read error at device sector " + std::to_string(dev_sector) + ": " + why + "; " +
                std::to_string(n) + " read errors, more than max_read_errors (" + std::to_string(max) + ")");
}

bool Array::read_failed(ArrayIo& io, int slot, uint64_t dev_sector, uint64_t sectors, int result) {
  (void)io;  // a read is not held back by the failure's record, as md's is not
  auto& c = runtime(slot).counters;
  c.errors.fetch_add(1, std::memory_order_relaxed);
  c.read_errors.fetch_add(1, std::memory_order_relaxed);
  // The same block failing again before its rewrite ran is the same error
  // (md rewrites it before anything else may read it).
  if (read_fixes_->covers(slot, dev_sector, sectors)) return false;
  const std::string why = result < 0 ? std::strerror(-result) : "short read";
  std::lock_guard lock(meta_mutex_);
  if (count_read_error_locked(slot, dev_sector, why)) return true;
  if (read_only_) {
    events_.record(
        {0, 0, "member", (*table())[slot].name, "read error",
         "read error at device sector " + std::to_string(dev_sector) + " (" + why +
             "): read from another copy; not rewritten, the array is open read-only (check or repair "
             "rewrites it)"});
    return false;
  }
  read_fixes_->post({slot, dev_sector, sectors});
  return false;
}

void Array::settle_read_fixes() {
  read_fixes_->settle();
}

// On the queue's thread: the personality reads a good copy and calls
// correct_block(), in a piece of the resync barrier so no array write
// lands on the block meanwhile.
void Array::run_read_fix(const ReadFix& f) {
  const TableRef t = table();
  const Member& m = (*t)[f.slot];
  if (!m.writable()) return;  // failed meanwhile
  const PieceRange r = personality_->fix_range(f.slot, f.dev_sector, f.sectors);
  Status s;
  {
    std::optional<ResyncBarrier::Piece> piece;
    if (r.array_lo != r.array_hi) piece.emplace(barrier_, r.array_lo, r.array_hi);
    s = personality_->fix_read_error(*table(), f.slot, f.dev_sector, f.sectors);
  }
  if (!s)
    events_.record({0, 0, "member", m.name, "read error",
                    "read error at device sector " + std::to_string(f.dev_sector) +
                        " not corrected: " + s.error().message});
}

// Fails `slot` for an error met while rewriting it (md: "read correction
// write failed", "unable to read back corrected sectors": failing drive).
void Array::fail_during_correction(int slot, const std::string& reason) {
  runtime(slot).counters.errors.fetch_add(1, std::memory_order_relaxed);
  std::optional<uint64_t> epoch;
  {
    std::lock_guard lock(meta_mutex_);
    epoch = fail_or_keep_locked(slot, reason);
  }
  if (epoch && metadata_) metadata_->wait(*epoch);
}

Result<bool> Array::correct_block(const MemberTable& t, int slot, uint64_t dev_sector, void* member_buf,
                                  const void* good, uint64_t bytes, const std::string& from) {
  (void)t;  // the member's state now decides, not the piece's table
  const TableRef cur = table();
  const Member& m = (*cur)[slot];
  if (!m.dev || !m.writable()) return false;  // failed for it (past the threshold)
  if (read_only_) {
    events_.record({0, 0, "member", m.name, "read error",
                    "read error at device sector " + std::to_string(dev_sector) +
                        ": not rewritten, the array is open read-only"});
    return false;
  }
  auto* out = static_cast<uint8_t*>(member_buf);
  const auto* src = static_cast<const uint8_t*>(good);
  uint64_t corrected = 0, first = 0;
  // Page by page, as md: a page that reads now was not the bad one.
  for (uint64_t off = 0; off < bytes; off += 4096) {
    const uint64_t len = std::min<uint64_t>(4096, bytes - off);
    const uint64_t sector = dev_sector + off / kSectorBytes;
    const uint64_t at = (shape_.data_offset + sector) * kSectorBytes;
    if (m.dev->read_at(at, out + off, len)) continue;
    if (Status w = m.dev->write_at(at, src + off, len); !w) {
      fail_during_correction(slot, "write error at device sector " + std::to_string(sector) +
                                       " while rewriting a block it could not read: " + w.error().message);
      return false;
    }
    if (Status r = m.dev->read_at(at, out + off, len); !r) {
      fail_during_correction(slot, "read error at device sector " + std::to_string(sector) +
                                       " right after it was rewritten: " + r.error().message);
      return false;
    }
    if (corrected == 0) first = sector;
    corrected += len / kSectorBytes;
  }
  if (corrected == 0) return true;
  runtime(slot).counters.corrected_errors.fetch_add(corrected, std::memory_order_relaxed);
  events_.record({0, 0, "member", m.name, "corrected",
                  "read error at device sector " + std::to_string(first) + " corrected from " + from + " (" +
                      std::to_string(corrected) + " sectors rewritten)"});
  request_sync();  // the count goes into its superblock (cnt_corrected_read)
  return true;
}

}  // namespace rs::raid
