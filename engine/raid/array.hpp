// The array front: an assembled (or freshly created, or simulated) md
// array. It owns the members (published as immutable MemberTables), the
// superblocks and events, the array state (clean/active, resync point),
// the resync barrier, the metadata worker that writes superblocks off the
// I/O path, long operations as tasks, the tunables registry, the event log
// and the telemetry source. The level's personality owns the data layout.
//
// Threads: array I/O is submitted through ArrayPorts, one per I/O context;
// management calls (fail, add, check, close, tunables) may come from any
// thread; tasks run on their own context threads; superblock writes run on
// the metadata thread. Nothing here throws.
#pragma once
#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/result.hpp"
#include "io/backend.hpp"
#include "io/fault_backend.hpp"
#include "io/task.hpp"
#include "io/write_observer.hpp"
#include "ondisk/superblock.hpp"
#include "raid/array_core.hpp"
#include "raid/barrier.hpp"
#include "raid/bitmap_stage.hpp"
#include "raid/level_info.hpp"
#include "raid/metadata.hpp"
#include "raid/personality.hpp"
#include "raid/read_errors.hpp"
#include "telemetry/counter_slots.hpp"
#include "telemetry/event_log.hpp"
#include "telemetry/live_histogram.hpp"
#include "telemetry/sampler.hpp"
#include "telemetry/tunables.hpp"

namespace rs::raid {

class ArrayPort;
struct MemberCandidate;

// A member that was given but does not take part, and why.
struct Rejected {
  std::string path;
  std::string reason;
};

struct AssembleOptions {
  // Start even though members that were active at the last update are
  // missing (mdadm's --run); without it such an array is refused, naming
  // them.
  bool run = false;
  // No superblock writes and no resync: for commands that only look.
  bool read_only = false;
  // Only the metadata is looked at (detail, tunables): no data is read or
  // written, so an array that may not start (dirty and degraded) is still
  // described. Implies read_only.
  bool describe_only = false;
  // A RAID5 whose resync did not finish (stopped uncleanly, or its initial
  // resync interrupted) with a member missing: md's "dirty degraded" array.
  // Its parity may be wrong on stripes written at the crash or never
  // resynced, so the missing member's data rebuilt from them would be
  // wrong. Refused unless this is set (md's start_dirty_degraded).
  bool start_dirty_degraded = false;
  // Start md's resync of a dirty (not cleanly stopped) array as a task.
  bool resync = true;
  // `add` resuming an interrupted rebuild: these members, those that are
  // this array's recovering members, take part.
  std::vector<std::string> resume_members;
  // Told about every write and flush the array makes to its members
  // (io/write_observer.hpp): the power-cut model and ordering tests.
  std::shared_ptr<io::WriteObserver> observer;
  // Faults injected into the members' I/O (io/fault_backend.hpp): tests of
  // read-error correction and member failure.
  std::shared_ptr<io::FaultPlan> faults;
};

enum class BitmapMode { automatic, internal, none };  // automatic: internal above 100 GiB, as mdadm

struct CreateOptions {
  int level = 1;
  int raid_disks = 0;
  // md's layout word (LevelInfo::parse_layout reads mdadm's spellings);
  // none: the level's default. 0 is a layout of its own.
  std::optional<uint32_t> layout;
  std::optional<uint32_t> chunk_bytes;  // chunked levels; none: kDefaultChunkBytes
  std::string name;
  bool force = false;               // overwrite signatures / other arrays' members
  uint64_t create_files_bytes = 0;  // create missing image files of this size
  BitmapMode bitmap = BitmapMode::automatic;
  uint32_t bitmap_chunk_bytes = 0;              // 0: 64 MiB, doubled until the bits fit
  std::shared_ptr<io::WriteObserver> observer;  // as AssembleOptions::observer
  std::shared_ptr<io::FaultPlan> faults;        // as AssembleOptions::faults
};

struct AddOptions {
  bool force = false;
  uint64_t create_files_bytes = 0;
};

// A long operation running on the array, for telemetry and the CLI.
struct RunningTask {
  std::string kind;    // "resync", "rebuild", "check", "repair"
  std::string target;  // the member being rebuilt
  io::TaskHandle task;
};

class Array final : public ArrayCore, public telemetry::TelemetrySource {
 public:
  // Assembles from the given members (the array is the set given).
  static Result<std::unique_ptr<Array>> assemble(const LevelTable& levels,
                                                 const std::vector<std::string>& paths,
                                                 const AssembleOptions& options = {});
  // How many times assemble() was called in this process (whatever the
  // outcome): tests assert that an open array is driven by one owner and
  // never assembled a second time.
  static uint64_t assemble_count();
  // Creates a new array on `paths`; validates every target first and writes
  // nothing unless all pass. Targets that are not new image files get md's
  // initial resync, started as a task (resync_task()).
  static Result<std::unique_ptr<Array>> create(const LevelTable& levels, const CreateOptions& options,
                                               const std::vector<std::string>& paths);
  // An array of emulated disks for the simulator: no devices, no
  // superblocks; member i is models[i] (null: missing).
  // `bitmap_chunk_bytes` (0: none) gives it a write-intent bitmap whose page
  // writes run on the context attach_bitmap_context() names.
  static Result<std::unique_ptr<Array>> simulated(const LevelTable& levels, const Shape& shape,
                                                  std::vector<std::shared_ptr<io::DeviceModel>> models,
                                                  uint32_t bitmap_chunk_bytes = 0);
  // Simulated arrays: the (virtual-time) context the bitmap's page writes
  // and daemon run on; called on that context's thread.
  void attach_bitmap_context(io::IoContext& context);
  // Simulated arrays: stops the daemon and drops the bitmap's port; call it
  // before the context attach_bitmap_context() named goes away.
  void detach_bitmap_context() { stop_bitmap(); }
  const WriteIntentBitmap* bitmap() const { return bitmap_.get(); }
  // Stops tasks and the metadata thread; writes the final state like close()
  // if close() was not called (errors then only go to the event log).
  ~Array() override;
  Array(const Array&) = delete;
  Array& operator=(const Array&) = delete;

