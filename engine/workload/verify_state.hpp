// fio's verify state (verify_state_save / verify_state_load): a write job
// with verify= leaves, at its end, how many writes it issued and the last
// `iodepth` writes that completed on each file; a later read job that loads
// it stops verifying where the writes stopped completing, instead of
// failing on blocks that were never written (a write job cut short).
//
// The file is fio 3.33's (verify-state.h, version 3), in the current
// directory: local-<job name, '/' as '.'>-<job index>-verify.state, a
// header {version, size, crc32c of the rest} then one thread_io_list:
// no_comps, depth, nofiles, numberio, index, fio's random state (48 bytes
// plus its use64 word: written as zeros, RaidScope's generator is not
// fio's; a load ignores it, as fio's does), the name (64 bytes), and
// depth * nofiles completions {file number, offset}, little-endian.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace rs::workload {

struct VerifyState {
  std::string name;
  uint64_t index = 0;     // the job's number in the run, from 0
  uint32_t depth = 1;     // iodepth
  uint32_t nofiles = 1;   // the job's files
  uint64_t numberio = 0;  // writes issued
  struct Completion {
    uint64_t fileno;  // the file's number in the job
    uint64_t offset;  // in that file
  };
  std::vector<Completion> comps;  // each file's last writes completed, newest first
};

// The last `capacity` values pushed, read newest first: a file's last write
// completions for verify_state_save. A fixed ring: once full, a push takes
// the oldest one's place, and nothing is allocated after construction.
class LastValues {
 public:
  explicit LastValues(size_t capacity = 0) : ring_(capacity) {}
  void push(uint64_t v) {
    if (ring_.empty()) return;
    ring_[next_] = v;
    next_ = next_ + 1 == ring_.size() ? 0 : next_ + 1;
    if (count_ < ring_.size()) ++count_;
  }
  size_t size() const { return count_; }
  // The i-th newest value (0: the last pushed); i < size().
  uint64_t newest(size_t i) const { return ring_[(next_ + ring_.size() - 1 - i) % ring_.size()]; }

 private:
  std::vector<uint64_t> ring_;
  size_t next_ = 0, count_ = 0;
};

// "local-<name>-<index>-verify.state" (fio's verify_state_gen_name).
std::string verify_state_path(std::string_view job_name, uint64_t index);

Status save_verify_state(const VerifyState& state);
// The state the job of this name and index saved; the error names the file
// and what is wrong with it (missing, short, another version, corrupt).
Result<VerifyState> load_verify_state(std::string_view job_name, uint64_t index);

// fio's verify_state_should_stop, before a verifying read of `offset` in
// file `fileno`, `reads_done` reads having completed: within the last
// `depth` writes the saved job issued, only blocks whose write is known to
// have completed are read; the first other one ends the job.
bool verify_state_should_stop(const VerifyState& state, uint64_t reads_done, uint64_t fileno,
                              uint64_t offset);

}  // namespace rs::workload
