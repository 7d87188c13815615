// Which blocks a verifying job wrote in its write pass, and the read-back
// cursor over them (fio's verify phase reads back what was written, each
// piece with the length it was written with: fio's io_piece log).
//
// Fixed block sizes: one bit per bs block of the job's region, or, for a
// multi-file job, of each file's region (file k's blocks after those of
// files 0..k-1, addressed at k << kFileShift as the job addresses them).
// Variable block sizes (bsrange, bssplit, rw=write:N): the pieces
// themselves, by offset; a write that overlaps earlier pieces replaces
// them, as fio's log_io_piece drops the older entry.
#pragma once
#include <cstdint>
#include <map>
#include <vector>

namespace rs::workload {

struct WrittenPiece {
  uint64_t offset;  // the job's offset (file k at k << kFileShift)
  uint32_t length;
};

class WrittenBlocks {
 public:
  // One region of `size` bytes at `offset`. bs 0: variable block sizes.
  void cover(uint64_t offset, uint64_t size, uint32_t bs);
  // A region of each file's size at `offset` in every file.
  void cover_files(uint64_t offset, const std::vector<uint64_t>& file_sizes, uint32_t bs);

  void mark(uint64_t io_offset, uint32_t length);  // a piece written at this (job) offset
  // Moves the cursor to the next written piece; false when none is left.
  bool pending();
  WrittenPiece take();  // that piece; the cursor moves past it
  void restart();       // a new write pass: nothing written, cursor at the start

 private:
  uint64_t offset_of(uint64_t block) const;
  uint64_t offset_ = 0;
  uint32_t bs_ = 1;  // 0: variable (pieces_)
  bool files_ = false;
  std::vector<uint64_t> first_;  // the first block of each file; {0} for one region
  uint64_t blocks_ = 0;
  std::vector<uint64_t> bits_;
  uint64_t cursor_ = 0;
  std::map<uint64_t, uint32_t> pieces_;  // variable sizes: offset -> length
};

}  // namespace rs::workload
