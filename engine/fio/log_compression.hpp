// fio's log_store_compressed and --inflate-log: a log kept compressed on
// disk as NAME.fz, read back as text with `bench --inflate-log=NAME.fz`.
//
// The .fz file is the log's text in chunks of log_compression bytes, each
// chunk one zlib stream, one after another. fio's own .fz holds its
// in-memory sample records instead, so each tool inflates only its own
// files; the text that comes out is the log fio would have written.
#pragma once
#include <cstdint>
#include <string>

#include "base/result.hpp"

namespace rs::fio {

// Compresses the text log at `path` into path + ".fz" in chunks of
// `chunk_bytes` (0: one chunk) and removes `path`. On an error the text
// log stays where it is.
Status store_log_compressed(const std::string& path, uint64_t chunk_bytes);

// The text of a .fz log (fio's --inflate-log).
Result<std::string> inflate_log(const std::string& path);

}  // namespace rs::fio
