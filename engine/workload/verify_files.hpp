// The files fio's verify writes beside a job, in the current directory:
// verify_dump's copies of a block that failed, and (verify_state.hpp) the
// verify state a write job leaves for a later read job.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.hpp"

namespace rs::workload {

// fio's dump_buf name: the file's last path component, the offset in the
// file, the kind ("received", "expected", "hdr_fail"): f.8192.received.
std::string verify_dump_name(std::string_view file_path, uint64_t offset, std::string_view type);

// Writes `len` bytes to `name` (created or truncated); the error names it.
Status write_verify_dump(const std::string& name, const void* data, uint32_t len);

}  // namespace rs::workload
