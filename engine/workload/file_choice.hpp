// fio's random choice of a job's next file (io_u.c __get_next_fileno_rand)
// for file_service_type=random, zipf, pareto and normal (gauss):
//  - random: uniform over the files;
//  - zipf:THETA, pareto:H, normal:DEV draw over nrfiles << 10 ranges
//    (fio's FIO_FSERVICE_SHIFT) with fio's generators (skew_distribution.hpp)
//    but without fio's hash (init.c init_rand_file_service disables it),
//    and the file is the range >> 10. So the hottest files are neighbours:
//    zipf and pareto start them at a random file (or at CENTER x nrfiles),
//    normal centres them on the middle file (or shifts them by CENTER - 0.5).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>

#include "workload/job_options.hpp"
#include "workload/rand.hpp"
#include "workload/skew_distribution.hpp"

namespace rs::workload {

inline constexpr unsigned kFileServiceShift = 10;

class RandomFileChoice {
 public:
  RandomFileChoice(const JobOptions& job, size_t files, uint64_t seed);
  size_t next();  // a file index in [0, files)

 private:
  Rng rng_;
  size_t files_;
  std::optional<SkewDistribution> skew_;
};

}  // namespace rs::workload
