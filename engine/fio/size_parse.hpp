// Numbers in fio job options: sizes with fio's unit suffixes, times with
// fio's time units, and plain bounded integers.
//
// Sizes, as fio 3.33 reads them with kb_base=1024 (its default, and the only
// base RaidScope supports). Checked against `fio --debug=parse`:
//   4096, 4096b, 4096B           -> 4096
//   4k, 4K, 4kb, 4KB, 4ki, 4Ki   -> 4 * 1024         (also m, g, t, p: 1024^2 .. 1024^5)
//   4kib, 4KiB                   -> 4 * 1000         (fio's "compatibility mode": with
//                                                     kb_base=1024 the IEC-looking form
//                                                     means powers of ten: 1MiB = 1000000)
//   0x1000                       -> 4096             (hexadecimal, no suffix)
//   50%                          -> percentage (only where the option takes one)
// Suffixes are case-insensitive. Where fio silently misreads a value we
// refuse it instead: fractions ("1.5g" is 1 byte to fio), unknown suffixes
// ("4q" is 4 bytes to fio), signs, inner spaces, overflow.
//
// Times: an integer and an optional unit, case-insensitive: us/usec, ms/msec,
// s, m (minutes), h, d. Without a unit the option's default applies (seconds
// for runtime/ramp_time/startdelay, microseconds for thinktime). "10sec" and
// "10min" are refused: fio 3.33 reads both as 10 microseconds.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.hpp"

namespace rs::fio {

struct Number {
  uint64_t value = 0;    // bytes, microseconds or the plain integer
  bool percent = false;  // "N%": value holds N
};
// The number, or an invalid_argument Error saying what is wrong with the text.
using NumberResult = Result<Number>;

// A size in bytes. allow_percent: accept "N%" with N in 1..100.
NumberResult parse_size(std::string_view text, bool allow_percent = false);

enum class TimeUnit : uint64_t { microseconds = 1, seconds = 1'000'000 };
// A time, converted to microseconds.
NumberResult parse_time(std::string_view text, TimeUnit default_unit);

// A non-negative integer in [min, max]; size suffixes are accepted as fio
// does for its integer options ("iodepth=1k" is 1024).
NumberResult parse_integer(std::string_view text, uint64_t min, uint64_t max);

}  // namespace rs::fio
