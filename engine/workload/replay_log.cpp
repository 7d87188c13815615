#include "workload/replay_log.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "base/read_file.hpp"

namespace rs::workload {

namespace {

Error refuse(std::string_view origin, size_t line, const std::string& why) {
  return Error{Errc::invalid_argument,
               "read_iolog=" + std::string(origin) + (line ? ":" + std::to_string(line) : "") + ": " + why};
}

bool number(const std::string& text, uint64_t& out) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos || text.size() > 19)
    return false;
  out = std::stoull(text);
  return true;
}

}  // namespace

Result<ReplayLog> parse_replay_log(std::string_view text, std::string_view origin) {
  std::istringstream in{std::string(text)};
  std::string line;
  if (!std::getline(in, line)) return refuse(origin, 0, "empty log");
  int version = 0;
  if (line.rfind("fio version 2 iolog", 0) == 0) version = 2;
  if (line.rfind("fio version 3 iolog", 0) == 0) version = 3;
  if (!version)
    return refuse(origin, 1, "not a fio iolog of version 2 or 3 (blktrace files are not replayed)");
  ReplayLog log;
  for (size_t n = 2; std::getline(in, line); ++n) {
    std::istringstream fields(line);
    std::vector<std::string> f;
    for (std::string w; fields >> w;) f.push_back(w);
    if (f.empty()) continue;
    uint64_t at = 0;
    if (version == 3) {  // "TIME FILE ACTION [OFFSET LENGTH]"
      if (!number(f[0], at)) return refuse(origin, n, "expected a time in microseconds first");
      f.erase(f.begin());
    }
    if (f.size() < 2) return refuse(origin, n, "expected FILE ACTION");
    if (log.file.empty()) log.file = f[0];
    if (f[0] != log.file) return refuse(origin, n, "a log naming several files is not replayed");
    const std::string& act = f[1];
    if (f.size() == 2) {  // file actions: the one file is the job's
      if (act != "add" && act != "open" && act != "close") return refuse(origin, n, "unknown action " + act);
      continue;
    }
    if (act != "read" && act != "write")
      return refuse(origin, n, act + " entries are not replayed (reads and writes are)");
    ReplayEntry e;
    uint64_t length = 0;
    if (f.size() != 4 || !number(f[2], e.offset) || !number(f[3], length) || length == 0 ||
        length > (1u << 30))
      return refuse(origin, n, "expected FILE " + act + " OFFSET LENGTH");
    e.at_us = at;
    e.length = uint32_t(length);
    e.write = act == "write";
    log.entries.push_back(e);
  }
  if (log.entries.empty()) return refuse(origin, 0, "no reads or writes to replay");
  return log;
}

Status load_replays(std::vector<JobOptions>& jobs) {
  for (JobOptions& job : jobs) {
    if (job.read_iolog.empty()) continue;
    const Result<std::string> text = read_file(job.read_iolog);
    if (!text) return refuse(job.read_iolog, 0, text.error().message);
    auto log = parse_replay_log(*text, job.read_iolog);
    if (!log) return log.error();
    const auto& es = log->entries;
    const bool reads = std::any_of(es.begin(), es.end(), [](auto& e) { return !e.write; });
    const bool writes = std::any_of(es.begin(), es.end(), [](auto& e) { return e.write; });
    job.rw = reads && writes ? RwMode::readwrite : writes ? RwMode::write : RwMode::read;
    uint64_t bytes = 0;
    uint32_t lo = ~0u, hi = 0;
    for (const auto& e : es) bytes += e.length, lo = std::min(lo, e.length), hi = std::max(hi, e.length);
    job.io_size = bytes;
    job.time_based = false;
    job.loops = 1;
    job.bs = {lo, lo};
    job.bs_max = {hi, hi};
    job.bssplit = {};
    if (job.filename.empty() && job.directory.empty()) job.filename = log->file;
    job.replay = std::make_shared<const std::vector<ReplayEntry>>(std::move(log->entries));
  }
  return {};
}

}  // namespace rs::workload
