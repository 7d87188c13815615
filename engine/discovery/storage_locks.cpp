#include "discovery/storage_locks.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "discovery/open_by.hpp"

namespace rs::discovery {

namespace {

Error cannot_lock(const std::string& what) {
  return make_error(Errc::unsupported, "cannot lock " + what);
}

// What is wrong with the lock directory or a lock file, for cannot_lock().
Error lock_problem(std::string what) {
  return make_error(Errc::unsupported, std::move(what));
}

// Opens the lock directory, making it if it is missing; the error says
// why it cannot be made or is not safe to use.
Result<UniqueFd> open_lock_dir() {
  const std::string dir = storage_lock_dir();
  if (::mkdir(dir.c_str(), 0700) == 0) {
    // Ours: open it up to every user's engines, as /run/lock is.
    if (::chmod(dir.c_str(), 01777) != 0) return lock_problem(dir + ": " + std::strerror(errno));
  } else if (errno != EEXIST) {
    return lock_problem(dir + ": cannot create it: " + std::strerror(errno));
  }
  UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0)
    return lock_problem(
        dir + ": " +
        (errno == ELOOP || errno == ENOTDIR ? "not a directory (a symbolic link?)" : std::strerror(errno)));
  const bool owner_ok = st.st_uid == 0 || st.st_uid == ::geteuid();
  const bool sticky_ok = !(st.st_mode & S_IWOTH) || (st.st_mode & S_ISVTX);
  if (!owner_ok || !sticky_ok)
    return lock_problem(dir + ": not a safe lock directory (" +
                        (owner_ok ? "others may write it and it is not sticky" : "owned by another user") +
                        ")");
  return fd;
}

// Opens (or makes) the lock file `name` in `dir_fd`; the error says why it
// cannot be, or that it is not one we would make.
Result<UniqueFd> open_lock_file(int dir_fd, const std::string& name) {
  UniqueFd fd;
  for (int attempt = 0; attempt < 3 && !fd; ++attempt) {
    // An existing file is opened without O_CREAT: the kernel's
    // protected_regular rule refuses O_CREAT on another user's file in a
    // sticky directory.
    fd.reset(::openat(dir_fd, name.c_str(), O_RDWR | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC));
    if (fd || errno != ENOENT) break;
    fd.reset(
        ::openat(dir_fd, name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0666));
    if (fd)
      ::fchmod(fd.get(), 0666);  // any user's engine may lock it too (umask aside)
    else if (errno != EEXIST)
      break;
  }
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0)
    return lock_problem(storage_lock_dir() + "/" + name + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode) || st.st_nlink != 1)
    return lock_problem(storage_lock_dir() + "/" + name +
                        ": not a lock file RaidScope made (not a regular file with one link)");
  return fd;
}

// Who holds the lock file open: its processes, or "another engine" when
// only this process has it (a second open here) or others are not visible.
std::string holders_of(int lock_fd, const SystemRoots& roots) {
  struct stat st {};
  if (::fstat(lock_fd, &st) != 0) return "another engine";
  Identity id;
  id.kind = Identity::Kind::file;
  id.dev = st.st_dev;
  id.ino = st.st_ino;
  const auto procs = processes_with_open(id, roots);
  return procs.empty() ? "another engine (in this process, or one not visible to it)"
                       : describe_processes(procs);
}

// What holds `c`, whose lock on `fd` was refused: "it is stored on
// /dev/loop6 -> /tmp/u.img (deleted); /tmp/u.img (deleted) is held by pid
// 4242 (raidscope-cli)". A whole disk and its partitions (or a device
// built on it) take the disk exclusively and shared: said so.
std::string conflict(const StorageClaim& c, int fd, const SystemRoots& roots) {
  struct flock lk {};
  lk.l_type = c.shared ? F_RDLCK : F_WRLCK;
  lk.l_whence = SEEK_SET;
  const bool held_shared = ::fcntl(fd, F_OFD_GETLK, &lk) == 0 && lk.l_type == F_RDLCK;
  const std::string who = holders_of(fd, roots);
  std::string text = c.chain == c.name ? std::string("it") : "it is stored on " + c.chain + "; " + c.name;
  if (c.shared)
    return text + " is held whole by " + who +
           " (a whole disk excludes its partitions and the devices built on it)";
  if (held_shared)
    return text + " is partly held by " + who +
           " (through a partition of it or a device built on it, which a "
           "whole disk excludes)";
  return text + " is held by " + who;
}

}  // namespace

