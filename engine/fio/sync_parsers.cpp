// fio's fallocate= and sync_file_range= values (options.c), into JobOptions.
#include <fcntl.h>

#include <string>

#include "base/printable.hpp"
#include "fio/option_parsers.hpp"
#include "fio/size_parse.hpp"

namespace rs::fio::opt {

namespace {

Status value_error(std::string message) {
  return make_error(Errc::invalid_argument, std::move(message));
}

}  // namespace

// fio 3.33 on Linux: none, native (its default), posix, keep, truncate, and
// the old 0 (none) and 1 (posix).
Status apply_fallocate(JobOptions& job, std::string_view v) {
  using F = JobOptions::Fallocate;
  if (v == "none" || v == "0")
    job.fallocate = F::none;
  else if (v == "native")
    job.fallocate = F::native;
  else if (v == "posix" || v == "1")
    job.fallocate = F::posix;
  else if (v == "keep")
    job.fallocate = F::keep;
  else if (v == "truncate")
    job.fallocate = F::truncate;
  else
    return value_error("fallocate=" + printable(v) +
                       ": expected none, native, posix, keep, truncate, 0 or 1");
  return {};
}

// fio's str_sfr_cb: FLAG[,FLAG...][:N], each FLAG wait_before, write or
// wait_after; N (default 1) writes between syncs.
Status apply_sync_file_range(JobOptions& job, std::string_view v) {
  const size_t colon = v.find(':');
  std::string_view flags = v.substr(0, colon);
  unsigned bits = 0;
  while (!flags.empty()) {
    const size_t comma = flags.find(',');
    const std::string_view f = flags.substr(0, comma);
    if (f == "wait_before")
      bits |= SYNC_FILE_RANGE_WAIT_BEFORE;
    else if (f == "write")
      bits |= SYNC_FILE_RANGE_WRITE;
    else if (f == "wait_after")
      bits |= SYNC_FILE_RANGE_WAIT_AFTER;
    else
      return value_error("sync_file_range: " + quoted_printable(f) +
                         " is not wait_before, write or wait_after");
    flags = comma == std::string_view::npos ? std::string_view{} : flags.substr(comma + 1);
  }
  unsigned nr = 1;
  if (colon != std::string_view::npos) {
    NumberResult r = parse_integer(v.substr(colon + 1), 1, 1u << 30);
    if (!r.ok()) return value_error("sync_file_range: bad count in " + quoted_printable(v));
    nr = unsigned(r->value);
  }
  job.sync_file_range_flags = bits;
  job.sync_file_range_nr = nr;
  return {};
}

}  // namespace rs::fio::opt
