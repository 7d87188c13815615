// What a write job's buffers hold when the job asks for dedupable or
// compressible data (fio's dedupe_percentage, dedupe_mode,
// dedupe_working_set_percentage, dedupe_global, buffer_compress_percentage,
// buffer_compress_chunk). Storage that deduplicates or compresses is only
// measured fairly with the data mix the job describes.
//
// fio's rules (io_u.c get_buf_state, dedupe.c), as kept here:
//  - every write gets freshly generated contents (refill_buffers=1, which
//    a compress or dedupe percentage turns on; scramble_buffers then has
//    nothing to do); a job's fresh contents are a numbered stream;
//  - dedupe_percentage % of the writes repeat contents: with
//    dedupe_mode=repeat, those the job's next fresh write will have (fio
//    hands out a copy of the state its next fresh buffer starts from);
//    with dedupe_mode=working_set, one of the job's first N fresh contents,
//    N = dedupe_working_set_percentage % of size in blocks (fio's working
//    set is those states: its pages are unique pages the job also writes
//    fresh). With dedupe_global=1 the set is spread over the run's jobs:
//    block b of N / jobs entries comes from job (self + b) % jobs;
//  - dedupe_percentage=100: every write of the job has the same contents;
//  - buffer_compress_percentage=P: each buffer_compress_chunk (512 bytes)
//    is (100 - P) % random bytes followed by P % zeros.
// So a working_set run of 1024 4 KiB writes at 50 % dedupe has about 512
// distinct blocks, as fio's (520-549 measured with fio 3.33), not 512 plus
// the set. Contents are a function of a 64-bit seed: a repeat costs no
// memory.
#pragma once
#include <cstdint>

#include "workload/job_options.hpp"
#include "workload/rand.hpp"

namespace rs::workload {

class BufferContents {
 public:
  // job_index: the job's number among the run's `run_jobs` job instances
  // (dedupe_global spreads the working set over them).
  BufferContents(const JobOptions& job, uint64_t job_seed, unsigned job_index = 0, unsigned run_jobs = 1);
  // Whether the job asked for any of this (else the driver's default
  // contents apply).
  static bool wanted(const JobOptions& job) noexcept {
    return job.dedupe_percentage > 0 || job.buffer_compress_percentage > 0 || job.refill_buffers;
  }
  // Fills one write of `length` bytes. No allocation.
  void fill(void* buffer, uint32_t length) noexcept;

 private:
  uint64_t next_seed() noexcept;
  // Seed of fresh write `k` of job instance `job` (its stream key below).
  uint64_t fresh(unsigned job, uint64_t k) const noexcept;
  uint64_t working_set_entry(uint64_t i) const noexcept;

  const JobOptions& job_;
  Rng rng_;               // which writes dedupe, and which entry they take
  uint64_t job_key_ = 0;  // this job's fresh stream, without dedupe_global
  unsigned self_ = 0, jobs_ = 1;
  uint64_t working_set_ = 0;  // working_set mode: N entries
  uint64_t per_job_ = 1;      // dedupe_global: entries taken from each job in turn
  uint64_t fresh_next_ = 0;   // the number of this job's next fresh write
};

}  // namespace rs::workload
