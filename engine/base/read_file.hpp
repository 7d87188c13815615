// read_file(): the whole of a file as bytes, the one whole-file reader of
// the engine (job files, logs, profiles, scenarios, saved results, state
// files). A file that does not exist is not_found; one that cannot be
// opened otherwise (no permission) or read (a directory, an I/O error) is
// io_error; the message names the file and
// the system's reason, "PATH: cannot read: No such file or directory".
#pragma once
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "base/result.hpp"
#include "base/unique_fd.hpp"

namespace rs {

inline Result<std::string> read_file(const std::string& path) {
  const UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd)
    return make_error(errno == ENOENT ? Errc::not_found : Errc::io_error,
                      path + ": cannot read: " + std::strerror(errno));
  std::string text;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n == 0) return text;
    if (n < 0) {
      if (errno == EINTR) continue;
      return make_error(Errc::io_error, path + ": cannot read: " + std::strerror(errno));
    }
    text.append(buf, size_t(n));
  }
}

}  // namespace rs
