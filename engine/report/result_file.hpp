// Saved results on disk: reading one back (refusing what is not a result,
// naming the file), writing any output so that nothing half-written is
// ever left at the destination, and the GUI's history directory.
#pragma once
#include <string>
#include <vector>

#include "base/result.hpp"
#include "report/result_doc.hpp"

namespace rs::report {

// A result document read from `path`: it must be JSON with "format":
// "raidscope-result", a known "format_version" and "kind", and the section
// its kind needs ("fio" with "jobs" for bench, "scenarios" for simulate).
// Errors name the file and what is wrong (Errc::invalid_argument).
Result<Json> load_result(const std::string& path);
// The same checks on a document already in memory; `name` is used in messages.
Status check_result(const Json& doc, const std::string& name);

// Writes `text` to `path` through a temporary file in the same directory
// and a rename: `path` either keeps what it had or gets all of `text`.
Status write_file_atomic(const std::string& path, const std::string& text);

// Where the GUI keeps its history: $XDG_DATA_HOME/raidscope/results, else
// ~/.local/share/raidscope/results.
std::string history_dir();
// Saves `doc` into history_dir() (created when missing) as
// <created>-<kind>.json (a suffix -2, -3 ... when taken); returns the path.
Result<std::string> save_to_history(const Json& doc);
// The saved results in history_dir(), newest first.
std::vector<std::string> list_history();

}  // namespace rs::report
