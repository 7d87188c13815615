// An assembled (or freshly created) md-compatible RAID1/RAID10 array: its
// members, their states, the superblocks, and the I/O path.
//
// Thread model: submit() may be called from several submitting contexts at
// once, each with its own Backend; member state used by the read policies is
// atomic. Metadata changes (member failure, rebuild checkpoints, dirty/clean)
// are serialised by one mutex and are off the I/O fast path.
#pragma once
#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "balance/policy.hpp"
#include "io/backend.hpp"
#include "io/member_device.hpp"
#include "ondisk/superblock.hpp"
#include "raid/geometry.hpp"
#include "telemetry/member_counters.hpp"

namespace rs::raid {

enum class SlotState : int { Missing = 0, InSync = 1, Recovering = 2, Faulty = 3 };
const char* slot_state_name(SlotState s);

struct Slot {
  std::unique_ptr<io::MemberDevice> dev;  // null when missing
  ondisk::Superblock sb;                  // this member's superblock as last read/written
  std::atomic<int> state{int(SlotState::Missing)};
  std::atomic<uint64_t> recovery_offset{0};  // device sectors already rebuilt (Recovering)
  // md's read-balance state for this mirror.
  std::atomic<uint64_t> next_seq_sect{0};
  std::atomic<uint64_t> seq_start{balance::kMaxSector};
  std::atomic<bool> write_mostly{false};
  std::atomic<uint32_t> io_opt_override{0};  // bytes, 0: use the device's
  telemetry::MemberCounters counters;
  std::string note;  // why it is missing/faulty, for `detail`

  std::shared_ptr<io::DeviceModel> sim_model;  // simulated arrays: the emulated disk, no device

  SlotState st() const { return SlotState(state.load(std::memory_order_acquire)); }
  bool present() const { return dev || sim_model; }
  // What the read policies see: the attached model's figures when there is one.
  bool rotational() const {
    if (sim_model) return sim_model->rotational();
    return dev && (dev->model() ? dev->model()->rotational() : dev->info().rotational);
  }
  uint32_t io_opt() const {
    if (uint32_t o = io_opt_override.load(std::memory_order_relaxed)) return o;
    if (sim_model) return sim_model->io_opt();
    return dev ? (dev->model() ? dev->model()->io_opt() : dev->info().io_opt) : 0;
  }
  std::string name() const { return dev ? dev->path() : sim_model ? "sim" : "-"; }
};

// A member that was given but could not take part (stale, marked faulty...).
struct Rejected {
  std::string path;
  std::string reason;
};

// One array-level I/O. Prepared once (Array::prepare) so submit() allocates
// nothing; the child member I/Os live inside it.
struct ArrayIo {
  bool write = false;
  uint64_t offset = 0;  // bytes into the array, 4 KiB aligned
  uint32_t length = 0;  // bytes, multiple of 4 KiB
  void* buffer = nullptr;
  uint32_t job_id = 0;
  void (*done)(ArrayIo& io, int result) = nullptr;  // result: length or -errno
  void* owner = nullptr;

  // --- private to Array ---
  struct Child : io::MemberIo {
    ArrayIo* parent = nullptr;
    uint64_t array_sector = 0;
    uint64_t dev_sector = 0;  // data_offset-relative
    uint32_t sectors = 0;
    uint16_t segment = 0;
    uint32_t tried = 0;  // reads: slots already tried (bit per slot)
  };
  std::vector<Child> children;
  std::vector<uint8_t> segment_ok;  // writes: copies that succeeded per segment
  unsigned outstanding = 0;
  int error = 0;
  io::Backend* backend = nullptr;
  // Writes and the resync barrier (see Array::enter_barrier).
  enum class Barrier : uint8_t { none, counted, registered } barrier = Barrier::none;
  Child retry;  // the timer that tries a write held at the barrier again
};

struct CreateOptions {
  int level = 1;
  int raid_disks = 0;
  uint32_t layout = 0x102;  // raid10 n2
  uint32_t chunk_bytes = 512 * 1024;
  std::string name;
  bool force = false;               // overwrite signatures / existing arrays
  uint64_t create_files_bytes = 0;  // create missing image files of this size
};

struct Progress {
  uint64_t done_bytes = 0, total_bytes = 0;
};
using ProgressFn = std::function<void(const Progress&)>;

class Array {
 public:
  // Assembles from the given members (the array is the set given). Fails
  // with a message naming the member and the reason.
  static std::unique_ptr<Array> assemble(const std::vector<std::string>& paths, std::string* error);
  // For `add`: when `target` is this array's member part way through a
  // rebuild (its superblock has md's recovery_offset and is up to date), the
  // array is assembled with it, so add_member(target) resumes from the last
  // checkpoint; otherwise `members` alone are assembled and the rebuild
  // starts over.
  static std::unique_ptr<Array> assemble_for_add(const std::vector<std::string>& members,
                                                 const std::string& target, std::string* error);
  // Creates a new array on `paths`: validates every target first and writes
  // nothing unless all pass (see create.cpp for the checks).
  static std::unique_ptr<Array> create(const CreateOptions& opts, const std::vector<std::string>& paths,
                                       ProgressFn progress, std::string* error);
  // An array of emulated disks for the simulator: no devices, no
  // superblocks on disk; member i is models[i] (backend member index i).
  static std::unique_ptr<Array> simulated(const Geometry& geometry,
                                          std::vector<std::shared_ptr<io::DeviceModel>> models);
  ~Array();

