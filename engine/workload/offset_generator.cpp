#include "workload/offset_generator.hpp"

#include <random>
#include <stdexcept>
#include <string>

namespace rs::workload {

uint64_t job_seed(const JobOptions& job, unsigned job_index) {
  if (!job.randrepeat && !job.randseed_given) {
    std::random_device rd;
    return (static_cast<uint64_t>(rd()) << 32) ^ rd();
  }
  return mix64(job.randseed ^ mix64(0x5bd1e995ULL + job_index));
}

OffsetGenerator::OffsetGenerator(const JobOptions& job, uint64_t seed)
    : rw_(job.rw),
      rwmixread_(job.rwmixread),
      region_offset_(job.offset),
      offset_rng_(seed),
      direction_rng_(mix64(seed ^ 0xd1b54a32d192ed03ULL)) {
  if (job.size == 0 || job.size_percent || job.offset_percent)
    throw std::invalid_argument("job '" + job.name + "': size/offset not resolved against the target");

  if (!is_random(rw_))
    pattern_ = Pattern::sequential;
  else if (job.random_distribution != Distribution::random)
    pattern_ = Pattern::skewed;
  else
    pattern_ = job.norandommap ? Pattern::uniform : Pattern::random_map;

  shared_ = pattern_ != Pattern::sequential && job.bs[kDdirRead] == job.bs[kDdirWrite];
  for (int d : {kDdirRead, kDdirWrite}) {
    if (shared_ && d == kDdirWrite) continue;
    bool used = shared_ || (d == kDdirRead ? does_read(rw_) : does_write(rw_));
    if (!used) continue;
    Stream& s = streams_[d];
    s.bs = job.bs[d];
    s.blocks = s.bs ? job.size / s.bs : 0;
    if (s.blocks == 0)
      throw std::invalid_argument("job '" + job.name + "': bs " + std::to_string(s.bs) +
                                  " does not fit in size " + std::to_string(job.size));
    if (pattern_ == Pattern::random_map) s.perm.reset(s.blocks, offset_rng_.next());
    if (pattern_ == Pattern::skewed)
      s.skew.emplace(job.random_distribution, s.blocks, job.distribution_param, job.distribution_center,
                     offset_rng_);
  }
}

uint64_t OffsetGenerator::next_block(Stream& s) noexcept {
  switch (pattern_) {
    case Pattern::sequential: {
      uint64_t b = s.pos;
      if (++s.pos == s.blocks) s.pos = 0;
      return b;
    }
    case Pattern::random_map: {
      uint64_t b = s.perm.map(s.pos);
      if (++s.pos == s.blocks) {
        s.pos = 0;
        s.perm.rekey(offset_rng_.next());
      }
      return b;
    }
    case Pattern::uniform:
      return offset_rng_.below(s.blocks);
    case Pattern::skewed:
      return s.skew->next(offset_rng_);
  }
  return 0;
}

IoRequest OffsetGenerator::next() noexcept {
  bool write;
  switch (rw_) {
    case RwMode::read:
    case RwMode::randread:
      write = false;
      break;
    case RwMode::write:
    case RwMode::randwrite:
      write = true;
      break;
    default:
      write = direction_rng_.below(100) >= rwmixread_;
      break;
  }
  Stream& s = streams_[shared_ ? kDdirRead : (write ? kDdirWrite : kDdirRead)];
  return IoRequest{region_offset_ + next_block(s) * s.bs, s.bs, write};
}

}  // namespace rs::workload
