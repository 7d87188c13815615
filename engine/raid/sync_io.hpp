// Blocking array reads and writes of any offset and length, for the CLI and
// tests: an I/O context and an ArrayPort on the calling thread, up to 8
// pieces of 1 MiB in flight; unaligned edges are read-modify-written.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "io/context.hpp"
#include "raid/array.hpp"
#include "raid/array_port.hpp"

namespace rs::raid {

class SyncIo {
 public:
  explicit SyncIo(Array& array);
  ~SyncIo();
  // Errc::invalid_argument when the range runs past the array's end (checked
  // before anything moves); Errc::io_error when no copy could serve it.
  Status read(uint64_t offset, void* buf, size_t len);
  Status write(uint64_t offset, const void* buf, size_t len);
  std::string engine_note() const { return note_; }  // why io_uring is not used, if it is not

 private:
  Status check_range(const char* what, uint64_t offset, size_t len) const;
  Status run_aligned(bool write, uint64_t offset, uint8_t* buf, size_t len);

  Array& array_;
  std::string note_;
  std::unique_ptr<io::IoContext> ctx_;
  std::unique_ptr<ArrayPort> port_;
  // Kept between calls: a caller streaming many pieces allocates once.
  std::vector<uint8_t> staging_;
  std::vector<ArrayIo> ios_;
  io::AlignedBuffer bounce_;
};

}  // namespace rs::raid