  // ---- what it is ----
  const Shape& shape() const override { return shape_; }
  Personality& personality() { return *personality_; }
  const Personality& personality() const { return *personality_; }
  const LevelInfo& level() const { return *level_; }
  uint64_t size_bytes() const { return personality_->array_sectors() * kSectorBytes; }
  int raid_disks() const { return shape_.raid_disks; }
  bool simulated() const { return simulated_; }
  ondisk::Superblock superblock() const;  // the array's view (a copy)
  const std::vector<Rejected>& rejected() const { return rejected_; }

  // ---- state ----
  TableRef table() const { return table_.load(std::memory_order_acquire); }
  uint64_t table_version() const { return table_version_.load(std::memory_order_acquire); }
  SlotRuntime& runtime(int slot) override { return *runtime_[size_t(slot)]; }
  const SlotRuntime& runtime(int slot) const override { return *runtime_[size_t(slot)]; }
  int slot_of(const std::string& path) const;  // -1 if not a member (by identity, not only by path)
  std::string member_note(int slot) const;     // why a member is missing or faulty
  int working_members() const;
  bool degraded() const { return working_members() < raid_disks(); }
  // Some data still has a second copy (or parity) to compare with: false
  // when losing any one more working member would lose data, as on a
  // degraded RAID5 or a RAID1 down to one member.
  bool redundant() const;
  // Not cleanly stopped and not yet resynced: copies may differ from
  // resync_point() on.
  bool resync_pending() const { return resync_point() != ondisk::kMaxSector; }
  uint64_t resync_point() const override { return recovery_cp_.load(std::memory_order_acquire); }
  bool unsynced(uint64_t array_sector, uint64_t sectors) const override;
  std::string state_text() const;  // "clean", "active, degraded", "clean, resyncing (12%)", ...
  uint64_t mismatch_cnt() const { return mismatch_cnt_.load(std::memory_order_relaxed); }
  // Of the last check's mismatched pages, those with P and with Q wrong
  // (RAID6; both 0 on other levels), and the same in words ("" when none).
  uint64_t check_p_wrong_pages() const { return check_p_wrong_.load(std::memory_order_relaxed); }
  uint64_t check_q_wrong_pages() const { return check_q_wrong_.load(std::memory_order_relaxed); }
  std::string check_findings(bool repair) const;

