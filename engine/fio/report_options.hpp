// Parsers of the option table's rows for what a job reports and logs
// (unified_rw_reporting, ...), kept apart from option_parsers.cpp so that
// each file stays about one subject. Same contract as option_parsers.hpp:
// an invalid_argument Error naming the option, the job left as it was.
#pragma once
#include <string_view>

#include "base/result.hpp"
#include "workload/job_options.hpp"

namespace rs::fio::opt {

// unified_rw_reporting=none|mixed|both, or fio's older 0|1|2.
Status apply_unified_rw_reporting(workload::JobOptions& job, std::string_view value);

}  // namespace rs::fio::opt