Status StorageLocks::take_one(int dir_fd, const std::string& member, const StorageClaim& c,
                              const SystemRoots& roots) {
  const std::string name = c.key();
  for (int attempt = 0; attempt < 10; ++attempt) {
    auto opened = open_lock_file(dir_fd, name);
    if (!opened) return cannot_lock(member + " (" + c.chain + "): " + opened.error().message);
    const int fd = opened->get();
    held_.push_back({std::move(*opened), storage_lock_dir() + "/" + name});
    if (int err = take_ofd_lock(fd, c.shared); err != 0) {
      if (err != EAGAIN && err != EACCES)
        return cannot_lock(member + " (" + c.chain + "): " + std::strerror(err));
      return make_error(Errc::busy, member + ": in use by another process: " + conflict(c, fd, roots));
    }
    // Still the file its name leads to (its last holder may have removed
    // it between our open and our lock): else start over.
    struct stat mine {
    }, named{};
    if (::fstat(fd, &mine) == 0 && ::fstatat(dir_fd, name.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 &&
        mine.st_dev == named.st_dev && mine.st_ino == named.st_ino)
      return {};
    held_.pop_back();  // closes it
  }
  return cannot_lock(member + " (" + c.chain + "): " + storage_lock_dir() + "/" + name +
                     " keeps being replaced");
}

int take_ofd_lock(int fd, bool shared) {
  struct flock lk {};
  lk.l_type = shared ? F_RDLCK : F_WRLCK;
  lk.l_whence = SEEK_SET;
  int err = 0;
  for (int attempt = 0; attempt < 50; ++attempt) {
    if (::fcntl(fd, F_OFD_SETLK, &lk) == 0) return 0;
    err = errno;
    if (err != EAGAIN && err != EACCES) break;
    ::usleep(10000);
  }
  return err;
}

std::string storage_lock_dir() {
  const char* env = std::getenv("RAIDSCOPE_LOCK_DIR");
  return env && *env ? env : "/run/lock/raidscope";
}

// The last holder of a lock file removes it (tmpfs keeps every empty file
// until the next boot otherwise): only while it may hold it exclusively,
// so nobody else holds it, and a locker that opened it meanwhile finds its
// name gone and starts over (take).
void StorageLocks::release() {
  for (const Held& h : held_) {
    struct flock lk {};
    lk.l_type = F_WRLCK;
    lk.l_whence = SEEK_SET;
    struct stat mine {
    }, named{};
    if (::fcntl(h.fd.get(), F_OFD_SETLK, &lk) == 0 && ::fstat(h.fd.get(), &mine) == 0 &&
        ::lstat(h.path.c_str(), &named) == 0 && mine.st_dev == named.st_dev && mine.st_ino == named.st_ino)
      ::unlink(h.path.c_str());
  }
  held_.clear();  // closes them
}

StorageLocks::~StorageLocks() {
  release();
}

StorageLocks& StorageLocks::operator=(StorageLocks&& o) noexcept {
  if (this != &o) {
    release();
    held_ = std::move(o.held_);
    o.held_.clear();
  }
  return *this;
}

Result<StorageLocks> StorageLocks::take(const std::string& member, const std::vector<StorageClaim>& claims,
                                        const SystemRoots& roots) {
  auto dir = open_lock_dir();
  if (!dir) return cannot_lock(member + ": the lock directory " + dir.error().message);
  StorageLocks locks;
  for (const StorageClaim& c : claims)
    if (Status s = locks.take_one(dir->get(), member, c, roots); !s) return s.error();
  return locks;
}

}  // namespace rs::discovery
