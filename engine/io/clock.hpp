// The clock of the real backends and of the load generator: CLOCK_MONOTONIC
// in nanoseconds.
//
// A load generator reads the clock several times per I/O (issue, submit,
// completion), so on a CPU-bound job (ioengine=null, I/O served from the
// page cache) the clock is a good part of the cost. Where the CPU's
// time-stamp counter is invariant (cpuid 0x80000007 EDX bit 8), fio reads
// it instead of clock_gettime (its default clocksource=cpu), and so do we:
// 11 ns a reading on this project's VMs, against 26 ns for the vDSO's
// clock_gettime on a kvm-clock guest.
//
// How: the first readings come from clock_gettime while the counter's rate
// is measured against it (after 20 ms, then refined after 1 s and 30 s); then
// a reading is anchor_ns + (tsc - anchor_tsc) * rate, anchored at a
// clock_gettime reading each time, so the clock follows CLOCK_MONOTONIC
// within microseconds. A thread's readings never go back (a reading below
// the thread's last one returns the last one): a latency is a difference of
// two readings on one thread and must not wrap.
// RAIDSCOPE_CLOCK_GETTIME=1 in the environment keeps clock_gettime.
#pragma once
#include <cstdint>
#include <ctime>

namespace rs::io {

uint64_t monotonic_ns() noexcept;

// The time from now to `until` (monotonic_ns clock; zero if past), for
// the timeouts of system calls that wait.
inline timespec timespec_until(uint64_t until) noexcept {
  const uint64_t now = monotonic_ns();
  const uint64_t wait = until > now ? until - now : 0;
  return {time_t(wait / 1'000'000'000ull), long(wait % 1'000'000'000ull)};
}

}  // namespace rs::io
