// fio job files and fio command-line job options, read the way fio 3.33
// reads them (init.c __parse_jobs_ini, parse.c), into JobOptions.
//
// Job file rules (each checked against fio 3.33):
//  - A line whose first non-blank character is ';' or '#' is a comment. On
//    any other line everything from the first ';' or '#' on is a comment too
//    (fio's strip_blank_end), so values cannot contain those characters.
//  - "[name]" starts a section. A section whose name starts with "global" is
//    a global section: its options apply to every job defined after it, and
//    a later global section changes only the jobs after it. Job sections
//    start from those globals; the section name is the job name (fio keeps
//    inner spaces: "[ a b ]" is the job " a b ").
//  - "key=value", "key = value" or a bare "key" for fio's flag options
//    (time_based, group_reporting, norandommap, stonewall, thread). Bare
//    boolean options such as `direct` are refused, as fio refuses them.
//  - Refused with "origin:LINE: message": options outside a section, an
//    unterminated "[section", ${VAR}/$keyword expansion, include, options or
//    values RaidScope does not support (never silently ignored).
// Cross-option checks done at parse time: every bs a job uses must fit in
// its size (when size is given in bytes). Checks that need the target are
// the driver's (workload/job_checks.hpp).
//
// Divergence from fio, reported as a warning: fio 3.33 does not strip the
// blank after '=' ("bs = 4k" is 4 bytes to fio, "rw = read" an error); we
// read the value the user meant and warn that fio would not.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "fio/run_flags.hpp"
#include "workload/job_options.hpp"

namespace rs::fio {

using workload::JobOptions;

// What a parse gives when it succeeds. A refusal is an Error
// (Errc::invalid_argument) whose message reads "origin:LINE: message".
struct ParsedJobs {
  std::vector<std::string> warnings;  // "origin:LINE: message"; parsing still succeeded
  std::vector<JobOptions> jobs;       // in file order; numjobs is not expanded
  // fio's defaults plus every global option seen (the last global section's
  // state). global.given lists them all: fio JSON's "global options".
  JobOptions global;
  // fio's --debug=parse lines for the options read, in order, without
  // fio's "parse <pid>" prefix: handle_option=NAME, ptr=VALUE, and the
  // threshold steadystate= set.
  std::vector<std::string> parse_trace;
};

// Parses a job file's text. `origin` names it in messages (usually the path).
Result<ParsedJobs> parse_job_file(std::string_view text, std::string_view origin);
// Same, starting from `base` instead of fio's defaults: fio applies global
// command-line options to the jobs of job files too (pass
// ParsedCliJobs::global). base.given is carried into global.given.
Result<ParsedJobs> parse_job_file(std::string_view text, std::string_view origin, const JobOptions& base);

struct ParsedCliJobs : ParsedJobs {
  std::vector<std::string> job_files;  // non-option arguments, in order
  std::vector<std::string> sections;   // --section=NAME: only these jobs of the job files
  RunFlags flags;                      // --parse-only, --output-format, ... (run_flags.hpp)
};

// fio command-line job options, without argv[0]: "--key=value" or "--key
// value" ("--time_based" alone for flag options). Options before the first
// --name are global; each --name=NAME starts a job. Errors read
// "command line: '--bs=4q': message". With no --name and no job file, an
// error ("no job given").
Result<ParsedCliJobs> parse_cli_job(const std::vector<std::string>& args);

}  // namespace rs::fio
