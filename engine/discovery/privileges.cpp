#include "discovery/privileges.hpp"

#include <grp.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

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
  } else {
    msg += " (file owned by " + owner + ":" + group + ", mode " + mode_text(st.st_mode) +
           "); image files need no privileges, only write permission on the file: ask its owner, or use a file "
           "of your own";
  }
  return msg;
}

}  // namespace rs::discovery
