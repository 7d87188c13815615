#include "export/recv_buffer.hpp"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include "export/socket_io.hpp"

namespace rs::nbd {

RecvBuffer::RecvBuffer(size_t capacity) : buf_(new uint8_t[capacity]), capacity_(capacity) {}

bool RecvBuffer::fill(int fd, size_t want) {
  if (capacity_ - begin_ < want) compact();
  while (size() < want) {
    const ssize_t got = ::recv(fd, buf_.get() + end_, capacity_ - end_, 0);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    end_ += size_t(got);
  }
  return true;
}

bool RecvBuffer::read_into(int fd, uint8_t* dst, size_t n) {
  const size_t have = take(dst, n);
  return read_exact(fd, dst + have, n - have);
}

size_t RecvBuffer::take(uint8_t* dst, size_t n) {
  const size_t have = n < size() ? n : size();
  std::memcpy(dst, data(), have);
  consume(have);
  if (size() == 0) begin_ = end_ = 0;
  return have;
}

uint8_t* RecvBuffer::tail() {
  if (begin_ > 0) compact();
  return buf_.get() + end_;
}

void RecvBuffer::compact() {  // what is left moves to the front
  std::memmove(buf_.get(), buf_.get() + begin_, size());
  end_ -= begin_;
  begin_ = 0;
}

}  // namespace rs::nbd
