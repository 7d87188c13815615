// Two sets of runs compared as a benchmark should be: each side's median
// with its spread (lowest to highest, and as a share of the median), the
// ratio of the medians, and a verdict that says when the difference is
// within the noise (the two sides' ranges overlap, or the ratio is off 1 by
// less than their spread) rather than presenting one noisy run as
// definitive. A 99th percentile latency that got worse beyond the noise is
// called out even when the bandwidth improved. Plain arithmetic, tested
// alone; the Benchmark and History pages show what it returns.
#pragma once
#include <QString>
#include <QVariantList>
#include <QVariantMap>
#include <vector>

#include "report/result_doc.hpp"

namespace rs::gui {

// One run's headline figures, from its result document.
struct RunFigures {
  double bandwidth = 0, iops = 0;          // bytes/s, I/Os per second; every job, both directions
  double p50Ms = 0, p90Ms = 0, p99Ms = 0;  // the first job's (reads if it read, else writes)
  std::vector<double> shares;              // read share per member, %
  std::vector<QString> members;            // their names in the document
};

RunFigures figuresOf(const report::Json& doc);
QVariantMap toMap(const RunFigures& f);

struct Spread {
  double median = 0, low = 0, high = 0;
  double relative() const { return median > 0 ? (high - low) / 2 / median : 0; }  // ± around the median
};
Spread spreadOf(std::vector<double> values);

// {change, runs (per side), before: {median figures, bandwidthLow/High,
// spread (±, 0..1), runs: [figures]}, after: {...}, ratio (after/before
// medians), withinNoise, measuredNoise (false with one run a side),
// verdict (a sentence), p99Ratio, p99Worse (beyond the noise)}.
QVariantMap compareRuns(const std::vector<RunFigures>& before, const std::vector<RunFigures>& after,
                        const QString& beforeLabel, const QString& afterLabel, const QString& change);

}  // namespace rs::gui
