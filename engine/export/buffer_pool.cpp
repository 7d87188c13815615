#include "export/buffer_pool.hpp"

#include <bit>

namespace rs::nbd {

size_t BufferPool::rounded(size_t bytes) {
  return std::bit_ceil(bytes < 4096 ? size_t{4096} : bytes);
}

Result<io::AlignedBuffer> BufferPool::take(size_t bytes) {
  const size_t size = rounded(bytes);
  {
    std::lock_guard lock(mutex_);
    for (auto it = kept_.begin(); it != kept_.end(); ++it) {
      if (it->size() != size) continue;
      io::AlignedBuffer b = std::move(*it);
      kept_.erase(it);
      kept_bytes_ -= size;
      return b;
    }
  }
  return io::AlignedBuffer::allocate(size);
}

void BufferPool::give(io::AlignedBuffer buffer) {
  if (!buffer.data()) return;
  std::lock_guard lock(mutex_);
  if (kept_bytes_ + buffer.size() > kKeepBytes) return;  // freed as it goes out of scope
  kept_bytes_ += buffer.size();
  kept_.push_back(std::move(buffer));
}

}  // namespace rs::nbd
