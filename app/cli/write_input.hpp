// The data `write` takes from standard input, measured before anything is
// written so that data which cannot fit is refused whole: a regular file by
// its size; a pipe or terminal by reading ahead (up to kReadAhead bytes, held
// in memory). A pipe that brings more than that, with more room than that
// left in the array, cannot be measured without holding all of it: it is
// streamed, and write says so if it then runs past the end.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rs::cli {

class WriteInput {
 public:
  static constexpr size_t kReadAhead = 32u << 20;

  // Measures standard input against `room` bytes (from the offset to the
  // end of the array). Stops early when a stop signal arrives.
  explicit WriteInput(uint64_t room);

  // The whole length is known (a regular file, or a pipe that ended within
  // the read-ahead or ran past `room` in it).
  bool measured() const { return measured_; }
  // Bytes known so far: the whole length when measured(), at most room + 1.
  uint64_t known() const { return known_; }
  bool fits() const { return known_ <= room_; }
  bool regular_file() const { return regular_; }

  // The next piece (at most `len` bytes) into `buf`; 0 at the end of the
  // data, or when reading failed (error()) or a stop signal arrived.
  size_t next(uint8_t* buf, size_t len);
  const std::string& error() const { return error_; }
  uint64_t consumed() const { return consumed_; }  // bytes handed out by next()

 private:
  // read(2) until `len` bytes, the end of input, an error or a signal.
  size_t read_fully(uint8_t* buf, size_t len);

  uint64_t room_;
  bool regular_ = false;
  bool measured_ = false;
  bool ended_ = false;  // standard input reached its end
  uint64_t known_ = 0;
  uint64_t consumed_ = 0;
  std::vector<uint8_t> ahead_;  // read ahead, not yet handed out
  size_t ahead_pos_ = 0;
  std::string error_;
};

}  // namespace rs::cli
