#include "workload/io_priority.hpp"

#include <algorithm>

namespace rs::workload {

IoPriorities::IoPriorities(const JobOptions& job, uint64_t seed)
    : job_(job),
      job_ioprio_(job.prio >= 0 || job.prioclass >= 0
                      ? ioprio_value(unsigned(std::max(job.prioclass, 0)), unsigned(std::max(job.prio, 0)))
                      : 0),
      bssplit_(!job.cmdprio_bssplit[0].empty() || !job.cmdprio_bssplit[1].empty()),
      rng_(seed ^ 0x5052494full) {}

std::vector<uint16_t> IoPriorities::stat_prios(int ddir) const {
  const size_t d = size_t(ddir);
  const uint16_t implicit = ioprio_value(job_.cmdprio_class[d], job_.cmdprio_level[d]);
  std::vector<uint16_t> values;
  if (!bssplit_ && job_.cmdprio_percentage[d])
    values.push_back(implicit);
  else if (bssplit_)
    for (const auto& e : job_.cmdprio_bssplit[d])
      values.push_back(e.ioprio >= 0 ? uint16_t(e.ioprio) : implicit);
  if (values.empty()) return {};
  std::vector<uint16_t> prios{job_ioprio_};
  for (uint16_t v : values)
    if (std::find(prios.begin(), prios.end(), v) == prios.end()) prios.push_back(v);
  return prios;
}

uint16_t IoPriorities::pick(int ddir, uint32_t length) {
  if (ddir > 1) return job_ioprio_;
  if (!bssplit_) {
    const unsigned percent = job_.cmdprio_percentage[size_t(ddir)];
    if (!percent || rng_.below(100) >= percent) return job_ioprio_;
    return ioprio_value(job_.cmdprio_class[size_t(ddir)], job_.cmdprio_level[size_t(ddir)]);
  }
  // The entries of the I/O's block size, in order: one draw below their
  // total picks the entry whose running sum first exceeds it.
  const auto& list = job_.cmdprio_bssplit[size_t(ddir)];
  unsigned total = 0;
  for (const auto& e : list)
    if (e.bs == length) total += e.percent;
  if (!total) return job_ioprio_;
  const unsigned draw = unsigned(rng_.below(100));
  if (draw >= total) return job_ioprio_;
  unsigned sum = 0;
  for (const auto& e : list) {
    if (e.bs != length) continue;
    sum += e.percent;
    if (draw < sum)
      return e.ioprio >= 0 ? uint16_t(e.ioprio)
                           : ioprio_value(job_.cmdprio_class[size_t(ddir)], job_.cmdprio_level[size_t(ddir)]);
  }
  return job_ioprio_;
}

}  // namespace rs::workload
