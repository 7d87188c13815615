// fio's options: the names and aliases RaidScope supports and how each
// one's value goes into a workload::JobOptions (fio's options.c table).
#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "workload/job_options.hpp"

namespace rs::fio {

using workload::JobOptions;

// fio's canonical name for an option or alias RaidScope supports
// ("readwrite" -> "rw", "wait_for_previous" -> "stonewall"); empty if unsupported.
std::string_view canonical_option_name(std::string_view name) noexcept;
// True for options that may be written without a value (fio's "empty or
// boolean" options: time_based, group_reporting, norandommap, stonewall, thread).
bool option_value_optional(std::string_view canonical_name) noexcept;

// Applies one option to `job`. `name` may be an alias; `value` is nullopt
// when the option was written bare. Returns an error message without a
// location ("bad size '4q': ..."), empty on success. Does not touch
// job.given/inherited and does no cross-option checks (see job_parser.hpp).
std::string apply_option(JobOptions& job, std::string_view name, std::optional<std::string_view> value);

}  // namespace rs::fio
