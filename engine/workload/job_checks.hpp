// The checks a job's options get before it runs, against each other and
// against its target: what any front end's jobs must pass (the fio parser
// runs the first at parse time to name the line; the runner runs them all).
#pragma once
#include <cstdint>
#include <string>

#include "workload/job_options.hpp"

namespace rs::workload {

// "job 'NAME' (FILE:LINE)" for messages; the line only for a job file's jobs.
std::string job_label(const JobOptions& job);

// Every block size the job uses must fit in `size` bytes. Returns the
// problem ("bs 8KiB is larger than size 4KiB"), empty when they fit.
std::string check_bs_fits(const JobOptions& job, uint64_t size);

// Resolves and checks a job against its target. Fills size/offset from
// percentages, size 0 as "up to the end of the target", and checks: region
// inside the target, every used bs fits the region, and with direct=1 every
// bs and the offset are multiples of block_size. Returns an error message
// naming the job ("job 'x' (jobs.fio:3): ..."), empty on success.
std::string validate_against_target(JobOptions& job, uint64_t target_bytes, uint32_t block_size);

// A size for messages, exact, in the largest binary unit that divides it:
// 4096 -> "4KiB", 1048576 -> "1MiB", 1000 -> "1000B".
std::string format_size(uint64_t bytes);

}  // namespace rs::workload
