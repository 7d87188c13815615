// Read-error correction, the front's part (md's fix_read_error and
// exceed_read_errors, raid1-10.c / raid10.c; raid5's R5_ReadError and
// R5_ReWrite): a member that cannot read a block keeps its place; the
// block is rewritten from a good copy (another mirror, or the rest of a
// RAID5 stripe) and read back; the member is failed only when its read
// errors, halved for every hour since its last one, pass the array's
// max_read_errors (md's max_corr_read_errors, default 20). A write error
// still fails a member at once.
//
// Where it runs: maintenance (check, repair, resync, rebuild) corrects on
// its own task thread, in the piece it holds. The I/O path never waits for
// a disk write: a failed read is served from another copy at once and the
// rewrite is queued to a ReadFixQueue, whose thread does it under the
// resync barrier as a maintenance piece (md's raid1d does it with the array
// frozen). Array::settle_read_fixes() and close() wait for the queue.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

namespace rs::raid {

// md's MD_DEFAULT_MAX_CORRECTED_READ_ERRORS.
inline constexpr int kDefaultMaxReadErrors = 20;

// md's check_decay_read_errors: a member's read-error count halved once for
// every whole hour between its last read error (`last_ns`, 0: none yet)
// and this one (`now_ns`); 0 after 32 hours or more.
uint32_t decay_read_errors(uint32_t count, uint64_t last_ns, uint64_t now_ns);

// A member block the I/O path could not read, to be rewritten.
struct ReadFix {
  int slot = -1;
  uint64_t dev_sector = 0;  // data-area relative
  uint64_t sectors = 0;
};

// The rewrites queued by the I/O path, run one at a time on a thread of
// their own, started with the first.
class ReadFixQueue {
 public:
  explicit ReadFixQueue(std::function<void(const ReadFix&)> run) : run_(std::move(run)) {}
  // Stops after the rewrite in hand; the ones still queued are dropped.
  ~ReadFixQueue();
  ReadFixQueue(const ReadFixQueue&) = delete;
  ReadFixQueue& operator=(const ReadFixQueue&) = delete;

  // Queues `fix` unless a queued or running one covers it; false then.
  bool post(const ReadFix& fix);
  // Whether a queued or running rewrite covers [dev_sector, +sectors) of
  // `slot`: a read failing there again is the same error, not a new one.
  bool covers(int slot, uint64_t dev_sector, uint64_t sectors) const;
  // Returns once every rewrite queued before the call has run.
  void settle();

 private:
  static bool contains(const ReadFix& f, int slot, uint64_t dev_sector, uint64_t sectors);
  bool covers_locked(int slot, uint64_t dev_sector, uint64_t sectors) const;
  void loop();

  std::function<void(const ReadFix&)> run_;
  mutable std::mutex mutex_;
  std::condition_variable work_cv_, idle_cv_;
  std::deque<ReadFix> queue_;
  std::optional<ReadFix> running_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace rs::raid
