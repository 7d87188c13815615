// fio's os_trim on one file or block device: a regular file gets a hole
// punched (fallocate PUNCH_HOLE | KEEP_SIZE), a block device BLKDISCARD.
#pragma once
#include <cstdint>

#include "io/member_device.hpp"

namespace rs::workload {

// Discards [offset, offset + length) now. Returns length, or -errno.
int discard_range(const io::MemberDevice& dev, uint64_t offset, uint32_t length);
// "BLKDISCARD" or "fallocate(PUNCH_HOLE)", for the output.
const char* discard_method(const io::MemberDevice& dev);

}  // namespace rs::workload
