// Request buffers kept for reuse by one connection. A buffer freed to the
// C library after every request goes back to the kernel (a thread arena
// trims its top) and the next request faults in and zeroes fresh pages:
// at 1 MiB reads that cost more CPU than copying the data to the socket.
// Sizes are rounded up to a power of two (at least 4 KiB), so a client's
// few request sizes reuse the same buffers; at most kKeepBytes are kept.
#pragma once
#include <cstddef>
#include <mutex>
#include <vector>

#include "io/member_device.hpp"

namespace rs::nbd {

class BufferPool {
 public:
  static constexpr size_t kKeepBytes = 64u << 20;

  // A buffer of at least `bytes` (4096-aligned), or out_of_memory; any thread.
  Result<io::AlignedBuffer> take(size_t bytes);
  // Hands a buffer back (kept if there is room, freed otherwise); any thread.
  void give(io::AlignedBuffer buffer);
  static size_t rounded(size_t bytes);

 private:
  std::mutex mutex_;
  std::vector<io::AlignedBuffer> kept_;
  size_t kept_bytes_ = 0;
};

}  // namespace rs::nbd
