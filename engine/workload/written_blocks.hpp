// Which blocks a verifying job wrote in its write pass, and the read-back
// cursor over them (fio's verify phase reads back what was written). One
// bit per bs block of the job's region, or, for a multi-file job, of each
// file's region (file k's blocks after those of files 0..k-1, addressed at
// k << kFileShift as the job addresses them).
#pragma once
#include <cstdint>
#include <vector>

namespace rs::workload {

class WrittenBlocks {
 public:
  // One region of `size` bytes at `offset`.
  void cover(uint64_t offset, uint64_t size, uint32_t bs);
  // A region of each file's size at `offset` in every file.
  void cover_files(uint64_t offset, const std::vector<uint64_t>& file_sizes, uint32_t bs);

  void mark(uint64_t io_offset);  // a block written at this (job) offset
  // Moves the cursor to the next written block; false when none is left.
  bool pending();
  uint64_t take();  // that block's job offset; the cursor moves past it
  void restart();   // a new write pass: nothing written, cursor at the start

 private:
  uint64_t offset_of(uint64_t block) const;
  uint64_t offset_ = 0;
  uint32_t bs_ = 1;
  bool files_ = false;
  std::vector<uint64_t> first_;  // the first block of each file; {0} for one region
  uint64_t blocks_ = 0;
  std::vector<uint64_t> bits_;
  uint64_t cursor_ = 0;
};

}  // namespace rs::workload