  // ---- the live session ----
  telemetry::TunableRegistry& tunables() { return tunables_; }
  telemetry::EventLog& events() { return events_; }
  telemetry::LiveLatencySet& latencies() { return latencies_; }
  // Switches a member's emulated-disk model (null: none) by publishing a
  // new member table; `label` names it in events.
  Status set_member_model(int slot, std::shared_ptr<io::DeviceModel> model, const std::string& label);

  // ---- I/O ----
  // The smallest span array I/O may address: the level's unit or a member's
  // logical block size, whichever is larger. Array I/O off it (or past the
  // end) completes with -EINVAL; never rounded. `reason` says what sets it,
  // for messages.
  struct IoUnit {
    uint32_t bytes = 512;
    std::string reason;
  };
  static IoUnit io_unit(const Personality& p, const MemberTable& t);
  IoUnit io_unit() const { return io_unit(*personality_, *table()); }
  uint32_t io_unit_bytes() const { return io_unit().bytes; }
  // A backend over the current members for a context that will open an
  // ArrayPort, and why io_uring is not used, if it is not.
  io::RealBackend open_backend(unsigned depth) const;
  std::unique_ptr<io::Backend> make_backend(unsigned depth) const { return open_backend(depth).backend; }

  // ---- management (any thread that has no array I/O of its own in flight) ----
  // Marks a member faulty (mdadm --fail) and records it in the superblocks.
  Status fail_member(int slot, const std::string& reason);
  // Takes a failed member out of its slot (mdadm --remove): the device is
  // released and the slot is missing, ready for an add. Only a faulty
  // member (md refuses a working one as busy); this engine has no spares.
  Status remove_member(int slot);
  // Puts `path` in the first missing/faulty slot (or resumes its
  // interrupted rebuild) and starts rebuilding onto it as a task.
  Result<io::TaskHandle> start_add(const std::string& path, const AddOptions& options);
  // The same for several paths at once, each in the next missing slot, and
  // one task that rebuilds them all in one pass (md's recovery of every
  // spare it started with): each stripe is read once for all of them.
  // Refused, adding nothing, when there are more paths than missing slots.
  Result<io::TaskHandle> start_add(const std::vector<std::string>& paths, const AddOptions& options);
  // Refused (saying why) when the array has no redundancy left to compare.
  Status can_compare(bool repair) const;
  // Compares every copy / parity; with `repair` rewrites what differs.
  // mismatch_cnt() has the count when the task finishes.
  Result<io::TaskHandle> start_check(bool repair);
  // The running resync, if any.
  io::TaskHandle resync_task() const;
  // Starts md's resync from the resync point when one is pending and none
  // runs (an array assembled with resync off); null when there is none to do.
  io::TaskHandle start_resync();
  std::vector<RunningTask> running_tasks() const;
  // Fault injection for tests: called on a task's thread after every piece
  // of a resync, rebuild or check with the task's kind and bytes done, the
  // task paused meanwhile (a test copies the members there to make a crash,
  // or cancels at an exact point). Set before starting tasks.
  void set_piece_hook(std::function<void(const std::string& kind, uint64_t done_bytes)> hook) {
    piece_hook_ = std::move(hook);
  }
  // Returns once every unreadable block the I/O path met so far has been
  // rewritten (or found impossible to rewrite); close() does it too.
  void settle_read_fixes();
  int max_read_errors() const { return max_read_errors_.load(std::memory_order_relaxed); }
  // md's flush of the array (a REQ_PREFLUSH on the md device): every write
  // that completed before the call is on every member's media when it
  // returns. Any thread; the array's writes may go on meanwhile.
  Status flush();
  // Stops the tasks (a rebuild or resync records its checkpoint) and writes
  // the final state: clean with md's resync_offset (the resync point), or
  // nothing when nothing changed. The array stays usable for reads.
  Status close();

