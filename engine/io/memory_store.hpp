// Bytes of simulated members kept in memory, so tests on the simulator can
// read back what they wrote. Sparse: only 4 KiB pages that were written
// exist; anything never written reads as zeros.
//
// For tests and small what-if runs, not for speed: a write allocates the
// pages it touches the first time. Thread-safe (one mutex).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace rs::io {

class MemoryStore {
 public:
  static constexpr size_t kPageSize = 4096;

  void write(int member, uint64_t offset, const void* src, size_t length);
  void read(int member, uint64_t offset, void* dst, size_t length) const;
  // Pages allocated so far, over all members.
  size_t pages() const;
  void clear();

 private:
  using Page = std::array<uint8_t, kPageSize>;
  using Member = std::unordered_map<uint64_t, std::unique_ptr<Page>>;

  mutable std::mutex mu_;
  std::vector<Member> members_;
};

}  // namespace rs::io
