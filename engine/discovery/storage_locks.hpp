// Cross-process locks on the storage a member is built on
// (storage_stack.hpp), so that two engines never write the same storage,
// whatever names they reach it by: two loop devices over one file (also
// once the file is deleted), a loop device over another loop device, a
// whole disk and one of its partitions, a disk under device-mapper.
//
// Each claim is an open file description lock (F_OFD_SETLK: F_WRLCK for an
// exclusive claim, F_RDLCK for a shared one) on a lock file named by the
// storage's identity (StorageClaim::key) in the lock directory. OFD locks
// belong to the open file description: they conflict between processes and
// within one, and the kernel drops them when the descriptor closes, also
// when its process is killed, so a lock is never left behind.
//
// The lock directory is $RAIDSCOPE_LOCK_DIR when set (tests), else
// /run/lock/raidscope: made on first use with mode 1777 (as /run/lock, so
// every user's engines lock in one place), and used only when it is a
// real directory (not a symbolic link) owned by root or this user, and
// sticky when others may write it. Lock files are opened without following
// symbolic links, created with O_EXCL and mode 0666, and used only when
// they are regular files with one link; nothing is ever written to them.
// The last holder removes its lock file: it does so only while holding the
// file exclusively, and a locker whose file was removed meanwhile (its
// name no longer leads to the inode it locked) starts over.
#pragma once
#include <string>
#include <vector>

#include "base/result.hpp"
#include "base/unique_fd.hpp"
#include "discovery/storage_stack.hpp"
#include "discovery/system_roots.hpp"

namespace rs::discovery {

// The locks one member holds; released when this goes.
class StorageLocks {
 public:
  StorageLocks() = default;
  ~StorageLocks();
  StorageLocks(StorageLocks&& o) noexcept : held_(std::move(o.held_)) { o.held_.clear(); }
  StorageLocks& operator=(StorageLocks&& o) noexcept;
  StorageLocks(const StorageLocks&) = delete;
  StorageLocks& operator=(const StorageLocks&) = delete;

  // Takes every claim of `member`. Errors:
  //  - busy: a claim conflicts with one another engine holds (in this
  //    process or another): names the storage, the layers down to it and
  //    the processes holding its lock file;
  //  - unsupported: a lock could not be taken at all (the lock directory
  //    cannot be made or is not safe, a lock file is not one we made):
  //    says which and why.
  static Result<StorageLocks> take(const std::string& member, const std::vector<StorageClaim>& claims,
                                   const SystemRoots& roots = {});

 private:
  struct Held {
    UniqueFd fd;
    std::string path;
  };
  Status take_one(int dir_fd, const std::string& member, const StorageClaim& c, const SystemRoots& roots);
  void release();
  std::vector<Held> held_;
};

// The OFD lock (F_OFD_SETLK) on the whole of `fd`: shared (F_RDLCK) or
// exclusive (F_WRLCK); 0 or the errno (EAGAIN/EACCES: held elsewhere). A
// process that has just exited can hold a lock for a moment while the
// kernel tears its io_uring down: a conflict is retried for half a second.
int take_ofd_lock(int fd, bool shared);

// The lock directory (see above).
std::string storage_lock_dir();

}  // namespace rs::discovery
