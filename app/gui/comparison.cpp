#include "comparison.hpp"

#include <QObject>
#include <algorithm>
#include <cmath>

#include "report/report_model.hpp"

namespace rs::gui {

namespace {

double percentileMs(const report::DirFigures& d, double p) {
  for (const auto& x : d.percentiles)
    if (x.p == p) return x.us / 1000;
  return 0;
}

QString mbs(double bytes) {
  return QString::number(bytes / 1e6, 'f', bytes >= 1e8 ? 0 : 1) + " MB/s";
}

QVariantMap side(const std::vector<RunFigures>& runs, const QString& label) {
  std::vector<double> bw, iops, p50, p90, p99;
  QVariantList each;
  for (const auto& r : runs) {
    bw.push_back(r.bandwidth), iops.push_back(r.iops), p50.push_back(r.p50Ms), p90.push_back(r.p90Ms);
    p99.push_back(r.p99Ms);
    each.push_back(toMap(r));
  }
  const Spread s = spreadOf(bw);
  // The shares of the run nearest the median (the shares of a median are
  // not a median of shares; with an even count no run is the median).
  QVariantList shares;
  const RunFigures* nearest = nullptr;
  for (const auto& r : runs)
    if (!nearest || std::fabs(r.bandwidth - s.median) < std::fabs(nearest->bandwidth - s.median))
      nearest = &r;
  if (nearest)
    for (double x : nearest->shares) shares.push_back(x);
  return {{"label", label},
          {"bandwidth", s.median},
          {"bandwidthLow", s.low},
          {"bandwidthHigh", s.high},
          {"spread", s.relative()},
          {"iops", spreadOf(iops).median},
          {"p50Ms", spreadOf(p50).median},
          {"p90Ms", spreadOf(p90).median},
          {"p99Ms", spreadOf(p99).median},
          {"p99Spread", spreadOf(p99).relative()},
          {"shares", shares},
          {"runs", each}};
}

}  // namespace

RunFigures figuresOf(const report::Json& doc) {
  RunFigures f;
  auto model = report::build_model({{"run", doc}}, true);
  if (!model || model->runs.empty()) return f;
  const auto& jobs = model->runs[0].jobs;
  for (const auto& j : jobs) f.bandwidth += j.bw_bytes, f.iops += j.iops;
  if (!jobs.empty()) {
    const auto& d = jobs[0].read.present ? jobs[0].read : jobs[0].write;
    f.p50Ms = percentileMs(d, 50), f.p90Ms = percentileMs(d, 90), f.p99Ms = percentileMs(d, 99);
    for (const auto& [name, share] : jobs[0].read_share)
      f.members.push_back(QString::fromStdString(name)), f.shares.push_back(100 * share);
  }
  return f;
}

QVariantMap toMap(const RunFigures& f) {
  QVariantList shares, members;
  for (double s : f.shares) shares.push_back(s);
  for (const auto& m : f.members) members.push_back(m);
  return {{"bandwidth", f.bandwidth}, {"iops", f.iops},   {"p50Ms", f.p50Ms},  {"p90Ms", f.p90Ms},
          {"p99Ms", f.p99Ms},         {"shares", shares}, {"members", members}};
}

Spread spreadOf(std::vector<double> v) {
  Spread s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  s.low = v.front(), s.high = v.back();
  return s;
}

QVariantMap compareRuns(const std::vector<RunFigures>& before, const std::vector<RunFigures>& after,
                        const QString& beforeLabel, const QString& afterLabel, const QString& change) {
  QVariantMap a = side(before, beforeLabel), b = side(after, afterLabel);
  const double ma = a["bandwidth"].toDouble(), mb = b["bandwidth"].toDouble();
  const double ratio = ma > 0 ? mb / ma : 0;
  const bool measured = before.size() > 1 && after.size() > 1;
  // The noise: the larger of the two sides' spreads (± around the median).
  const double noise = std::max(a["spread"].toDouble(), b["spread"].toDouble());
  const bool overlap = a["bandwidthHigh"].toDouble() >= b["bandwidthLow"].toDouble() &&
                       b["bandwidthHigh"].toDouble() >= a["bandwidthLow"].toDouble();
  const bool within = !measured || overlap || std::fabs(ratio - 1) <= noise;
  QString verdict;
  const QString figures = QObject::tr("%1 → %2, ×%3").arg(mbs(ma), mbs(mb)).arg(ratio, 0, 'f', 2);
  if (!measured)
    verdict = QObject::tr(
                  "%1 from one run a side: the noise is not measured, so this may be chance. "
                  "Run repeats to tell.")
                  .arg(figures);
  else if (within)
    verdict =
        QObject::tr("%1: within the noise (medians of %2 runs; runs vary by ±%3 %). No difference shown.")
            .arg(figures)
            .arg(std::min(before.size(), after.size()))
            .arg(100 * noise, 0, 'f', 1);
  else
    verdict = QObject::tr("%1: %2 beyond the noise (medians of %3 runs; runs vary by ±%4 %).")
                  .arg(figures, ratio > 1 ? QObject::tr("faster") : QObject::tr("slower"))
                  .arg(std::min(before.size(), after.size()))
                  .arg(100 * noise, 0, 'f', 1);
  const double pa = a["p99Ms"].toDouble(), pb = b["p99Ms"].toDouble();
  const double p99Ratio = pa > 0 ? pb / pa : 0;
  const double p99Noise = measured ? std::max(a["p99Spread"].toDouble(), b["p99Spread"].toDouble()) : 0;
  // Worse: higher beyond the noise (and by at least 5 %: a p99 wobbles).
  const bool p99Worse = pa > 0 && p99Ratio > 1 + std::max(0.05, p99Noise);
  return {{"change", change},
          {"before", a},
          {"after", b},
          {"ratio", ratio},
          {"withinNoise", within},
          {"measuredNoise", measured},
          {"noise", noise},
          {"verdict", verdict},
          {"p99Ratio", p99Ratio},
          {"p99Worse", p99Worse},
          {"runs", int(std::min(before.size(), after.size()))}};
}

}  // namespace rs::gui
