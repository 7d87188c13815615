// UniqueFd: owns one file descriptor and closes it when it goes, so no path
// out of a function (an early return, an error) leaks one, and no code
// spells ::close() itself.
//
// close_checked() is for the few places where the close's own result
// matters (a file written and fsynced: NFS may report a lost write only at
// close); everywhere else the destructor's close is enough.
#pragma once
#include <unistd.h>

#include <cerrno>
#include <utility>

namespace rs {

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  ~UniqueFd() { reset(); }
  UniqueFd(UniqueFd&& o) noexcept : fd_(o.release()) {}
  UniqueFd& operator=(UniqueFd&& o) noexcept {
    if (this != &o) reset(o.release());
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  explicit operator bool() const { return valid(); }

  // Closes what it holds (if anything) and takes `fd`.
  void reset(int fd = -1) {
    if (fd_ >= 0 && fd_ != fd) ::close(fd_);
    fd_ = fd;
  }
  // Gives the descriptor up without closing it.
  int release() { return std::exchange(fd_, -1); }
  // Closes now and returns 0, or -errno when close() reported an error
  // (the descriptor is gone either way, as close(2) says).
  int close_checked() {
    if (fd_ < 0) return 0;
    const int rc = ::close(std::exchange(fd_, -1));
    return rc == 0 ? 0 : -errno;
  }

 private:
  int fd_ = -1;
};

}  // namespace rs
