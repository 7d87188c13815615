#include "workload/file_choice.hpp"

namespace rs::workload {

namespace {
Distribution skew_kind(JobOptions::FileService s) {
  return s == JobOptions::FileService::zipf     ? Distribution::zipf
         : s == JobOptions::FileService::pareto ? Distribution::pareto
                                                : Distribution::normal;
}
}  // namespace

RandomFileChoice::RandomFileChoice(const JobOptions& job, size_t files, uint64_t seed)
    : rng_(seed), files_(files ? files : 1) {
  using FS = JobOptions::FileService;
  if (job.file_service != FS::zipf && job.file_service != FS::pareto && job.file_service != FS::normal)
    return;
  skew_.emplace(skew_kind(job.file_service), uint64_t(files_) << kFileServiceShift, job.file_service_param,
                job.file_service_center, rng_);
  skew_->disable_hash();
}

size_t RandomFileChoice::next() {
  if (!skew_) return size_t(rng_.below(files_));
  return size_t(skew_->next(rng_) >> kFileServiceShift);
}

}  // namespace rs::workload
