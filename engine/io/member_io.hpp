// One I/O to one member device: the unit every backend executes.
//
// The submitter owns the MemberIo (preallocated; nothing is allocated per
// I/O) and keeps it alive until `done` has been called. `done` runs on the
// thread that calls Backend::reap(); it may queue further I/O.
#pragma once
#include <cstdint>

namespace rs::io {

class DeviceModel;
struct MemberIo;
using IoDoneFn = void (*)(MemberIo& io, int result);  // result: bytes done or -errno

struct MemberIo {
  int member = -1;  // index into the backend's member table
  bool write = false;
  uint64_t offset = 0;     // bytes from the start of the member device
  uint32_t length = 0;     // bytes
  void* buffer = nullptr;  // aligned to the member's logical block size for O_DIRECT
  IoDoneFn done = nullptr;
  void* owner = nullptr;  // the submitter's context, for `done`
  uint64_t tag = 0;       // free for the submitter (e.g. copy index)
  uint16_t ioprio = 0;    // Linux I/O priority (class << 13 | level) for io_uring's sqe; 0: the thread's
  // A write that is on the media when it completes (RWF_DSYNC: O_DSYNC on
  // an image file, FUA on a block device), for metadata that must be
  // durable before the I/O it guards is issued (write-intent bitmap pages).
  bool dsync = false;
  // Set by the backend when it completed this I/O with an error of its own
  // (its ring failed: Backend::failed()), not the device's: the member is
  // not to blame. Cleared by the array front when it issues the I/O.
  bool ring_failed = false;
  uint64_t due_ns = 0;  // backend-private: when an emulated disk completes it
  // Set by the submitter: the emulated disk this I/O runs on (the array
  // takes it from its member table); null: the device's own, if any.
  DeviceModel* emulated = nullptr;
  // Backend-private: the emulated disk the I/O was scheduled on, taken at
  // queue() time. Completions use this, never the backend's member table,
  // which replace_member() may change (even to null) while it is in flight.
  DeviceModel* model = nullptr;
};

}  // namespace rs::io
