#include "workload/written_blocks.hpp"

#include <algorithm>
#include <iterator>

#include "workload/target.hpp"

namespace rs::workload {

void WrittenBlocks::cover(uint64_t offset, uint64_t size, uint32_t bs) {
  offset_ = offset;
  bs_ = bs;
  files_ = false;
  first_ = {0};
  blocks_ = bs ? size / bs : 0;
  restart();
}

void WrittenBlocks::cover_files(uint64_t offset, const std::vector<uint64_t>& file_sizes, uint32_t bs) {
  offset_ = offset;
  bs_ = bs;
  files_ = true;
  first_.clear();
  blocks_ = 0;
  for (uint64_t size : file_sizes) first_.push_back(blocks_), blocks_ += bs ? size / bs : 0;
  restart();
}

void WrittenBlocks::restart() {
  bits_.assign((blocks_ + 63) / 64, 0);
  pieces_.clear();
  cursor_ = 0;
}

void WrittenBlocks::mark(uint64_t io_offset, uint32_t length) {
  if (!bs_) {
    // Drop the pieces this one overlaps: the one starting before it that
    // reaches into it, and those starting inside it.
    auto it = pieces_.lower_bound(io_offset);
    if (it != pieces_.begin() && std::prev(it)->first + std::prev(it)->second > io_offset) --it;
    while (it != pieces_.end() && it->first < io_offset + length) it = pieces_.erase(it);
    pieces_.emplace(io_offset, length);
    return;
  }
  // One region's offsets are plain (a device may pass 2^kFileShift); a
  // file set's carry the file's index above kFileShift.
  uint64_t block = ((files_ ? io_offset & kFileOffsetMask : io_offset) - offset_) / bs_;
  if (files_) block += first_[size_t(io_offset >> kFileShift)];
  bits_[block / 64] |= uint64_t{1} << (block % 64);
}

bool WrittenBlocks::pending() {
  if (!bs_) return !pieces_.empty();
  while (cursor_ < blocks_ && !(bits_[cursor_ / 64] & (uint64_t{1} << (cursor_ % 64)))) ++cursor_;
  return cursor_ < blocks_;
}

WrittenPiece WrittenBlocks::take() {
  if (!bs_) {
    const auto it = pieces_.begin();
    const WrittenPiece p{it->first, it->second};
    pieces_.erase(it);
    return p;
  }
  return {offset_of(cursor_++), bs_};
}

uint64_t WrittenBlocks::offset_of(uint64_t block) const {
  if (!files_) return offset_ + block * bs_;
  // The file holding the block: the last whose first block is at or before it.
  const size_t k = size_t(std::upper_bound(first_.begin(), first_.end(), block) - first_.begin()) - 1;
  return (uint64_t(k) << kFileShift) + offset_ + (block - first_[k]) * bs_;
}

}  // namespace rs::workload
