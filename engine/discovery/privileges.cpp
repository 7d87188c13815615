#include "discovery/privileges.hpp"

#include <fcntl.h>
#include <grp.h>
#include <linux/fs.h>
#include <pwd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "base/unique_fd.hpp"

namespace rs::discovery {

bool can_see_other_processes() {
  return ::geteuid() == 0;
}

std::string limited_view_note() {
  return "not running as root: devices you cannot read show 'contents unknown', and processes of other "
         "users that hold a device are not seen (run with sudo for the full picture)";
}

namespace {

std::string group_name(gid_t gid) {
  if (const group* g = ::getgrgid(gid)) return g->gr_name;
  return std::to_string(gid);
}

std::string user_name(uid_t uid) {
  if (const passwd* p = ::getpwuid(uid)) return p->pw_name;
  return std::to_string(uid);
}

std::string mode_text(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", unsigned(mode & 07777));
  return buf;
}

// The file's immutable or append-only attribute (chattr +i / +a), which
// refuse a write to everyone, root included, whatever the mode says; "" if
// neither is set or the attributes cannot be read.
std::string write_blocking_attribute(const std::string& path) {
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (!fd) return "";
  int flags = 0;
  const bool got = ::ioctl(fd.get(), FS_IOC_GETFLAGS, &flags) == 0;
  if (got && (flags & FS_IMMUTABLE_FL))
    return "the file is immutable (chattr +i): nobody may write to it, root included; if it is meant to be a "
           "member, clear the attribute with: chattr -i " +
           path;
  if (got && (flags & FS_APPEND_FL))
    return "the file is append-only (chattr +a): it cannot be written in place, root included; if it is "
           "meant to be a member, clear the attribute with: chattr -a " +
           path;
  return "";
}

}  // namespace

std::string missing_permission_message(const std::string& path, int err, const std::string& udisks_note) {
  std::string msg = path + ": " + std::strerror(err);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return msg;
  const std::string owner = user_name(st.st_uid), group = group_name(st.st_gid);
  if (S_ISBLK(st.st_mode)) {
    msg += " (block device owned by " + owner + ":" + group + ", mode " + mode_text(st.st_mode) + ")";
    if (!udisks_note.empty()) msg += "; " + udisks_note;
    msg += "; to use it, add yourself to group '" + group + "' (sudo usermod -aG " + group +
           " $USER, then log in again) or run raidscope-cli with sudo";
  } else if (std::string attr = write_blocking_attribute(path); !attr.empty()) {
    msg += ": " + attr;
  } else {
    msg +=
        " (file owned by " + owner + ":" + group + ", mode " + mode_text(st.st_mode) +
        "); image files need no privileges, only write permission on the file: ask its owner, or use a file "
        "of your own";
  }
  return msg;
}

}  // namespace rs::discovery
