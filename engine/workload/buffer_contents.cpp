#include "workload/buffer_contents.hpp"

#include <algorithm>
#include <cstring>

namespace rs::workload {
namespace {
constexpr uint64_t kGlobalSetKey = 0x6a09e667f3bcc909ULL;
}  // namespace

BufferContents::BufferContents(const JobOptions& job, uint64_t job_seed, unsigned job_index,
                               unsigned run_jobs)
    : job_(job),
      rng_(job_seed ^ 0xd1b54a32d192ed03ULL),
      job_key_(mix64(job_seed)),
      self_(job_index),
      jobs_(std::max(run_jobs, 1u)) {
  const uint64_t blocks = job.size / std::max<uint32_t>(1, job.bs[kDdirWrite]);
  working_set_ = std::max<uint64_t>(1, blocks * job.dedupe_working_set_percentage / 100);
  per_job_ = std::max<uint64_t>(working_set_ / jobs_, 1);
}

uint64_t BufferContents::fresh(unsigned job, uint64_t k) const noexcept {
  // With dedupe_global every job must be able to name another's contents,
  // so the streams hang off the run's key and the job's number.
  const uint64_t key = job_.dedupe_global ? mix64((kGlobalSetKey ^ job_.randseed) + job) : job_key_;
  return mix64(key + k);
}

uint64_t BufferContents::working_set_entry(uint64_t i) const noexcept {
  if (!job_.dedupe_global) return fresh(self_, i);
  const uint64_t block = i / per_job_;
  return fresh(unsigned((self_ + block) % jobs_), i - block * per_job_);
}

uint64_t BufferContents::next_seed() noexcept {
  const unsigned percent = job_.dedupe_percentage;
  if (percent == 100) return fresh(self_, 0);
  if (percent > 0 && rng_.below(100) < percent) {
    if (job_.dedupe_mode_working_set) return working_set_entry(rng_.below(working_set_));
    return fresh(self_, fresh_next_);  // what the next fresh write will hold
  }
  return fresh(self_, fresh_next_++);
}

namespace {
// n pseudo-random bytes from the lanes: four xorshift64 generators side by
// side, so no step waits for the one before it and a 64 KiB buffer fills at
// store speed (one serial generator, with a memcpy per word, took longer
// than the write it fed).
void fill_random(unsigned char* p, uint32_t n, uint64_t (&lane)[4]) noexcept {
  auto step = [](uint64_t& x) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    return x;
  };
  uint32_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int k = 0; k < 4; ++k) {
      const uint64_t v = step(lane[k]);
      std::memcpy(p + i + 8 * k, &v, 8);
    }
  for (; i < n; i += 8) {
    const uint64_t v = step(lane[0]);
    std::memcpy(p + i, &v, std::min<uint32_t>(8, n - i));
  }
}
}  // namespace

void BufferContents::fill(void* buffer, uint32_t length) noexcept {
  const uint64_t seed = next_seed();
  // Lanes from the seed alone: a repeated seed repeats the buffer (dedupe).
  // Never zero, where xorshift would stay.
  uint64_t lane[4];
  for (int k = 0; k < 4; ++k) lane[k] = mix64(seed + uint64_t(k) * 0x9e3779b97f4a7c15ULL) | 1;
  auto* p = static_cast<unsigned char*>(buffer);
  const uint32_t chunk = job_.buffer_compress_chunk ? job_.buffer_compress_chunk : length;
  const uint32_t zero_from = chunk - uint32_t(uint64_t(chunk) * job_.buffer_compress_percentage / 100);
  for (uint32_t at = 0; at < length; at += chunk) {
    const uint32_t n = std::min(chunk, length - at);
    const uint32_t random = std::min(n, zero_from);
    fill_random(p + at, random, lane);
    std::memset(p + at + random, 0, n - random);
  }
}

}  // namespace rs::workload
