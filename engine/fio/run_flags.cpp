#include "fio/run_flags.hpp"

#include <algorithm>
#include <array>

#include "base/printable.hpp"

namespace rs::fio {

namespace {

Status flag_error(std::string message) {
  return make_error(Errc::invalid_argument, std::move(message));
}

// fio 3.33's --debug categories (debug.c): a comma-separated list of these,
// or "all", or "?" for the list.
constexpr std::array<std::string_view, 21> kDebugCategories = {
    "process", "file",     "io",          "mem",          "blktrace", "verify", "random",
    "parse",   "diskutil", "job",         "mutex",        "profile",  "time",   "net",
    "rate",    "compress", "steadystate", "helperthread", "zbd",      "all",    "?"};

Status take_debug(const std::string& list, RunFlags& flags) {
  size_t at = 0;
  while (at <= list.size()) {
    const size_t comma = std::min(list.find(',', at), list.size());
    const std::string_view name = std::string_view(list).substr(at, comma - at);
    if (std::find(kDebugCategories.begin(), kDebugCategories.end(), name) == kDebugCategories.end())
      return flag_error("--debug: unknown category " + quoted_printable(name) +
                        " (fio's: io, file, random, ...)");
    flags.debug.emplace_back(name);
    at = comma + 1;
  }
  return {};
}

// fio's parse_output_format: the list replaces what was asked before.
Status take_output_format(const std::string& list, OutputFormats& out) {
  OutputFormats formats;
  formats.normal = false;
  formats.terse_version = out.terse_version;
  size_t at = 0;
  while (at <= list.size()) {
    const size_t comma = std::min(list.find(',', at), list.size());
    const std::string_view name = std::string_view(list).substr(at, comma - at);
    if (name == "terse" || name == "minimal" || name == "csv")
      formats.terse = true;
    else if (name == "json" || name == "json+")
      formats.json = true, formats.json_plus = formats.json_plus || name == "json+";
    else if (name == "normal")
      formats.normal = true;
    else
      return flag_error("--output-format: " + quoted_printable(name) +
                        " is not an output format (terse, json, json+, normal)");
    at = comma + 1;
  }
  out = formats;
  return {};
}

}  // namespace

std::optional<Status> take_run_flag(std::string_view key, std::optional<std::string>& value,
                                    const std::function<bool()>& take_next, RunFlags& flags) {
  if (key == "parse-only" || key == "readonly" || key == "bandwidth-log") {
    if (value) return flag_error("--" + std::string(key) + " takes no value");
    (key == "parse-only" ? flags.parse_only
     : key == "readonly" ? flags.readonly
                         : flags.bandwidth_log) = true;
    return Status{};
  }
  if (key == "minimal" || key == "append-terse") {  // fio: terse only / terse as well
    if (value) return flag_error("--" + std::string(key) + " takes no value");
    if (key == "minimal") flags.output.json = flags.output.json_plus = flags.output.normal = false;
    flags.output.terse = true;
    return Status{};
  }
  if (key == "server" || key == "client" || key == "daemonize" || key == "remote-config")
    return flag_error(
        "--" + std::string(key) +
        " is not supported: raidscope-cli bench runs its jobs here, without fio's client/server");
  if (key != "eta" && key != "max-jobs" && key != "debug" && key != "output-format" && key != "terse-version")
    return std::nullopt;
  if (!value && !take_next()) return flag_error("--" + std::string(key) + " requires a value");
  if (key == "eta") {
    if (*value == "always")
      flags.eta = RunFlags::Eta::always;
    else if (*value == "never")
      flags.eta = RunFlags::Eta::never;
    else if (*value == "auto")
      flags.eta = RunFlags::Eta::automatic;
    else
      return flag_error("--eta=" + printable(*value) + ": expected always, never or auto");
    return Status{};
  }
  if (key == "max-jobs") {
    // fio 3.33 takes it as the most job processes (1..16384 by default) and
    // does not stop a run with more: numjobs=2 runs two with --max-jobs=1.
    const std::string& v = *value;
    if (v.empty() || v.size() > 9 || v.find_first_not_of("0123456789") != std::string::npos ||
        std::stoul(v) == 0)
      return flag_error("--max-jobs=" + printable(v) + ": expected a number of jobs above 0");
    flags.max_jobs = unsigned(std::stoul(v));
    return Status{};
  }
  if (key == "output-format") return take_output_format(*value, flags.output);
  if (key == "terse-version") {
    if (*value != "2" && *value != "3" && *value != "4" && *value != "5")
      return flag_error("--terse-version=" + printable(*value) + ": fio's terse versions are 2, 3, 4 and 5");
    flags.output.terse_version = *value->c_str() - '0';
    return Status{};
  }
  return take_debug(*value, flags);
}

}  // namespace rs::fio