  // ---- ArrayCore (for personalities) ----
  const MemberTable& table(const ArrayIo& io) const override;
  void issue(ArrayIo& io, MemberChild& child, int slot) override;
  bool child_finished(MemberChild& child, int result) override;
  bool member_failed(ArrayIo& io, int slot, bool write, int result, uint64_t dev_sector) override;
  bool read_failed(ArrayIo& io, int slot, uint64_t dev_sector, uint64_t sectors, int result) override;
  Result<bool> correct_block(const MemberTable& table, int slot, uint64_t dev_sector, void* member_buf,
                             const void* good, uint64_t bytes, const std::string& from) override;
  void complete(ArrayIo& io, int result) override;
  Status read_member(const MemberTable& table, int slot, uint64_t dev_sector, void* buf,
                     uint64_t bytes) override;
  Status write_member(const MemberTable& table, int slot, uint64_t dev_sector, const void* buf,
                      uint64_t bytes) override;

  // ---- TelemetrySource ----
  std::vector<MemberReading> read_members() const override;
  telemetry::MemberCountersSnapshot read_array() const override;
  std::vector<telemetry::TaskSample> read_tasks() const override;
  std::vector<telemetry::Section> read_sections() const override;

 private:
  friend class ArrayPort;
  Array() = default;
  // Common construction: level, personality, per-slot state, tunables.
  Status init(const LevelTable& levels, const Shape& shape);
  // ---- assembling (array_assemble.cpp) ----
  Status place_members(const std::vector<MemberCandidate>& cands, const AssembleOptions& opt);
  Status take_sync_state(const std::vector<MemberCandidate>& cands, size_t fresh, const AssembleOptions& opt);
  Error dirty_degraded_refusal() const;
  void start_metadata();

