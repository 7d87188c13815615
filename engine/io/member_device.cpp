#include "io/member_device.hpp"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "discovery/in_use.hpp"
#include "discovery/loop_devices.hpp"
#include "discovery/open_by.hpp"
#include "discovery/privileges.hpp"
#include "discovery/queue_properties.hpp"
#include "discovery/udisks.hpp"
#include "discovery/writable.hpp"
#include "io/fault_backend.hpp"

namespace rs::io {
namespace {

std::string errno_text(int err) {
  return std::strerror(err);
}

// rotational and io_opt as discovery reads them: a loop device or an image
// file reports the disk its bytes live on (seeds 000, 001, 003 decide by these).
void fill_queue_info(const discovery::Identity& id, DeviceInfo& info) {
  if (auto q = discovery::member_queue_properties(id)) {
    info.rotational = q->rotational;
    info.io_opt = q->io_opt;
  }
}

// The OFD write lock on the whole of `fd` (discovery::take_ofd_lock): two
// engines in one process conflict too, and the lock dies with the
// descriptor.
int take_ofd_write_lock(int fd) {
  return discovery::take_ofd_lock(fd, false);
}

bool lock_conflict(int err) {
  return err == EAGAIN || err == EACCES;
}

// ", /dev/loop0 is a loop device over it" for each loop device over the
// file: the likely holder when its lock is taken.
std::string loops_over_hint(const discovery::Identity& file) {
  std::string hint;
  if (auto procs = discovery::processes_with_open(file); !procs.empty())
    hint += "; it is open by " + discovery::describe_processes(procs);
  for (const auto& user : discovery::loops_over(file))
    hint += "; " + user.loop.device_path + " is a loop device over it";
  return hint;
}

// A loop device's backing file, opened for its own OFD lock (the one an
// engine on the file takes) and checked to be the inode the kernel holds;
// none when it cannot be (a block device, a file renamed, deleted or
// read-only): the storage locks cover those.
UniqueFd open_backing_for_lock(const discovery::LoopBacking& b) {
  if (b.rdev || b.path.empty()) return {};
  UniqueFd fd(::open(b.path.c_str(), O_RDWR | O_CLOEXEC | O_NOCTTY));
  struct stat st {};
  if (fd && ::fstat(fd.get(), &st) == 0 && st.st_dev == b.dev && st.st_ino == b.ino) return fd;
  return {};
}

std::atomic<bool> g_allow_unprotected{false};

// Why opening `path` failed with a permission error or EROFS, by its real
// cause (a file opened for writing: immutable, read-only mount, mode); ""
// for other errors.
std::string open_denied(const std::string& path, bool blk, int err, OpenMode mode) {
  if (mode == OpenMode::ReadWrite && !blk && (err == EROFS || err == EPERM || err == EACCES))
    return discovery::file_not_writable_message(path, err);
  if (err == EACCES || err == EPERM) return discovery::missing_permission_message(path, err);
  return "";
}

}  // namespace

void MemberDevice::allow_unprotected_storage(bool allow) {
  g_allow_unprotected.store(allow, std::memory_order_relaxed);
}

Status MemberDevice::lock_storage() {
  auto claims = discovery::storage_claims(identity_);
  Result<discovery::StorageLocks> locks = claims ? discovery::StorageLocks::take(path(), *claims)
                                                 : Result<discovery::StorageLocks>(claims.error());
  if (locks) {
    storage_locks_ = std::move(*locks);
    return {};
  }
  const Error& e = locks.error();
  if (e.code == Errc::busy) return e;
  const std::string risk =
      "another engine reaching the same storage by another name (a second loop device, a partition, a disk "
      "under device-mapper) would not be excluded, and two engines writing the same blocks corrupt the array";
  if (g_allow_unprotected.load(std::memory_order_relaxed)) {
    info_.lock_note = e.message + "; used anyway (--force): " + risk;
    return {};
  }
  return make_error(Errc::refused, path() + ": refusing to write: " + e.message + "; " + risk +
                                       ". --force uses it anyway, at that risk");
}

Status MemberDevice::lock_for_write() {
  if (!info_.block_device) {
    if (int err = take_ofd_write_lock(fd()); err != 0) {
      if (lock_conflict(err))
        return make_error(Errc::busy, path() + ": in use by another process (it holds a lock on the file" +
                                          loops_over_hint(identity_) + ")");
      return make_error(Errc::refused, path() + ": cannot lock: " + errno_text(err));
    }
    return {};
  }
  if (!identity_.is_loop()) return {};  // O_EXCL is the guard
  const discovery::LoopBacking& b = *identity_.loop;
  backing_lock_fd_ = open_backing_for_lock(b);
  if (!backing_lock_fd_) return {};
  if (int err = take_ofd_write_lock(backing_lock_fd_.get()); err != 0) {
    if (!lock_conflict(err))
      return make_error(Errc::refused,
                        path() + ": cannot lock its backing file " + b.path + ": " + errno_text(err));
    const auto procs = discovery::processes_with_open(identity_);
    return make_error(Errc::busy,
                      path() + ": in use by another process: " + path() + " is a loop device over " + b.path +
                          ", which another process holds" +
                          (procs.empty() ? "" : " (" + discovery::describe_processes(procs) + ")"));
  }
  return {};
}

namespace {

// Why open(2) of a member failed with `err`, as the error open() returns.
Error open_error(const std::string& path, bool blk, int err, OpenMode mode) {
  if (std::string denied = open_denied(path, blk, err, mode); !denied.empty())
    return make_error(Errc::refused, denied);
  if (err != EBUSY)
    return make_error(err == ENOENT ? Errc::not_found : Errc::io_error, path + ": " + errno_text(err));
  std::string why = discovery::member_in_use(path);
  if (why.empty()) {
    // No kernel holder: another process opened it exclusively. Name it.
    if (auto id = discovery::identify(path); id.ok())
      if (auto procs = discovery::processes_with_open(*id); !procs.empty())
        why = "open by " + discovery::describe_processes(procs);
  }
  return make_error(Errc::busy,
                    path + ": " +
                        (why.empty() ? std::string("device is busy (mounted, held by md/dm, or open by "
                                                   "another process)")
                                     : "device is busy: " + why));
}

}  // namespace

Result<std::unique_ptr<MemberDevice>> MemberDevice::open(const std::string& path, OpenMode mode) {
  if (path.empty())
    return make_error(Errc::invalid_argument,
                      "an empty path ('') was given: it names no file or block device");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int err = errno;
    return make_error(err == ENOENT || err == ENOTDIR ? Errc::not_found : Errc::io_error,
                      path + ": " + errno_text(err));
  }
  const bool blk = S_ISBLK(st.st_mode);
  if (!blk && !S_ISREG(st.st_mode))
    return make_error(Errc::invalid_argument, path + ": not a regular file or block device");
  int flags = (mode == OpenMode::ReadWrite ? O_RDWR : O_RDONLY) | O_CLOEXEC;
  // O_EXCL on a block device fails with EBUSY while anything else (a mount,
  // md, another RaidScope) holds it: exactly the guard we want.
  if (blk && mode == OpenMode::ReadWrite) flags |= O_EXCL;

