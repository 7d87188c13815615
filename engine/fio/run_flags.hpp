// fio's run-level command-line flags (fio's init.c long options), which are
// not job options: --parse-only, --readonly, --eta, --max-jobs, --debug,
// the output formats,
// and the client/server flags RaidScope refuses. parse_cli_job() gives
// every "--key" here first.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"

namespace rs::fio {

// fio's --output-format (a comma-separated list: terse, json, json+,
// normal), --minimal (terse only), --append-terse (terse too) and
// --terse-version. fio prints terse, then JSON, then normal.
struct OutputFormats {
  bool terse = false, json = false, json_plus = false, normal = true;
  int terse_version = 3;  // 2..5
};

struct RunFlags {
  bool parse_only = false;     // read and check the jobs, run nothing, create nothing
  bool readonly = false;       // refuse every job that writes or trims (fio's --readonly)
  bool bandwidth_log = false;  // fio's --bandwidth-log: agg-{read,write,trim}_bw.log
  enum class Eta { automatic, always, never } eta = Eta::automatic;  // the status line
  unsigned max_jobs = 0;           // fio's --max-jobs (0: not given); see take_run_flag
  std::vector<std::string> debug;  // --debug categories, as given
  OutputFormats output;
};

// fio's own message for a --readonly run with a job that writes or trims.
inline constexpr const char* kReadonlyRefusal =
    "fio: trim and write operations are not allowed with the --readonly parameter.";

// If `key` (without "--") is a run flag: applies it and returns {} or an
// error naming it; `value` is the text after '=', and `take_next` fetches
// the next argument when a flag needs a value and has none. Returns
// nullopt when `key` is not a run flag.
std::optional<Status> take_run_flag(std::string_view key, std::optional<std::string>& value,
                                    const std::function<bool()>& take_next, RunFlags& flags);

}  // namespace rs::fio
