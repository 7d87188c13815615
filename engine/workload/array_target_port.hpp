// The array target's port: a job's I/O to an array, by whole units.
//
// An array addresses its bytes in units: md's 512-byte sector on RAID1 and
// RAID10, a 4 KiB stripe-cache page on RAID5, and never less than a
// member's logical block size (members are opened with O_DIRECT). I/O
// aligned to the unit goes straight to the array. I/O that is not is
// served as a block device serves it:
//  - a job with direct=0 (fio's default) gets the page cache's behaviour:
//    a read reads the whole units and copies its bytes out; a write reads
//    the units at its unaligned ends, patches its bytes in and writes the
//    whole units back (read-modify-write), holding those units against
//    every other write of the run meanwhile (unit_locks.hpp);
//  - a job with direct=1 gets O_DIRECT's: the I/O fails with EINVAL
//    (check_jobs refuses a bs or offset that is not a multiple of the unit
//    before the run; this catches what only shows at run time, such as
//    blockalign= below the unit).
// Either way no I/O ever lands anywhere but on its own bytes.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "io/context.hpp"
#include "raid/array.hpp"
#include "workload/target.hpp"
#include "workload/unit_locks.hpp"

namespace rs::workload {

// The array's unit in bytes (see above), from its level and its members'
// logical block sizes (an emulated member's model's).
uint32_t array_unit_bytes(const raid::Array& array);
// "4096 bytes (RAID5 moves data one 4 KiB stripe-cache page at a time)":
// the unit and where it comes from, for messages.
std::string describe_array_unit(const raid::Array& array);

// A port on `context` for one job; `locks` is shared by every port of the
// run and outlives them. `direct`: O_DIRECT's rule for I/O off the unit
// (EINVAL) instead of read-modify-write.
std::unique_ptr<TargetPort> make_array_target_port(raid::Array& array, io::IoContext& context,
                                                   UnitLocks& locks, uint32_t unit, bool direct);

}  // namespace rs::workload