  // The write gate, on the submitting context: false when `io` was parked
  // (dirty mark or barrier) and will be resubmitted by posting to its port.
  bool enter_write_gate(ArrayIo& io);
  void resubmit(ArrayIo& io);
  void finish_io(ArrayIo& io, int result);
  // A port's context lost its ring: an array event, once per port.
  void report_context_failure(ArrayPort& port);
  // A write failed because its ring failed, possibly after reaching some
  // members: the array is not clean until a resync (an event, once).
  void write_torn_by_ring();
  // The metadata thread's work: compose every member's superblock from the
  // current state, write and flush them, fail members that cannot take it.
  void sync_superblocks();
  // Publishes `t` as the current table (meta_mutex_ held).
  void publish(MemberTable t);
  // "role 4 (no member given for this role)": the members of `t` that are
  // not in sync, and why.
  std::string short_members(const MemberTable& t) const;
  std::vector<uint64_t> recovery_offsets() const;
  // Fails `slot` in a new table unless it would leave data without a copy;
  // schedules the superblock update; returns its epoch (0: not failed).
  std::optional<uint64_t> fail_locked(int slot, const std::string& reason);
  // fail_locked(), and when the member cannot be failed (it holds the last
  // copy of some data) an "error" event naming it (at most one a second).
  std::optional<uint64_t> fail_or_keep_locked(int slot, const std::string& reason);
  // ---- read errors (read_errors.cpp) ----
  void register_read_error_tunable();
  // Counts a read error of `slot` (meta_mutex_ held); past max_read_errors
  // fails it: returns the failure's superblock epoch, else nothing.
  std::optional<uint64_t> count_read_error_locked(int slot, uint64_t dev_sector, const std::string& why);
  void run_read_fix(const ReadFix& fix);
  void fail_during_correction(int slot, const std::string& reason);
  // Starts a superblock update (no-op without superblocks); returns its epoch.
  uint64_t request_sync();
  Status sync_now();  // request and wait
  void register_front_tunables();
  io::TaskHandle start_task(std::string kind, std::string target, std::function<Status(io::TaskState&)> body);
  Status maintenance_transfer(const MemberTable& t, int slot, bool write, uint64_t dev_sector, void* buf,
                              uint64_t bytes);
  // ---- the write-intent bitmap (array_bitmap.cpp) ----
  struct BitmapImage {
    BitmapLayout layout;
    ondisk::BitmapSuper sb;
    std::vector<uint8_t> bytes;  // superblock and bits, page-padded
  };
  // One member's bitmap as on disk, validated against the array.
  static Result<BitmapImage> read_bitmap(io::MemberDevice& dev, const ondisk::Superblock& sb,
                                         uint64_t sync_size);
  // The bitmap of an array being assembled (resync_point() already set).
  Status load_bitmap(const std::vector<MemberCandidate>& cands, size_t fresh);
  Status start_bitmap_thread();
  void register_bitmap_tunables();
  // The write gate's bitmap stage: false when the write waits for a page.
  bool bitmap_gate(ArrayIo& io);
  // On the bitmap context: write page `p` if it has undurable content.
  void write_bitmap_page(uint64_t p);
  // Bytes of page `p` a write to member `mem` (slot `m`) covers (at most
  // `fits` when sized to the member's io_opt).
  uint64_t bitmap_write_bytes(const Member& mem, int m, uint64_t p, uint64_t fits) const;
  static void bitmap_page_done(io::MemberIo& mio, int result);
  static void bitmap_daemon_tick(io::MemberIo& mio, int result);
  void arm_bitmap_daemon();
  std::vector<uint64_t> clear_clean_chunks(uint64_t idle_before_ns);
  void bitmap_daemon_pass();
  uint64_t bitmap_half_sleep_ns() const;
  Status flush_bitmap_for_close();
  // md's md_bitmap_update_sb, from the metadata thread before the members'
  // superblocks are written: the bitmap superblock (page 0) stamped with
  // the array's event count, on every writable member's media. Returns the
  // members that could not take it (only when written here, with no bitmap
  // thread running; the bitmap thread fails such a member itself).
  std::vector<std::pair<int, std::string>> write_bitmap_super();
  void stop_bitmap();
  bool may_clear_bits() const;
  Status run_resync(io::TaskState& task);
  // Puts `path` into a missing slot as a recovering member (or finds its
  // interrupted rebuild's slot): the slot.
  Result<int> attach_member(const std::string& path, const AddOptions& options);
  Status run_rebuild(io::TaskState& task, const std::vector<int>& slots);
  // One piece of the pass at `dev_sector` onto `targets` (those not past it yet).
  Status rebuild_at(const MemberTable& t, const std::vector<int>& targets, uint64_t dev_sector,
                    uint64_t& dev_sectors);
  Status run_check(io::TaskState& task, bool repair);
  void stop_tasks();

  // Attaches observer_ and faults_ (if any) to a member device the array opened.
  void observe(io::MemberDevice& dev) const {
    if (observer_) dev.set_observer(observer_);
    if (faults_) dev.set_faults(faults_);
  }

  const LevelInfo* level_ = nullptr;
  std::shared_ptr<io::WriteObserver> observer_;
  std::shared_ptr<io::FaultPlan> faults_;
  Shape shape_;
  bool simulated_ = false;
  bool read_only_ = false;
  std::unique_ptr<Personality> personality_;
  // Each port's own row of member counts (one column per slot, then the
  // array's), summed by the counters in runtime_ and array_counters_.
  std::unique_ptr<telemetry::CounterSlots> counter_slots_;
  std::vector<std::unique_ptr<SlotRuntime>> runtime_;
  std::vector<Rejected> rejected_;

