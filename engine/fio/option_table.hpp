// fio's options as a table, modelled on fio's options.c: one row per
// option with its name, alias, type, the JobOptions field it sets, its
// parser and a line of help. A typed row (text, flag, count, size, time)
// is applied by apply_option() itself; a custom row names the parser in
// option_parsers.hpp that reads its value into several fields.
#pragma once
#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "base/result.hpp"
#include "fio/size_parse.hpp"
#include "workload/job_options.hpp"

namespace rs::fio {

using workload::JobOptions;

enum class OptionType {
  text,    // the value as written, into `text`
  flag,    // 0 or 1, into `flag`
  count,   // an integer in [min, max], into `count`
  size,    // bytes with fio's suffixes, into `bytes`
  time,    // a time (`unit` when written without one), into `duration`
  custom,  // `parse` reads it
};

using OptionParser = Status (*)(JobOptions& job, std::string_view value);

struct OptionDef {
  std::string_view name;   // fio's name, as fio's JSON prints it
  std::string_view alias;  // fio's alias, if any
  OptionType type = OptionType::custom;
  // The field a typed row sets (the one its type names).
  std::string JobOptions::*text = nullptr;
  bool JobOptions::*flag = nullptr;
  unsigned JobOptions::*count = nullptr;
  uint64_t JobOptions::*bytes = nullptr;
  std::chrono::microseconds JobOptions::*duration = nullptr;
  uint64_t min = 0, max = 0;          // count: the accepted range
  TimeUnit unit = TimeUnit::seconds;  // time: a number written without a unit
  OptionParser parse = nullptr;       // custom: reads the value
  bool value_optional = false;        // fio's FIO_OPT_STR_SET: `time_based` alone means time_based=1
  bool fio_keywords = false;          // the value may hold fio's $keywords (filename_format's $jobname)
  std::string_view help;              // what the option does
};

// Every option RaidScope supports, in fio's order of families.
std::span<const OptionDef> option_table() noexcept;
// The row of a name or alias; null if unsupported.
const OptionDef* find_option(std::string_view name) noexcept;

// fio's canonical name for an option or alias RaidScope supports
// ("readwrite" -> "rw", "wait_for_previous" -> "stonewall"); empty if unsupported.
std::string_view canonical_option_name(std::string_view name) noexcept;
// True for options that may be written without a value (fio's "empty or
// boolean" options: time_based, group_reporting, norandommap, stonewall, thread).
bool option_value_optional(std::string_view canonical_name) noexcept;

// Applies one option to `job`. `name` may be an alias; `value` is nullopt
// when the option was written bare. The error (invalid_argument) says what
// is wrong without a location ("bs: bad size '4q': ..."). Does not touch
// job.given/inherited and does no cross-option checks (see job_parser.hpp).
Status apply_option(JobOptions& job, std::string_view name, std::optional<std::string_view> value);

}  // namespace rs::fio
