#include "workload/block_map.hpp"

#include <bit>

namespace rs::workload {

void BlockMap::reset(uint64_t blocks) {
  blocks_ = blocks;
  words_.assign((blocks + 63) / 64, 0);
  full_.assign((words_.size() + 63) / 64, 0);
  done_ = 0;
  // The last word's bits past the end count as done, so "full" is all ones.
  if (blocks % 64) words_.back() = ~uint64_t{0} << (blocks % 64);
}

void BlockMap::clear() {
  reset(blocks_);
}

uint64_t BlockMap::first_free_from(uint64_t block) const noexcept {
  if (block >= blocks_) return kNone;
  uint64_t w = block / 64;
  const uint64_t here = ~words_[w] & (~uint64_t{0} << (block % 64));
  if (here) return w * 64 + uint64_t(std::countr_zero(here));
  // The next word that is not full, 64 words per summary word.
  for (++w; w < words_.size();) {
    const uint64_t summary = ~full_[w / 64] & (~uint64_t{0} << (w % 64));
    if (!summary) {
      w = (w / 64 + 1) * 64;
      continue;
    }
    w = (w / 64) * 64 + uint64_t(std::countr_zero(summary));
    if (w >= words_.size()) return kNone;
    return w * 64 + uint64_t(std::countr_zero(~words_[w]));
  }
  return kNone;
}

uint64_t BlockMap::next_free(uint64_t block) const noexcept {
  if (full()) return kNone;
  const uint64_t after = block + 1 >= blocks_ ? 0 : block + 1;
  const uint64_t found = first_free_from(after);
  return found != kNone ? found : first_free_from(0);
}

uint64_t BlockMap::set_run(uint64_t block, uint64_t count) noexcept {
  uint64_t marked = 0;
  while (marked < count && block < blocks_ && !is_set(block)) {
    uint64_t& word = words_[block / 64];
    word |= uint64_t{1} << (block % 64);
    if (word == ~uint64_t{0}) full_[block / 64 / 64] |= uint64_t{1} << (block / 64 % 64);
    ++marked;
    ++block;
  }
  done_ += marked;
  return marked;
}

}  // namespace rs::workload
