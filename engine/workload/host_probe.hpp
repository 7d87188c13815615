// How fast the host reads one member: the ceiling for emulated members that
// share it (their rates must add up to less, or the emulation measures the
// host disk instead of the models).
#pragma once
#include <cstdint>

#include "io/member_device.hpp"

namespace rs::workload {

// 1 MiB reads, 8 in flight, a quarter of a second, over [offset, offset +
// span). Returns bytes per second.
double probe_read_bandwidth(io::MemberDevice& dev, uint64_t offset, uint64_t span);

}  // namespace rs::workload
