// What the array front offers a personality: the member table an I/O holds,
// issuing member I/O with the per-member accounting, failing a member when
// its I/O fails, completing an array I/O, and synchronous member I/O for
// maintenance pieces. Implemented by Array.
#pragma once
#include <cstdint>
#include <string>

#include "base/result.hpp"
#include "raid/array_io.hpp"
#include "raid/member_table.hpp"
#include "raid/personality.hpp"

namespace rs::raid {

class ArrayCore {
 public:
  virtual ~ArrayCore() = default;
  virtual const Shape& shape() const = 0;
  virtual SlotRuntime& runtime(int slot) = 0;
  virtual const SlotRuntime& runtime(int slot) const = 0;

  // ---- I/O path: the io's port context thread ----
  // The member table `io` holds from submit to completion.
  virtual const MemberTable& table(const ArrayIo& io) const = 0;
  // Queues `child` to member `slot` on the io's backend, with the member's
  // device and model from the io's table; counts it pending. The child's
  // done callback must call child_finished() first.
  virtual void issue(ArrayIo& io, MemberChild& child, int slot) = 0;
  // Per-member accounting of a finished child (pending, counters, head
  // position). Returns true when the transfer was complete.
  virtual bool child_finished(MemberChild& child, int result) = 0;
  // A member I/O of `io` failed: the member is failed as md does (a new
  // member table is published and the superblocks are updated off this
  // thread; `io` completes only once that update is durable). Returns false
  // when the member was not failed because it holds the last copy of some
  // data (the personality then fails the request).
  virtual bool member_failed(ArrayIo& io, int slot, bool write, int result, uint64_t dev_sector) = 0;
  // A member read of `io` over device sectors [dev_sector, +sectors)
  // failed (md's read-error correction, raid/read_errors.hpp): counted
  // against the member; past the array's max_read_errors it is failed as
  // member_failed() does (returns true). Otherwise it stays (false): the
  // personality serves the read from another copy or the stripe's parity,
  // and the block is rewritten off this thread (Personality::fix_read_error).
  virtual bool read_failed(ArrayIo& io, int slot, uint64_t dev_sector, uint64_t sectors, int result) = 0;
  // Finishes `io` with `result` (bytes or -errno): leaves the write gate,
  // records the array counters and latency, runs io.done.
  virtual void complete(ArrayIo& io, int result) = 0;
  // Array sectors at or beyond this point may differ between copies (md's
  // recovery_cp during a resync; ~0 when the array is in sync): reads there
  // follow md's rule and use the first in-sync copy.
  virtual uint64_t resync_point() const = 0;
  // Whether [array_sector, +sectors) may not be in sync yet: beyond the
  // resync point and, with a write-intent bitmap, in a chunk the resync
  // still covers. md's rules for such a region: a read uses the first
  // in-sync copy (so readers agree), and a RAID5 write there reconstructs
  // parity from all the data (rcw), never read-modify-writes it.
  virtual bool unsynced(uint64_t array_sector, uint64_t sectors) const = 0;

  // ---- maintenance: a task's thread ----
  // Synchronous transfer of whole sectors of a member's data area. A write
  // that fails fails the member; a read that fails is a read error as in
  // read_failed() (the member is failed only past the threshold): the
  // caller gets the data elsewhere and hands it to correct_block().
  virtual Status read_member(const MemberTable& table, int slot, uint64_t dev_sector, void* buf,
                             uint64_t bytes) = 0;
  // Member `slot` could not read [dev_sector, +bytes); `good` is what it
  // must hold (another copy, or the XOR of the rest of the stripe; `from`
  // names it for messages: "member /dev/sdb"). Each 4 KiB page is read
  // again; one that still fails is written from `good` and read back, as
  // md's fix_read_error, and counted (md's corrected_errors, in sectors)
  // with a "corrected" event. `member_buf` receives the member's bytes.
  // Returns false when the member is out (failed before, or for a write or
  // read-back error now, as md fails it) or the array is read-only, so its
  // bytes are not to be used.
  virtual Result<bool> correct_block(const MemberTable& table, int slot, uint64_t dev_sector, void* member_buf,
                                     const void* good, uint64_t bytes, const std::string& from) = 0;
  virtual Status write_member(const MemberTable& table, int slot, uint64_t dev_sector, const void* buf,
                              uint64_t bytes) = 0;
};

}  // namespace rs::raid
