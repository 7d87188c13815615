// One array-level I/O and the member I/Os it becomes.
//
// The submitter owns an ArrayIo (one per queue slot), has the port prepare
// it once (ArrayPort::prepare sizes the personality's per-I/O state for the
// largest request it will carry, so submitting allocates nothing), then
// fills the request fields and calls ArrayPort::submit. `done` runs on the
// port's context thread.
#pragma once
#include <cstdint>
#include <memory>

#include "io/member_io.hpp"

namespace rs::raid {

class ArrayPort;
struct ArrayIo;
struct HeldTable;

// A personality's own per-I/O state (children, scratch), made by prepare().
struct PersonalityIo {
  virtual ~PersonalityIo() = default;
};

// One member I/O of an array I/O: the unit personalities issue through
// ArrayCore::issue(), which does the per-member accounting.
struct MemberChild : io::MemberIo {
  ArrayIo* parent = nullptr;
  uint64_t dev_sector = 0;  // data_offset-relative
  uint32_t sectors = 0;
  uint64_t array_sector = 0;
};

struct ArrayIo {
  // ---- the request (set by the submitter) ----
  bool write = false;
  // Bytes into the array and bytes: multiples of Array::io_unit_bytes()
  // (else the I/O fails with -EINVAL), length at most the prepared maximum.
  uint64_t offset = 0;
  uint32_t length = 0;
  void* buffer = nullptr;
  uint32_t job_id = 0;                              // the submitting job (btrfs's pid)
  void (*done)(ArrayIo& io, int result) = nullptr;  // result: length or -errno
  void* owner = nullptr;

  // ---- filled in on completion ----
  int served_by = -1;  // reads: the member that served the (last) piece

  // ---- private to the front and the personality ----
  ArrayPort* port = nullptr;
  HeldTable* held = nullptr;  // the member table this I/O holds until it completes
  uint64_t submit_ns = 0;
  int error = 0;
  // -errno of the port's ring when a member I/O of this request failed
  // because the ring failed (MemberIo::ring_failed): the request fails with
  // it, and no member is failed for it.
  int ring_error = 0;
  uint64_t metadata_epoch = 0;  // a superblock update that must be durable before completion
  enum class Gate : uint8_t { none, counted } barrier = Gate::none;  // counted: in the resync barrier's buckets
  // How far a write got through the front's gate (active mark, barrier,
  // write-intent bitmap), so a parked write resumes where it stopped.
  uint8_t gate_stage = 0;
  bool bitmap_counted = false;  // holds bitmap counters for [bitmap_lo, bitmap_hi)
  uint64_t bitmap_lo = 0, bitmap_hi = 0;
  // Bitmap pages (and their content epochs) to be durable before it may go.
  uint64_t bitmap_wait_page[2] = {}, bitmap_wait_epoch[2] = {};
  uint8_t bitmap_wait_n = 0, bitmap_wait_i = 0;
  std::unique_ptr<PersonalityIo> priv;
};

}  // namespace rs::raid