  auto dev = std::unique_ptr<MemberDevice>(new MemberDevice());
  dev->info_.path = path;
  dev->info_.block_device = blk;
  int fd = ::open(path.c_str(), flags | O_DIRECT);
  if (fd >= 0) {
    dev->info_.direct = true;
  } else if (errno == EINVAL) {
    // tmpfs and a few others refuse O_DIRECT: fall back and say so.
    fd = ::open(path.c_str(), flags);
    dev->info_.direct_note = "O_DIRECT not supported by the filesystem; using buffered I/O";
  }
  if (fd < 0 && blk && (errno == EACCES || errno == EPERM || errno == EROFS) && mode == OpenMode::ReadWrite &&
      discovery::block_device_read_only(st.st_rdev))
    return make_error(Errc::refused, discovery::read_only_device_message(path));
  if (fd < 0 && blk && (errno == EACCES || errno == EPERM)) {
    // Not ours to open: UDisks2 may open it for us (polkit decides).
    const int denied = errno;
    auto via = discovery::udisks_open_device(path, flags | O_DIRECT);
    if (via.fd < 0)
      return make_error(Errc::refused, discovery::missing_permission_message(path, denied, via.note));
    fd = via.fd;
    dev->info_.direct = true;
    dev->info_.direct_note.clear();
  }
  if (fd < 0) return open_error(path, blk, errno, mode);
  dev->fd_.reset(fd);
  if (Status s = dev->finish_open(st, mode); !s) return s.error();
  return dev;
}

