// fio's normal (human) output for a run: the per-job blocks and the
// "Run status group" summary fio 3.33 prints when jobs finish, with fio's own
// number formatting, followed per job by a short "raidscope" block.
//
// Not included: fio's start banner ("name: (g=0): rw=..., fio-3.33,
// Starting N processes"), which the runner prints before the run, and the
// "Disk stats" section (we have no disk_util).
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "workload/results.hpp"

namespace rs::fio {

using workload::LatencyHistogram;
using workload::RunningStats;
using workload::RunResults;

enum class N2SUnit { none, per_sec, byte, bit, byte_per_sec, bit_per_sec };

// fio num2str(): `num` (a count of `base` units) with at most `maxlen` digits
// (the point counts as one), scaled by 1000 (pow2 = false: k, M, G, T, P) or
// 1024 (pow2 = true: Ki, Mi, Gi, Ti, Pi), keeping fio's rounding. E.g.
// (1610612736, 4, 1, true, byte_per_sec) -> "1536MiB/s", with pow2 = false ->
// "1611MB/s"; (16106127360, 4, 1, true, byte) -> "15.0GiB".
std::string fio_num2str(uint64_t num, int maxlen, int base, bool pow2, N2SUnit unit);

// ctime() without the newline, in local time: "Sun Nov 29 23:24:42 2026".
std::string fio_ctime(int64_t unix_seconds);

// One "    clat (usec): min=..., max=..., avg=..., stdev=..." line (fio
// display_lat); `name` is "slat", "clat" or " lat". Empty if no samples.
std::string fio_lat_line(std::string_view name, const LatencyHistogram& h);
std::string fio_lat_line(std::string_view name, uint64_t min, uint64_t max, double mean, double dev);

// fio's percentile block ("    clat percentiles (usec):\n     |  1.00th=[...],
// ..."), units chosen from the values like fio; `ascending` sorted; empty if
// the histogram has no samples or the list is empty.
std::string fio_percentile_block(std::string_view name, const LatencyHistogram& h,
                                 std::span<const double> ascending, int precision);
// Same from the values (ns) already computed for `ascending`.
std::string fio_percentile_block(std::string_view name, std::span<const uint64_t> values_ns,
                                 std::span<const double> ascending, int precision);

// fio's sampled bandwidth line ("   bw (  KiB/s): min=..."; inputs in KiB/s,
// `per` in percent of the group) and IOPS line; empty without samples.
std::string fio_bw_line(const RunningStats& kib, double per);
std::string fio_bw_line(uint64_t min, uint64_t max, double per, double mean, double dev, uint64_t samples);
std::string fio_iops_line(uint64_t min, uint64_t max, double mean, double dev, uint64_t samples);

// fio stat_calc_lat (floor 0.01) and stat_calc_dist (floor 0.1): each count
// as a percent of `total`, any non-empty one shown as at least `floor`.
template <size_t N>
std::array<double, N> fio_percents(const std::array<uint64_t, N>& counts, uint64_t total, double floor) {
  std::array<double, N> out{};
  for (size_t i = 0; i < N && total; ++i) {
    out[i] = static_cast<double>(counts[i]) / static_cast<double>(total) * 100.0;
    if (out[i] < floor && counts[i]) out[i] = floor;
  }
  return out;
}

// The whole report, starting with fio's blank line.
std::string format_fio_normal(const RunResults& run);

}  // namespace rs::fio