  std::atomic<TableRef> table_;
  std::atomic<uint64_t> table_version_{0};

  // md's array state. dirty: marked active on disk (resync_offset 0) before
  // the first write; recovery_cp_: md's recovery_cp, the resync point.
  std::atomic<bool> dirty_{false};
  std::atomic<uint64_t> recovery_cp_{ondisk::kMaxSector};
  std::atomic<bool> torn_by_ring_{false};  // write_torn_by_ring(): never marked clean again
  std::atomic<uint64_t> mismatch_cnt_{0};
  std::atomic<uint64_t> check_p_wrong_{0}, check_q_wrong_{0};

  mutable std::mutex meta_mutex_;              // member changes, superblock image, notes
  std::vector<std::string> notes_;             // per slot: why missing/faulty
  ondisk::Superblock sb_;                      // the array's view: the freshest superblock
  std::vector<ondisk::Superblock> member_sb_;  // per slot: what its superblock says (dev_number, uuid...)
  std::vector<uint64_t> fail_epoch_;           // per slot: the update that records its failure
  std::vector<uint64_t> kept_error_ns_;  // per slot: when an error it was kept in after was last an event
  bool dirty_requested_ = false;         // the next sync marks the array active
  std::string last_sync_error_;          // members the last sync could not write
  uint64_t dirty_epoch_ = 0;
  std::unique_ptr<MetadataWriter> metadata_;
  ResyncBarrier barrier_;

  // Array-level counters (completed array I/Os), for the sampler: the
  // sum of the ports' last column.
  telemetry::MemberCounters array_counters_;

  telemetry::EventLog events_;
  telemetry::TunableRegistry tunables_{&events_};
  telemetry::LiveLatencySet latencies_;

  mutable std::mutex task_mutex_;
  std::vector<RunningTask> tasks_;
  std::vector<std::unique_ptr<io::ContextThread>> task_threads_;
  std::function<void(const std::string&, uint64_t)> piece_hook_;

  // The write-intent bitmap: its state, and the context its page writes and
  // daemon run on (a thread of its own, or the simulator's context).
  std::unique_ptr<WriteIntentBitmap> bitmap_;
  std::unique_ptr<io::ContextThread> bitmap_thread_;
  io::IoContext* bitmap_ctx_ = nullptr;
  std::unique_ptr<ArrayPort> bitmap_port_;  // on bitmap_ctx_
  struct BitmapPageIo : io::MemberIo {
    Array* array = nullptr;
    uint64_t page = 0;
  };
  struct PageWrite {  // bitmap_ctx_ only
    io::AlignedBuffer buf;
    std::vector<BitmapPageIo> ios;
    unsigned outstanding = 0;
    TableRef table;  // the members it was written to stay open until done
  };
  std::vector<PageWrite> page_writes_;
  BitmapPageIo daemon_timer_;  // the simulator's daemon
  std::thread daemon_thread_;  // real arrays' daemon
  std::mutex daemon_mutex_;
  std::condition_variable daemon_cv_;
  std::atomic<bool> bitmap_stopping_{false};
  // Whether bitmap_thread_ runs and takes page writes; held by the metadata
  // thread while it waits for one, so the thread is not stopped meanwhile.
  std::mutex bitmap_live_mutex_;
  bool bitmap_live_ = false;
  std::vector<uint8_t> resync_bits_;  // chunks a bitmap-driven resync covers; fixed while it runs

  std::atomic<int> max_read_errors_{kDefaultMaxReadErrors};
  // The I/O path's rewrites of unreadable blocks; last, so it stops first.
  std::unique_ptr<ReadFixQueue> read_fixes_;
};

}  // namespace rs::raid