Status MemberDevice::finish_open(const struct stat& st, OpenMode mode) {
  auto identity = discovery::identify_fd(fd(), path());
  if (!identity.ok()) return identity.error();
  identity_ = std::move(*identity);
  const bool blk = info_.block_device;
  if (mode == OpenMode::ReadWrite) {
    // Live data behind the member (a mount on a loop device over this file,
    // swap, a holder): never written, whatever the caller was told to force.
    if (std::string why = discovery::member_in_use(identity_); !why.empty())
      return make_error(Errc::busy, path() + ": in use: " + why);
    // The kernel lets a read-only block device be opened for writing and
    // fails every write: refuse it now, before anything is written.
    int read_only = 0;
    if (blk && ::ioctl(fd(), BLKROGET, &read_only) == 0 && read_only)
      return make_error(Errc::refused, discovery::read_only_device_message(path()));
    if (Status s = lock_for_write(); !s) return s;
    if (Status s = lock_storage(); !s) return s;
  }
  if (blk) {
    uint64_t bytes = 0;
    int lbs = 512;
    if (::ioctl(fd(), BLKGETSIZE64, &bytes) != 0)
      return make_error(Errc::io_error, path() + ": cannot read device size: " + errno_text(errno));
    ::ioctl(fd(), BLKSSZGET, &lbs);
    info_.size_bytes = bytes;
    info_.logical_block_size = uint32_t(lbs);
  } else {
    info_.size_bytes = uint64_t(st.st_size);
    info_.logical_block_size = 512;
  }
  // An image file or a loop device behaves like the disk it lives on.
  fill_queue_info(identity_, info_);
  return {};
}

Result<std::unique_ptr<MemberDevice>> MemberDevice::reopen(bool direct) const {
  const int access = ::fcntl(fd(), F_GETFL) & O_ACCMODE;
  const std::string self = "/proc/self/fd/" + std::to_string(fd());
  UniqueFd fd(::open(self.c_str(), access | O_CLOEXEC | O_NOCTTY | (direct ? O_DIRECT : 0)));
  if (!fd)
    return make_error(Errc::io_error, path() + ": cannot open again" +
                                          (direct ? " with O_DIRECT" : " for buffered I/O") + ": " +
                                          errno_text(errno));
  auto dev = std::unique_ptr<MemberDevice>(new MemberDevice());
  dev->fd_ = std::move(fd);
  dev->info_ = info_;
  dev->info_.direct = direct;
  dev->info_.direct_note = direct ? "" : "buffered I/O asked for";
  dev->identity_ = identity_;
  dev->model_ = model_;
  dev->observer_ = observer_;
  dev->faults_ = faults_;
  return dev;
}

MemberDevice::~MemberDevice() = default;

Status MemberDevice::read_at(uint64_t offset, void* buf, size_t len) {
  const uint64_t a = alignment();
  const bool aligned = offset % a == 0 && len % a == 0 && reinterpret_cast<uintptr_t>(buf) % a == 0;
  if (!aligned) {
    uint64_t start = offset / a * a, end = (offset + len + a - 1) / a * a;
    auto bounce = AlignedBuffer::allocate(end - start, a);
    if (!bounce) return bounce.error();
    if (Status s = read_at(start, bounce->data(), end - start); !s) return s;
    std::memcpy(buf, bounce->data() + (offset - start), len);
    return {};
  }
  return transfer(false, offset, static_cast<uint8_t*>(buf), len);
}

