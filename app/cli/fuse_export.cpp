#include "fuse_export.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "args.hpp"

extern char** environ;

namespace rs::cli {

namespace {

const char* find_daemon() {
  for (const char* p : {"/usr/bin/qemu-storage-daemon", "/usr/local/bin/qemu-storage-daemon"})
    if (::access(p, X_OK) == 0) return p;
  return nullptr;
}

std::string nbd_blockdev(const nbd::ListenAddress& a, const std::string& name) {
  std::string server =
      a.kind == nbd::ListenAddress::Kind::unix_socket
          ? "server.type=unix,server.path=" + a.path
          : "server.type=inet,server.host=" + a.host + ",server.port=" + std::to_string(a.port);
  // The export name is ours (letters, digits, "-_."), so no comma needs escaping.
  return "driver=nbd,node-name=rs0," + server + ",export=" + name;
}

}  // namespace

FuseExport::FuseExport(const std::string& dir, const nbd::ListenAddress& address, const std::string& name,
                       uint64_t size, bool read_only) {
  const char* daemon = find_daemon();
  if (!daemon)
    throw RuntimeError(
        "--fuse needs qemu-storage-daemon (Debian package qemu-system-common), which exposes the export as a "
        "file; it is not installed");
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw UsageError("--fuse=" + dir + ": not a directory");
  file_ = dir + "/array";
  // The mount point of a FUSE file export is a regular file.
  if (::lstat(file_.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    throw UsageError(file_ + " exists and is not a regular file");
  if (const int fd = ::open(file_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600); fd >= 0) ::close(fd);
  const std::string blockdev = nbd_blockdev(address, name);
  const std::string exp =
      "type=fuse,id=rs0,node-name=rs0,mountpoint=" + file_ + ",writable=" + (read_only ? "off" : "on");
  std::vector<std::string> args = {daemon, "--blockdev", blockdev, "--export", exp};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  if (int rc = ::posix_spawn(&pid_, daemon, nullptr, nullptr, argv.data(), environ); rc != 0)
    throw RuntimeError(std::string("cannot start qemu-storage-daemon: ") + std::strerror(rc));
  // Mounted once the file shows the export's size.
  for (int i = 0; i < 200; ++i) {
    if (::stat(file_.c_str(), &st) == 0 && uint64_t(st.st_size) == size) return;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      throw RuntimeError("qemu-storage-daemon ended before " + file_ + " was mounted (its message is above)");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  stop();
  throw RuntimeError("qemu-storage-daemon did not mount " + file_ + " within 20 s");
}

FuseExport::~FuseExport() {
  stop();
}

void FuseExport::stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

}  // namespace rs::cli
