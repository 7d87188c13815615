// What a write job's buffers hold when the job asks for dedupable or
// compressible data (fio's dedupe_percentage, dedupe_mode,
// dedupe_working_set_percentage, dedupe_global, buffer_compress_percentage,
// buffer_compress_chunk). Storage that deduplicates or compresses is only
// measured fairly with the data mix the job describes.
//
// fio's rules (HOWTO), as kept here:
//  - every write gets freshly generated contents (refill_buffers=1, which
//    a compress or dedupe percentage turns on; scramble_buffers then has
//    nothing to do);
//  - dedupe_percentage % of the writes repeat contents seen before: with
//    dedupe_mode=repeat, those of an earlier unique write of the job; with
//    dedupe_mode=working_set, one of a fixed set of contents covering
//    dedupe_working_set_percentage % of the job's size in blocks (with
//    dedupe_global=1 the set is the same for every job of the run);
//  - buffer_compress_percentage=P: each buffer_compress_chunk (512 bytes)
//    is (100 - P) % random bytes followed by P % zeros.
// Contents are a function of a 64-bit seed, so a repeat costs no memory.
#pragma once
#include <cstdint>
#include <vector>

#include "workload/job_options.hpp"
#include "workload/rand.hpp"

namespace rs::workload {

class BufferContents {
 public:
  BufferContents(const JobOptions& job, uint64_t job_seed);
  // Whether the job asked for any of this (else the driver's default
  // contents apply).
  static bool wanted(const JobOptions& job) noexcept {
    return job.dedupe_percentage > 0 || job.buffer_compress_percentage > 0 || job.refill_buffers;
  }
  // Fills one write of `length` bytes. No allocation.
  void fill(void* buffer, uint32_t length) noexcept;

 private:
  uint64_t next_seed() noexcept;

  const JobOptions& job_;
  Rng rng_;
  uint64_t working_set_ = 0;    // working_set mode: how many distinct contents
  uint64_t set_key_ = 0;        // whose seeds they are (the job's, or the run's with dedupe_global)
  std::vector<uint64_t> seen_;  // repeat mode: seeds of earlier unique writes (a ring)
  size_t seen_next_ = 0, seen_count_ = 0;
};

}  // namespace rs::workload
