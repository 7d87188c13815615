#include "workload/job_checks.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

#include "base/printable.hpp"

namespace rs::workload {

std::string job_label(const JobOptions& job) {
  std::string s = "job " + quoted_printable(job.name);
  if (job.line) s += " (" + job.origin + ":" + std::to_string(job.line) + ")";
  return s;
}

// Every bs the job uses must fit in its size. Returns the message and the
// direction at fault, or empty.
std::string check_bs_fits(const JobOptions& job, uint64_t size) {
  for (int d : {kDdirRead, kDdirWrite}) {
    bool used = d == kDdirRead ? does_read(job.rw) : does_write(job.rw);
    if (!used || job.bs[d] <= size) continue;
    std::string which = job.bs[kDdirRead] == job.bs[kDdirWrite] || !is_mixed(job.rw)
                            ? "bs"
                            : (d == kDdirRead ? "read bs" : "write bs");
    return which + " " + format_size(job.bs[d]) + " is larger than size " + format_size(size);
  }
  if ((job.rw == RwMode::trim || job.rw == RwMode::randtrim) && job.bs_trim > size)
    return "trim bs " + format_size(job.bs_trim) + " is larger than size " + format_size(size);
  return {};
}

std::string validate_against_target(JobOptions& job, uint64_t target_bytes, uint32_t block_size) {
  const std::string who = job_label(job);
  uint32_t min_bs = std::min(does_read(job.rw) ? job.bs[kDdirRead] : UINT32_MAX,
                             does_write(job.rw) ? job.bs[kDdirWrite] : UINT32_MAX);
  if (does_trim(job.rw)) min_bs = std::min(min_bs, job.bs_trim);
  if (job.offset_percent) {
    // fio aligns a percentage offset down to the minimum block size.
    job.offset = target_bytes / 100 * job.offset_percent + target_bytes % 100 * job.offset_percent / 100;
    job.offset -= job.offset % min_bs;
    job.offset_percent = 0;
  }
  if (job.offset >= target_bytes)
    return who + ": offset " + format_size(job.offset) + " is at or beyond the end of the target (" +
           format_size(target_bytes) + ")";
  if (job.size_percent) {
    job.size = target_bytes / 100 * job.size_percent + target_bytes % 100 * job.size_percent / 100;
    job.size = std::min(job.size, target_bytes - job.offset);
    job.size_percent = 0;
  }
  if (job.size == 0) job.size = target_bytes - job.offset;
  if (job.size > target_bytes - job.offset)
    return who + ": offset " + format_size(job.offset) + " + size " + format_size(job.size) +
           " runs past the end of the target (" + format_size(target_bytes) + ")";
  if (std::string err = check_bs_fits(job, job.size); !err.empty()) return who + ": " + err;
  if (job.direct && block_size > 1) {
    for (int d : {kDdirRead, kDdirWrite}) {
      bool used = d == kDdirRead ? does_read(job.rw) : does_write(job.rw);
      uint32_t odd = job.bs[d] % block_size ? job.bs[d] : max_bs(job, d) % block_size ? max_bs(job, d) : 0;
      for (const auto& e : job.bssplit[size_t(d)])
        if (e.bs % block_size) odd = e.bs;
      if (used && odd)
        return who + ": direct=1 needs bs to be a multiple of the target's block size " +
               std::to_string(block_size) + ", got " + std::to_string(odd);
    }
    if (job.offset % block_size != 0)
      return who + ": direct=1 needs offset to be a multiple of the target's block size " +
             std::to_string(block_size) + ", got " + std::to_string(job.offset);
  }
  return {};
}

std::string format_size(uint64_t bytes) {
  static constexpr std::array<const char*, 5> kUnits = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  if (bytes == 0 || bytes % 1024 != 0) return std::to_string(bytes) + "B";
  size_t unit = 0;
  bytes /= 1024;
  while (unit + 1 < kUnits.size() && bytes % 1024 == 0) {
    bytes /= 1024;
    ++unit;
  }
  return std::to_string(bytes) + kUnits[unit];
}


}  // namespace rs::workload
