// A member device: an image file, a loop device or a raw block device,
// opened so that no second engine can drive it, in this process or
// another: OFD write lock on image files, O_EXCL on block devices, and the
// storage locks of everything it is built on (discovery/storage_locks.hpp:
// a loop device's backing inode, also deleted, and what that is built on;
// a partition's disk; a device-mapper device's slaves), so engines on
// p.img, on a loop device over p.img, on a second loop device over it or
// on a loop device over that one exclude each other in any order. A member
// opened for writing that cannot be written (a read-only device, an
// immutable file, a read-only mount) is refused at open, naming the cause.
// O_DIRECT where the target takes it.
//
// Synchronous read_at/write_at are for metadata and bulk maintenance
// (superblocks, rebuild, check); the I/O path goes through a Backend.
#pragma once
#include <sys/stat.h>

#include <cstdint>
#include <memory>
#include <string>

#include "base/result.hpp"
#include "base/unique_fd.hpp"
#include "discovery/identity.hpp"
#include "discovery/storage_locks.hpp"
#include "io/device_model.hpp"
#include "io/write_observer.hpp"

namespace rs::io {

class FaultPlan;  // io/fault_backend.hpp

struct DeviceInfo {
  std::string path;
  bool block_device = false;
  uint64_t size_bytes = 0;
  uint32_t logical_block_size = 512;
  bool rotational = false;
  uint32_t io_opt = 0;      // bytes, 0 = device gives none
  bool direct = false;      // opened with O_DIRECT
  std::string direct_note;  // why O_DIRECT is off, when it is
  std::string lock_note;    // why the storage under it is not locked (only when forced past that)
};

enum class OpenMode { ReadOnly, ReadWrite };

class MemberDevice {
 public:
  // Opens `path`. ReadWrite refuses a member in use (discovery::
  // member_in_use: mounted, swap, held, or a file behind such a loop
  // device; never overridable), takes the exclusive lock (file) or O_EXCL
  // (block device) plus, for a loop device over a regular file, the lock on
  // that file. Errors name the path and the reason: Errc::busy (in use by
  // another process: "/dev/loop0 is a loop device over p.img, which another
  // process holds"; mounted, held), not_found, refused (no permission, a
  // read-only device or file, storage that cannot be locked),
  // invalid_argument (not a file or block device), io_error.
  static Result<std::unique_ptr<MemberDevice>> open(const std::string& path, OpenMode mode);
  // What ReadWrite does when the storage under a member cannot be
  // established or locked (storage_claims or StorageLocks fail for a
  // reason other than another engine): refuse, saying why and what --force
  // risks (the default), or open it anyway with info().lock_note saying it
  // is not protected. The front end sets it from its command's --force;
  // one setting for the process.
  static void allow_unprotected_storage(bool allow);
  ~MemberDevice();
  MemberDevice(const MemberDevice&) = delete;
  MemberDevice& operator=(const MemberDevice&) = delete;

  // A second open of the same file or device with its own file description
  // (its own offset, its own O_DIRECT setting), for one job's I/O: direct
  // false goes through the page cache. It takes no lock: this device's
  // locks already keep other processes out, and it must not outlive it.
  Result<std::unique_ptr<MemberDevice>> reopen(bool direct) const;

  int fd() const { return fd_.get(); }
  const DeviceInfo& info() const { return info_; }
  const std::string& path() const { return info_.path; }
  // What the path is (file inode, device number, loop backing), taken from
  // the descriptor at open: compare members with discovery::same_storage.
  const discovery::Identity& identity() const { return identity_; }
  uint64_t size_bytes() const { return info_.size_bytes; }
  // Alignment every I/O to this device must keep.
  uint32_t alignment() const { return info_.direct ? 4096 : 512; }

  // Synchronous I/O at any offset/length (bounce-buffered when unaligned for
  // O_DIRECT). Errc::io_error naming the device and offset on failure or a
  // short transfer.
  Status read_at(uint64_t offset, void* buf, size_t len);
  Status write_at(uint64_t offset, const void* buf, size_t len);
  // Makes every write completed before the call durable (fdatasync: an image
  // file's data, a block device's volatile cache).
  Status flush();

  // Optional: told about every write and flush that reaches this device
  // (write_observer.hpp). Set right after open(), before any I/O.
  void set_observer(std::shared_ptr<WriteObserver> observer) { observer_ = std::move(observer); }
  WriteObserver* observer() const { return observer_.get(); }
  // Optional, for tests: the faults read_at / write_at (and a FaultBackend
  // over this device) inject (io/fault_backend.hpp). Set right after open().
  void set_faults(std::shared_ptr<FaultPlan> faults) { faults_ = std::move(faults); }
  FaultPlan* faults() const { return faults_.get(); }

  // Optional emulated-disk model; completions on this member are held back
  // until it says the emulated disk is done.
  void set_model(std::shared_ptr<DeviceModel> model) { model_ = std::move(model); }
  DeviceModel* model() const { return model_.get(); }

 private:
  MemberDevice() = default;
  // The write locks open() promises: the file's own, or a loop device's
  // backing file's. Errc::busy naming the holder on conflict.
  Status lock_for_write();
  // The storage locks of everything the member is built on; busy on
  // conflict, refused when they cannot be taken and that is not allowed.
  Status lock_storage();
  // What open() checks and learns once the descriptor is open: not in use,
  // writable, locked (ReadWrite), and the size and queue properties.
  Status finish_open(const struct stat& st, OpenMode mode);
  Status transfer(bool write, uint64_t offset, uint8_t* buf, size_t len);
  Status transfer_raw(bool write, uint64_t offset, uint8_t* buf, size_t len);
  UniqueFd fd_;
  UniqueFd backing_lock_fd_;  // a loop device's backing file, holding the OFD lock
  discovery::StorageLocks storage_locks_;
  DeviceInfo info_;
  discovery::Identity identity_;
  std::shared_ptr<DeviceModel> model_;
  std::shared_ptr<WriteObserver> observer_;
  std::shared_ptr<FaultPlan> faults_;
};

// A buffer aligned for O_DIRECT, freed on destruction. Not cleared: pages
// nobody touches (the simulator moves no bytes) are never faulted in.
class AlignedBuffer {
 public:
  AlignedBuffer() = default;  // empty: data() null, size() 0
  // Errc::out_of_memory (naming the size) when the memory cannot be had.
  static Result<AlignedBuffer> allocate(size_t bytes, size_t alignment = 4096);
  ~AlignedBuffer();
  AlignedBuffer(AlignedBuffer&& o) noexcept : data_(o.data_), size_(o.size_) {
    o.data_ = nullptr;
    o.size_ = 0;
  }
  AlignedBuffer& operator=(AlignedBuffer&& o) noexcept;
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  AlignedBuffer(uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace rs::io