Status MemberDevice::write_at(uint64_t offset, const void* buf, size_t len) {
  const uint64_t a = alignment();
  const bool aligned = offset % a == 0 && len % a == 0 && reinterpret_cast<uintptr_t>(buf) % a == 0;
  if (!aligned) {
    uint64_t start = offset / a * a, end = (offset + len + a - 1) / a * a;
    auto bounce = AlignedBuffer::allocate(end - start, a);
    if (!bounce) return bounce.error();
    if (Status s = read_at(start, bounce->data(), end - start); !s) return s;
    std::memcpy(bounce->data() + (offset - start), buf, len);
    return write_at(start, bounce->data(), end - start);
  }
  return transfer(true, offset, const_cast<uint8_t*>(static_cast<const uint8_t*>(buf)), len);
}

// An aligned transfer; a write is told to the observer, if there is one,
// and an injected fault fails it without touching the device.
Status MemberDevice::transfer(bool write, uint64_t offset, uint8_t* buf, size_t len) {
  if (faults_)
    if (const int err = faults_->take(path(), write, offset, len); err != 0) {
      if (!write) std::memset(buf, FaultPlan::kPoison, len);
      return make_error(Errc::io_error, path() + ": " + (write ? "write" : "read") + " at " +
                                            std::to_string(offset) + " failed: " + errno_text(-err));
    }
  if (!write || !observer_) return transfer_raw(write, offset, buf, len);
  const uint64_t id = observer_->write_issued(path(), offset, buf, len, false);
  Status st = transfer_raw(true, offset, buf, len);
  observer_->write_completed(id, st ? int(len) : -EIO);
  return st;
}

// The aligned pread/pwrite loop both directions share: retries EINTR and
// short transfers, names the device and offset on failure.
Status MemberDevice::transfer_raw(bool write, uint64_t offset, uint8_t* buf, size_t len) {
  size_t done = 0;
  while (done < len) {
    ssize_t n = write ? ::pwrite(fd(), buf + done, len - done, off_t(offset + done))
                      : ::pread(fd(), buf + done, len - done, off_t(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      return make_error(Errc::io_error,
                        path() + ": " + (write ? "write" : "read") + " at " + std::to_string(offset + done) +
                            " failed: " + (n < 0 ? errno_text(errno) : std::string("end of device")));
    done += size_t(n);
  }
  return {};
}

Status MemberDevice::flush() {
  const uint64_t id = observer_ ? observer_->flush_started(path()) : 0;
  const bool ok = ::fdatasync(fd()) == 0;
  const int err = errno;
  if (observer_) observer_->flush_completed(id, ok);
  if (!ok) return make_error(Errc::io_error, path() + ": fdatasync failed: " + errno_text(err));
  return {};
}

Result<AlignedBuffer> AlignedBuffer::allocate(size_t bytes, size_t alignment) {
  void* p = nullptr;
  if (::posix_memalign(&p, alignment, bytes ? bytes : alignment) != 0)
    return make_error(Errc::out_of_memory, "cannot allocate a buffer of " + std::to_string(bytes) +
                                               " bytes aligned to " + std::to_string(alignment));
  return AlignedBuffer(static_cast<uint8_t*>(p), bytes);
}

AlignedBuffer::~AlignedBuffer() {
  std::free(data_);
}

AlignedBuffer& AlignedBuffer::operator=(AlignedBuffer&& o) noexcept {
  if (this != &o) {
    std::free(data_);
    data_ = o.data_;
    size_ = o.size_;
    o.data_ = nullptr;
    o.size_ = 0;
  }
  return *this;
}

}  // namespace rs::io