  const Geometry& geometry() const { return geo_; }
  const ondisk::Superblock& superblock() const { return sb_; }
  uint64_t size_bytes() const { return geo_.array_sectors() * kSectorBytes; }
  int raid_disks() const { return geo_.raid_disks; }
  Slot& slot(int i) { return *slots_[size_t(i)]; }
  const Slot& slot(int i) const { return *slots_[size_t(i)]; }
  const std::vector<Rejected>& rejected() const { return rejected_; }
  std::vector<io::MemberDevice*> devices() const;  // per slot, null when missing
  int working_members() const;
  bool degraded() const { return working_members() < raid_disks(); }
  // Not cleanly stopped: copies may differ until `repair` (md's resync) runs.
  bool needs_resync() const { return resync_needed_.load(std::memory_order_relaxed); }
  std::string state_text() const;  // "clean", "clean, degraded", "active, recovering" ...

  // Read policy, switchable while I/O runs.
  void set_policy(balance::PolicyId p) { policy_.store(int(p), std::memory_order_relaxed); }
  balance::PolicyId policy() const { return balance::PolicyId(policy_.load(std::memory_order_relaxed)); }
  bool set_tunables(const balance::Tunables& t, std::string* error);
  balance::Tunables tunables() const;
  balance::PolicyState& policy_state() { return policy_state_; }

  // --- I/O path ---
  std::unique_ptr<io::Backend> make_backend(unsigned depth, std::string* note = nullptr);
  void prepare(ArrayIo& io, uint32_t max_length) const;
  void submit(ArrayIo& io, io::Backend& backend);

  // Blocking helpers for the CLI: any offset and length (unaligned edges are
  // read-modify-written). Return false with *error set.
  bool read(uint64_t offset, void* buf, size_t len, std::string* error);
  bool write(uint64_t offset, const void* buf, size_t len, std::string* error);

  // --- management ---
  // Marks a member faulty (as md does on an I/O error or `mdadm --fail`) and
  // records it in the other members' superblocks.
  bool fail_member(int slot, const std::string& reason, std::string* error);
  int slot_of(const std::string& path) const;  // -1 if not a member
  // Adds `path` in the first missing/faulty slot and rebuilds onto it.
  // Writes from other threads may run meanwhile (the resync barrier keeps
  // them and the copy apart); the calling thread must not have array writes
  // of its own in flight, as the rebuild waits for them.
  bool add_member(const std::string& path, bool force, uint64_t create_bytes, ProgressFn progress,
                  std::string* error);
  // Compares all in-sync copies; with `repair`, rewrites mismatching copies
  // from the first one. Returns mismatched sectors (md's mismatch_cnt).
  std::optional<uint64_t> check(bool repair, ProgressFn progress, std::string* error);
  // Marks the array clean in every superblock (called on a clean stop).
  bool close(std::string* error);

 private:
  Array() = default;
  friend struct ArrayBuilder;
  bool write_superblocks(std::string* error);  // caller holds meta_mutex_
  bool has_all_data() const;                   // every sector has an in-sync copy
  bool mark_dirty();                           // first write after assemble
  void on_member_error(int slot, bool write, int result, uint64_t dev_sector);
  void update_backend(io::Backend& backend);
  bool enter_barrier(ArrayIo& io, io::Backend& backend);
  void leave_barrier(ArrayIo& io);
  static void retry_done(io::MemberIo& mio, int result);
  // The rebuild's side of the barrier, for one piece: holds new writes to
  // array sectors [lo, hi) and waits until none in flight touches them; the
  // writes go through again when it goes.
  struct BarrierPiece {
    BarrierPiece(Array& a, uint64_t lo, uint64_t hi);
    ~BarrierPiece();
    Array& array;
  };
  // Makes writes take part in the barrier for its lifetime, after waiting
  // for the writes already running outside it to finish.
  struct BarrierScope {
    explicit BarrierScope(Array& a);
    ~BarrierScope();
    Array& array;
  };
  void issue_read(ArrayIo::Child& c);
  static void child_done(io::MemberIo& mio, int result);
  void finish_child(ArrayIo& io);
  bool copy_range(int from_slot, int to_slot, uint64_t dev_sector_from, uint64_t dev_sector_to,
                  uint32_t sectors, std::vector<uint8_t>& scratch, std::string* error);

  Geometry geo_;
  ondisk::Superblock sb_;  // the array's view (freshest member's superblock)
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<Rejected> rejected_;
  std::atomic<int> policy_{int(balance::PolicyId::MdLegacy)};
  balance::PolicyState policy_state_;
  std::atomic<uint32_t> min_contig_read_{256 * 1024}, rot_round_down_{8}, nonrot_round_down_{2};
  std::atomic<bool> dirty_{false};
  std::atomic<bool> resync_needed_{false};
  std::atomic<bool> metadata_changed_{false};
  std::mutex meta_mutex_;
  // Member replacements so far (add_member): a backend made earlier brings
  // its member table up to date at its next submit(). Replaced devices stay
  // open here until the array goes, as backends may still point at them.
  std::atomic<uint64_t> members_version_{0};
  std::vector<std::unique_ptr<io::MemberDevice>> retired_;  // under meta_mutex_

  // md's resync barrier, in user space: while add_member rebuilds (or check
  // runs), writes
  // register here and a write to the piece being copied waits (on a backend
  // timer, never blocking its thread) until the copy is done; the copy waits
  // for registered writes to that piece to finish. Outside a rebuild a write
  // only counts itself in unregistered_writes_ (the rebuild waits for those
  // to drain before its first piece).
  std::atomic<int> barrier_users_{0};
  std::atomic<int64_t> unregistered_writes_{0};
  std::mutex barrier_mutex_;
  std::condition_variable barrier_cv_;
  uint64_t barrier_lo_ = 0, barrier_hi_ = 0;    // array sectors held; empty when equal
  std::vector<const ArrayIo*> barrier_writes_;  // registered writes in flight
};

}  // namespace rs::raid
