#include "discovery/open_by.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>

#include "discovery/sysfs_attr.hpp"

namespace rs::discovery {
namespace fs = std::filesystem;

namespace {

std::optional<int> pid_of(const std::string& name) {
  int pid = 0;
  auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), pid);
  if (ec != std::errc() || end != name.data() + name.size() || name.empty()) return std::nullopt;
  return pid;
}

bool reaches(const struct stat& st, const Identity& id) {
  Identity seen;
  if (S_ISBLK(st.st_mode)) {
    seen.kind = Identity::Kind::block_device;
    seen.rdev = st.st_rdev;
  } else if (S_ISREG(st.st_mode)) {
    seen.dev = st.st_dev;
    seen.ino = st.st_ino;
  } else {
    return false;
  }
  return same_storage(seen, id);
}

}  // namespace

std::vector<OpenBy> processes_with_open(const Identity& id, const SystemRoots& roots) {
  std::vector<OpenBy> found;
  const int self = int(::getpid());
  std::error_code ec;
  for (const auto& p : fs::directory_iterator(roots.proc, ec)) {
    const auto pid = pid_of(p.path().filename().string());
    if (!pid || *pid == self) continue;
    std::error_code ec2;
    for (const auto& fd : fs::directory_iterator(p.path() / "fd", ec2)) {
      struct stat st {};
      if (::stat(fd.path().c_str(), &st) != 0 || !reaches(st, id)) continue;
      found.push_back({*pid, read_attr(p.path() / "comm")});
      break;
    }
  }
  std::sort(found.begin(), found.end(), [](const OpenBy& a, const OpenBy& b) { return a.pid < b.pid; });
  return found;
}

std::string describe_processes(const std::vector<OpenBy>& procs) {
  std::string out;
  for (const auto& p : procs) out += (out.empty() ? "" : ", ") + std::to_string(p.pid) + " (" + p.command + ")";
  if (out.empty()) return out;
  return (procs.size() == 1 ? "pid " : "pids ") + out;
}

}  // namespace rs::discovery
