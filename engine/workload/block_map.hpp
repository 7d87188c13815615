// Which blocks of a region a job has done this pass: fio's random map
// (lib/axmap) for jobs whose block size varies per I/O (bssplit, bsrange).
// A drawn block already done moves on to the next free one (wrapping), and
// an I/O is cut short where it runs into done blocks, so one pass covers
// every block exactly once, as fio's does.
//
// Two levels: one bit per block, and one bit per 64-bit word that is full,
// so finding the next free block skips full stretches 4096 blocks at a time.
#pragma once
#include <cstdint>
#include <vector>

namespace rs::workload {

class BlockMap {
 public:
  static constexpr uint64_t kNone = ~uint64_t{0};

  void reset(uint64_t blocks);  // `blocks` blocks, all free
  void clear();                 // all free again (the next pass)

  uint64_t size() const noexcept { return blocks_; }
  bool full() const noexcept { return done_ == blocks_; }
  bool is_set(uint64_t block) const noexcept { return (words_[block / 64] >> (block % 64)) & 1; }

  // The first free block after `block`, wrapping at the end: kNone if full.
  uint64_t next_free(uint64_t block) const noexcept;

  // Marks up to `count` blocks from `block` on, stopping at the first one
  // already done or at the end; returns how many it marked.
  uint64_t set_run(uint64_t block, uint64_t count) noexcept;

 private:
  uint64_t first_free_from(uint64_t block) const noexcept;  // no wrap; kNone if none

  uint64_t blocks_ = 0;
  uint64_t done_ = 0;
  std::vector<uint64_t> words_;  // bit b % 64 of word b / 64: block b done
  std::vector<uint64_t> full_;   // bit w % 64 of word w / 64: words_[w] all done
};

}  // namespace rs::workload
