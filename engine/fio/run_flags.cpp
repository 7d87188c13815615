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
  if (key == "server" || key == "client" || key == "daemonize" || key == "remote-config")
    return flag_error(
        "--" + std::string(key) +
        " is not supported: raidscope-cli bench runs its jobs here, without fio's client/server");
  if (key != "eta" && key != "max-jobs" && key != "debug") return std::nullopt;
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
  return take_debug(*value, flags);
}

}  // namespace rs::fio
