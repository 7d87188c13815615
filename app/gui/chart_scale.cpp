#include "chart_scale.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace rs::gui::chart {

double niceCeiling(double max) {
  if (!(max > 0) || !std::isfinite(max)) return 1;
  const double p = std::pow(10.0, std::floor(std::log10(max)));
  for (double f : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (f * p >= max * (1 - 1e-9)) return f * p;
  return 10 * p;
}

int gridDivisions(double ymax) {
  if (!(ymax > 0) || !std::isfinite(ymax)) return 4;
  const double mantissa = ymax / std::pow(10.0, std::floor(std::log10(ymax)));
  return std::fabs(mantissa - 2) < 1e-6 || std::fabs(mantissa - 8) < 1e-6 ? 4 : 5;
}

int gridDivisions(double ymax, double plotHeight, double lineHeight) {
  const int div = gridDivisions(ymax);
  const double room = lineHeight * 1.4;  // a label and a little air
  if (plotHeight / div >= room) return div;
  return plotHeight / 2 >= room ? 2 : 1;
}

QString tickLabel(double v) {
  if (v == 0) return QStringLiteral("0");
  const double a = std::fabs(v);
  if (a >= 1e6) return QString::number(v / 1e6, 'g', 3) + "M";
  if (a >= 1e4) return QString::number(v / 1e3, 'g', 3) + "k";
  if (a >= 10) return QString::number(v, 'f', 0);
  return QString::number(v, 'g', 2);
}

namespace {

struct Column {
  int x;
  double sum;
  int n;
};

}  // namespace

Decimated decimate(const std::deque<QPointF>& pts, double t0, double t1, double width) {
  Decimated out;
  if (pts.empty() || !(t1 > t0) || !(width >= 1)) return out;
  const double perPx = width / (t1 - t0);
  const int lastColumn = std::max(0, int(std::ceil(width)) - 1);  // a point at t1 is in the last column
  auto first =
      std::lower_bound(pts.begin(), pts.end(), t0, [](const QPointF& a, double t) { return a.x() < t; });
  std::vector<Column> cols;
  size_t used = 0;
  for (auto it = first; it != pts.end() && it->x() <= t1; ++it, ++used) {
    const int c = std::min(lastColumn, int(std::floor((it->x() - t0) * perPx)));
    if (cols.empty() || cols.back().x != c)
      cols.push_back({c, it->y(), 1});
    else
      cols.back().sum += it->y(), ++cols.back().n;
  }
  out.dense = !cols.empty() && used >= 2 * cols.size();
  if (!out.dense) {
    if (first != pts.begin()) out.points.push_back(*std::prev(first));
    for (auto it = first; it != pts.end() && it->x() <= t1; ++it) out.points.push_back(*it);
    return out;
  }
  out.points.reserve(qsizetype(cols.size()));
  for (size_t j = 0; j < cols.size(); ++j) {
    double sum = 0;
    int n = 0;
    for (size_t k = j >= 2 ? j - 2 : 0; k < cols.size() && k <= j + 2; ++k)
      if (std::abs(cols[k].x - cols[j].x) <= 2) sum += cols[k].sum, n += cols[k].n;
    out.points.push_back(QPointF(t0 + (cols[j].x + 0.5) / perPx, sum / n));
  }
  return out;
}

}  // namespace rs::gui::chart
