// fio's read_iolog: a job that replays the I/Os an iolog recorded (fio's
// write_iolog, versions 2 and 3), in the log's order, at the log's offsets
// and lengths, and (version 3, unless replay_no_stall=1) at the log's pace.
//
// What is replayed: reads and writes on one file. Refused, naming
// read_iolog: trims, syncs and waits in the log, a log naming several files,
// a blktrace file, and a log with nothing to replay.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "workload/job_options.hpp"

namespace rs::workload {

struct ReplayEntry {
  uint64_t at_us = 0;  // version 3: the time the log gives; version 2: 0
  uint64_t offset = 0;
  uint32_t length = 0;
  bool write = false;
};

struct ReplayLog {
  std::string file;  // the one file the log names ("" when it names none)
  std::vector<ReplayEntry> entries;
};

// Reads an iolog's text; `origin` names it in messages.
Result<ReplayLog> parse_replay_log(std::string_view text, std::string_view origin);

// For every job with read_iolog=: reads the log and makes the job replay
// it: its direction from the log's entries, io_size the bytes logged, its
// block sizes covering the logged lengths, its file the log's when it
// names none (fio's add_file).
Status load_replays(std::vector<JobOptions>& jobs);

}  // namespace rs::workload
