// Request records whose addresses must stay put while the kernel or glibc
// holds them (an iocb, an aiocb): a deque that only grows, and a free list.
// Made with the depth a backend expects; it grows by one when more are
// queued than that.
#pragma once
#include <cstddef>
#include <deque>
#include <vector>

namespace rs::workload {

template <typename T>
class StablePool {
 public:
  explicit StablePool(size_t n = 0) { grow(n); }
  void grow(size_t n) {
    for (size_t i = 0; i < n; ++i) free_.push_back(&items_.emplace_back());
  }
  T* take() {
    if (free_.empty()) grow(1);
    T* t = free_.back();
    free_.pop_back();
    return t;
  }
  void give(T* t) { free_.push_back(t); }

 private:
  std::deque<T> items_;
  std::vector<T*> free_;
};

}  // namespace rs::workload
