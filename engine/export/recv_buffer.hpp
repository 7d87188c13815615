// What the reader (thread, or the I/O context's ring) has received from a client and not yet parsed.
// A client with many requests in flight sends many 28-byte headers at a
// time; one recv() takes all that is there, and the reader parses and hands
// on every complete request before it blocks again, rather than one recv()
// and one wake-up of the I/O context per request. A WRITE's payload beyond
// what is buffered is read straight into the request's own buffer.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

namespace rs::nbd {

class RecvBuffer {
 public:
  explicit RecvBuffer(size_t capacity);

  const uint8_t* data() const { return buf_.get() + begin_; }
  size_t size() const { return end_ - begin_; }
  void consume(size_t n) { begin_ += n; }
  // Blocks until at least `want` bytes (<= capacity) are buffered; false on
  // EOF, an error or a shutdown (what is buffered stays).
  bool fill(int fd, size_t want);
  // `n` bytes to `dst`: the buffered ones first, then straight from the
  // socket; false when the stream ends first.
  bool read_into(int fd, uint8_t* dst, size_t n);

  // For a receive done by someone else (the I/O context's ring): where the
  // next bytes go and how many fit (what is left is moved to the front
  // first), then produced(n) once they are there.
  uint8_t* tail();
  size_t room() const { return capacity_ - end_; }
  void produced(size_t n) { end_ += n; }
  // Takes up to `n` buffered bytes into `dst` (a WRITE's payload): how many.
  size_t take(uint8_t* dst, size_t n);

 private:
  void compact();
  std::unique_ptr<uint8_t[]> buf_;
  size_t capacity_;
  size_t begin_ = 0, end_ = 0;
};

}  // namespace rs::nbd
