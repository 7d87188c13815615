#include "write_input.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "cli_support.hpp"

namespace rs::cli {

WriteInput::WriteInput(uint64_t room) : room_(room) {
  struct stat st {};
  if (::fstat(0, &st) == 0 && S_ISREG(st.st_mode)) {
    const off_t pos = std::max<off_t>(::lseek(0, 0, SEEK_CUR), 0);
    regular_ = measured_ = true;
    known_ = uint64_t(std::max<off_t>(st.st_size - pos, 0));
    return;
  }
  // One byte more than fits is enough to know the data does not fit. The
  // buffer grows as data comes: a small input costs a small buffer.
  const size_t want = size_t(std::min<uint64_t>(room + 1, kReadAhead));
  constexpr size_t kStep = 1u << 20;
  while (ahead_.size() < want && !ended_ && error_.empty() && !interrupted_signal()) {
    const size_t had = ahead_.size();
    ahead_.resize(had + std::min(kStep, want - had));
    ahead_.resize(had + read_fully(ahead_.data() + had, ahead_.size() - had));
  }
  known_ = ahead_.size();
  measured_ = ended_ || known_ > room_;
}

size_t WriteInput::read_fully(uint8_t* buf, size_t len) {
  size_t got = 0;
  while (got < len && !ended_ && error_.empty() && !interrupted_signal()) {
    const ssize_t n = ::read(0, buf + got, len - got);
    if (n > 0)
      got += size_t(n);
    else if (n == 0)
      ended_ = true;
    else if (errno != EINTR)  // EINTR: the loop condition looks at the signal
      error_ = std::strerror(errno);
  }
  return got;
}

size_t WriteInput::next(uint8_t* buf, size_t len) {
  size_t out = 0;
  if (regular_) {
    out = read_fully(buf, size_t(std::min<uint64_t>(len, known_ - consumed_)));
  } else {
    out = std::min(len, ahead_.size() - ahead_pos_);
    if (out > 0) {  // once handed out, the read-ahead is freed (data() is then null)
      std::memcpy(buf, ahead_.data() + ahead_pos_, out);
      ahead_pos_ += out;
      if (ahead_pos_ == ahead_.size()) std::vector<uint8_t>().swap(ahead_), ahead_pos_ = 0;
    }
    if (out < len && !measured_) {
      const size_t more = read_fully(buf + out, len - out);
      out += more;
      known_ += more;
    }
  }
  consumed_ += out;
  return out;
}

}  // namespace rs::cli
