// fio's terse output (--minimal, --output-format=terse, --terse-version=2..5):
// one line of ';'-separated fields per reported job, as fio 3.33's
// show_thread_status_terse_all writes it. Versions 2, 4 and 5 carry a trim
// direction, 5 also the bandwidth and IOPS sample counts; version 2 has no
// version fields in its head.
//
// Not included: the disk utilisation fields fio appends in version 3 and
// above when it tracked disks (RaidScope tracks none: fio's JSON
// "disk_util" is empty too), and continue_on_error's error counts
// (RaidScope does not take continue_on_error).
#pragma once
#include <string>

#include "workload/results.hpp"

namespace rs::fio {

inline constexpr int kTerseVersionDefault = 3;  // fio's --terse-version default

// The lines for every reported job (group_reporting merged), in order.
// `version` must be 2..5.
std::string format_fio_terse(const workload::RunResults& run, int version);

}  // namespace rs::fio
