#include "time_chart.hpp"

#include <QFontMetricsF>
#include <QPainter>
#include <QStaticText>
#include <QTimer>
#include <algorithm>
#include <climits>
#include <cmath>

namespace rs::gui {

namespace {

// Breeze's accent colours: what KDE's own charts use for series.
const QColor kDefaultColors[] = {QColor(0x3d, 0xae, 0xe9), QColor(0xf6, 0x74, 0x00), QColor(0x1c, 0xdc, 0x9a),
                                 QColor(0xda, 0x44, 0x53), QColor(0x9b, 0x59, 0xb6), QColor(0xfd, 0xbc, 0x4b)};

QString tickLabel(double v) {
  if (v == 0) return QStringLiteral("0");
  const double a = std::fabs(v);
  if (a >= 1e6) return QString::number(v / 1e6, 'g', 3) + "M";
  if (a >= 1e4) return QString::number(v / 1e3, 'g', 3) + "k";
  if (a >= 10) return QString::number(v, 'f', 0);
  if (a >= 1) return QString::number(v, 'g', 2);
  return QString::number(v, 'g', 2);
}

}  // namespace

TimeChart::TimeChart(QQuickItem* parent) : QQuickPaintedItem(parent) {
  setAntialiasing(true);
  setOpaquePainting(false);
  late_.setSingleShot(true);
  connect(&late_, &QTimer::timeout, this, [this] {
    since_repaint_.start();
    update();
  });
}

void TimeChart::setModel(TelemetryModel* m) {
  if (model_ == m) return;
  if (conn_) disconnect(conn_);
  model_ = m;
  if (m)
    conn_ = connect(m, &TelemetryModel::updated, this, [this] {
      scheduleRepaint();
      emit painted();
    });
  emit modelChanged();
  update();
}

// Repaints on the model's update when maxRepaintHz allows, else leaves it
// to a later update: the session's ticks come at its refresh rate, so a
// chart at 10 Hz repaints on every other tick, in the same frame as the
// figures that changed with it, never in a frame of its own. A timer
// catches the last update when the data stops.
void TimeChart::scheduleRepaint() {
  // No faster than the time axis moves a pixel either: a 60 s window 300 px
  // wide scrolls a pixel every 0.2 s, and a repaint between two shows the
  // same picture but for the newest column (stroking the lines was most of
  // the chart's cost in a profile).
  const double pixelMs = plot_width_ > 0 ? 1000.0 * window_ / plot_width_ : 0;
  const qint64 period = std::max<qint64>(1000 / max_repaint_hz_, qint64(pixelMs));
  const qint64 waited = since_repaint_.isValid() ? since_repaint_.elapsed() : period;
  if (waited >= period * 8 / 10) {
    since_repaint_.start();
    late_.stop();
    update();
    return;
  }
  if (!late_.isActive()) late_.start(int(period));
}

void TimeChart::setMetric(const QString& m) {
  if (metric_ == m) return;
  metric_ = m;
  emit metricChanged();
  update();
}

QColor TimeChart::lineColor(int i) const {
  if (i < colors_.size()) {
    QColor c = colors_[i].value<QColor>();
    if (c.isValid()) return c;
  }
  return kDefaultColors[size_t(i) % std::size(kDefaultColors)];
}

int TimeChart::lineCount() const {
  return model_ ? int(model_->lines(metric_).size()) : 0;
}

int TimeChart::pointCount() const {
  int n = 0;
  if (model_)
    for (const auto& l : model_->lines(metric_)) n += int(l.points.size());
  return n;
}

double TimeChart::lastValue() const {
  if (!model_) return 0;
  const auto& lines = model_->lines(metric_);
  return lines.empty() || lines[0].points.empty() ? 0 : lines[0].points.back().y();
}

std::pair<double, double> TimeChart::span() const {
  // Fills from the left until a window has passed, then scrolls.
  const double now = model_ ? model_->elapsed() : 0;
  const double t1 = std::max(now, window_);
  return {t1 - window_, t1};
}

void TimeChart::setLegendStat(const QString& s) {
  if (s != "newest" && s != "mean" && s != "peak") {
    qWarning("TimeChart.legendStat: '%s' is not newest, mean or peak", qPrintable(s));
    return;
  }
  legend_stat_ = s;
  emit styleChanged();
  update();
}

QString TimeChart::legendNote() const {
  const QString secs = QString::number(window_, 'f', 0);
  if (legend_stat_ == "mean") return tr("legend: %1 s mean").arg(secs);
  if (legend_stat_ == "peak") return tr("legend: %1 s peak").arg(secs);
  return tr("legend: newest value");
}

double TimeChart::legendFigure(int line) const {
  if (!model_) return 0;
  const auto& lines = model_->lines(metric_);
  if (line < 0 || size_t(line) >= lines.size() || lines[size_t(line)].points.empty()) return 0;
  const auto& pts = lines[size_t(line)].points;
  if (legend_stat_ == "newest") return pts.back().y();
  const double t0 = span().first;
  double sum = 0, peak = 0;
  int n = 0;
  for (auto it = pts.rbegin(); it != pts.rend() && it->x() >= t0; ++it)
    sum += it->y(), peak = std::max(peak, it->y()), ++n;
  if (n == 0) return 0;
  return legend_stat_ == "peak" ? peak : sum / n;
}

QString TimeChart::legendText(int line) const {
  if (!model_) return {};
  const auto& lines = model_->lines(metric_);
  if (line < 0 || size_t(line) >= lines.size()) return {};
  return lines[size_t(line)].name + ": " + tickLabel(legendFigure(line)) +
         (unit_.isEmpty() ? QString() : " " + unit_);
}

double TimeChart::niceCeiling(double max) {
  if (!(max > 0) || !std::isfinite(max)) return 1;
  const double p = std::pow(10.0, std::floor(std::log10(max)));
  for (double f : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (f * p >= max * (1 - 1e-9)) return f * p;
  return 10 * p;
}

int TimeChart::gridDivisions(double ymax) {
  if (!(ymax > 0) || !std::isfinite(ymax)) return 4;
  const double mantissa = ymax / std::pow(10.0, std::floor(std::log10(ymax)));
  return std::fabs(mantissa - 2) < 1e-6 || std::fabs(mantissa - 8) < 1e-6 ? 4 : 5;
}

int TimeChart::gridDivisions(double ymax, double plotHeight, double lineHeight) {
  const int div = gridDivisions(ymax);
  const double room = lineHeight * 1.4;  // a label and a little air
  if (plotHeight / div >= room) return div;
  return plotHeight / 2 >= room ? 2 : 1;
}

void TimeChart::paint(QPainter* p) {
  const QRectF all = boundingRect();
  if (all.width() < 40 || all.height() < 40) return;
  p->setRenderHint(QPainter::Antialiasing, true);
  const QFont font = p->font();
  const QFontMetricsF fm(font);
  const double lineH = fm.height();
  if (font != text_font_) texts_.clear(), text_font_ = font;
  // Labels are laid out once and kept (QStaticText): the same axis labels
  // come back frame after frame, and shaping them again in every paint
  // was half its time in a profile of the dashboard.
  auto label = [&](const QString& s) -> const QStaticText& {
    auto it = texts_.find(s);
    if (it == texts_.end()) {
      if (texts_.size() > 512) texts_.clear();
      QStaticText st(s);
      st.setTextFormat(Qt::PlainText);
      st.setPerformanceHint(QStaticText::AggressiveCaching);
      st.prepare(QTransform(), font);
      it = texts_.insert(s, st);
    }
    return *it;
  };
  auto width = [&](const QString& s) { return label(s).size().width(); };
  auto drawAt = [&](double x, double baseline, const QString& s) {
    p->drawStaticText(QPointF(x, baseline - fm.ascent()), label(s));
  };

  static const std::vector<SeriesLine> none;
  const auto& lines = model_ ? model_->lines(metric_) : none;
  const auto sp = span();
  const double t0 = sp.first, t1 = sp.second;

  // Y range from what is visible.
  double ymax = 0;
  for (const auto& l : lines)
    for (auto it = l.points.rbegin(); it != l.points.rend() && it->x() >= t0; ++it) ymax = std::max(ymax, it->y());
  ymax = fixed_max_ > 0 ? fixed_max_ : niceCeiling(ymax * 1.05);

  // Layout: y labels on the left, legend on top, time labels below.
  const QString topLabel = tickLabel(ymax) + (unit_.isEmpty() ? QString() : " " + unit_);
  const double labelW = std::max(width(topLabel), width(QStringLiteral("0000"))) + 8;
  // The top y label is centred on the plot's top edge: half a line more
  // below the legend so the two never touch.
  const double plotTop = all.top() + lineH + fm.ascent() / 2 + 4;
  const QRectF plot(all.left() + labelW, plotTop, all.width() - labelW - 8, all.bottom() - lineH - 6 - plotTop);
  if (plot.width() < 20 || plot.height() < 20) return;
  plot_width_ = plot.width();
  auto X = [&](double t) { return plot.left() + (t - t0) / window_ * plot.width(); };
  auto Y = [&](double v) { return plot.bottom() - std::clamp(v / ymax, 0.0, 1.02) * plot.height(); };

  // Grid and labels, not antialiased. The grid is drawn as 1 px filled
  // rectangles: with an opaque colour the raster engine fills them
  // directly, where stroked lines go through span blending (which Qt
  // spreads over its thread pool: a thread hand-off per line, most of the
  // paint's cost when this chart was profiled).
  p->setRenderHint(QPainter::Antialiasing, false);
  const QRect px = plot.toAlignedRect();
  auto hline = [&](int y, int x0, int x1) { p->fillRect(QRect(x0, y, x1 - x0 + 1, 1), grid_); };
  auto vline = [&](int x, int y0, int y1) { p->fillRect(QRect(x, y0, 1, y1 - y0 + 1), grid_); };
  hline(px.top(), px.left(), px.right());
  hline(px.bottom(), px.left(), px.right());
  vline(px.left(), px.top(), px.bottom());
  vline(px.right(), px.top(), px.bottom());
  const int div = gridDivisions(ymax, plot.height(), lineH);
  for (int i = 1; i < div; ++i) hline(int(std::lround(plot.bottom() - plot.height() * i / div)), px.left(), px.right());
  p->setPen(text_);
  for (int i = 0; i <= div; ++i) {
    const double v = ymax * i / div;
    const double y = plot.bottom() - plot.height() * i / div;
    QString s = tickLabel(v);
    if (i == div && !unit_.isEmpty()) s += " " + unit_;
    drawAt(all.left() + labelW - 6 - width(s), y + fm.ascent() / 2 - 1, s);
  }
  // Time ticks every 10 s (or 30/60 for long windows), labelled in run time.
  const double step = window_ <= 70 ? 10 : window_ <= 200 ? 30 : 60;
  for (double t = std::ceil(std::max(t0, 0.0) / step) * step; t <= t1 + 1e-9; t += step) {
    const double x = X(t);
    vline(int(std::lround(x)), px.bottom(), px.bottom() + 3);
    const QString s = QString::number(t, 'f', 0) + "s";
    const double w = width(s);
    const double lx = std::clamp(x - w / 2, plot.left(), plot.right() - w);
    drawAt(lx, plot.bottom() + 4 + fm.ascent(), s);
  }

  // Marks: a dashed line and a short label at the top of the plot.
  if (show_marks_ && model_) {
    QPen markPen(mark_, 1.2, Qt::DashLine);
    markPen.setCosmetic(true);
    // Each label in the first of three rows where it clears the label
    // before it (two changes seconds apart on a narrow chart: the second
    // was a dashed line with no name); none when no row has room.
    double rowRight[3] = {-1e9, -1e9, -1e9};
    for (const auto& m : model_->marks()) {
      if (m.t < t0 || m.t > t1) continue;
      const double x = X(m.t);
      p->setPen(markPen);
      p->drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()));
      const QString text = fm.elidedText(m.label, Qt::ElideRight, std::max(60.0, plot.right() - x - 4));
      for (int row = 0; row < 3; ++row) {
        if (x + 3 <= rowRight[row]) continue;
        p->setPen(mark_);
        p->drawText(QPointF(x + 3, plot.top() + fm.ascent() + 1 + row * (fm.height() + 1)), text);
        rowRight[row] = x + 3 + fm.horizontalAdvance(text) + 6;
        break;
      }
    }
  }

  // Lines, clipped to the plot. Per pixel column the points' lowest and
  // highest value, their mean, and the first and last (to join the
  // columns): 60 s at 20 Hz is 1200 points for a few hundred pixels.
  p->save();
  p->setClipRect(plot.adjusted(0, -2, 0, 0));
  struct Column {
    int x;
    double lo, hi, first, last, sum;
    int n;
    bool loFirst;  // the low came before the high
  };
  std::vector<std::vector<Column>> columns(lines.size());
  std::vector<bool> dense(lines.size(), false);
  for (size_t i = 0; i < lines.size(); ++i) {
    const auto& pts = lines[i].points;
    auto& cols = columns[i];
    size_t used = 0;
    auto it = std::lower_bound(pts.begin(), pts.end(), t0 - 1.0, [](const QPointF& a, double t) { return a.x() < t; });
    for (; it != pts.end(); ++it, ++used) {
      const int c = int(std::floor(X(it->x())));
      const double v = it->y();
      if (cols.empty() || cols.back().x != c) {
        cols.push_back({c, v, v, v, v, v, 1, true});
        continue;
      }
      Column& col = cols.back();
      if (v < col.lo) col.lo = v, col.loFirst = false;
      if (v > col.hi) col.hi = v, col.loFirst = true;
      col.last = v;
      col.sum += v;
      ++col.n;
    }
    dense[i] = !cols.empty() && used >= 2 * cols.size();
  }
  // Dense lines (the dashboard's charts), first every line's band: each
  // column's low to high in the line's colour faded into the background,
  // behind every line, so a noisy series reads as a line with its spread
  // around it rather than a solid block of bars.
  for (size_t i = 0; i < lines.size(); ++i) {
    if (!dense[i]) continue;
    const QColor c = lineColor(int(i));
    const double k = 0.35;  // how much of the line's colour the band keeps (visible on a dark base too)
    const QColor band = QColor::fromRgbF(float(c.redF() * k + background_.redF() * (1 - k)),
                                         float(c.greenF() * k + background_.greenF() * (1 - k)),
                                         float(c.blueF() * k + background_.blueF() * (1 - k)));
    for (const Column& col : columns[i]) {
      if (col.hi <= col.lo) continue;
      const int y0 = int(std::floor(Y(col.hi))), y1 = int(std::ceil(Y(col.lo)));
      p->fillRect(QRect(col.x, y0, 1, std::max(1, y1 - y0)), band);
    }
  }
  for (size_t i = 0; i < lines.size(); ++i) {
    const auto& cols = columns[i];
    if (cols.empty()) continue;
    const QColor colour = lineColor(int(i));
    if (dense[i]) {
      // Then the line: the mean of the points within two columns either
      // side (a column's own mean zig-zags when the samples alternate
      // around it; about a second on a 60 s chart), 2 px thick, as per
      // column a filled 2 px wide segment from the previous column's value
      // to this one's. Filled rectangles cost a fraction of stroking an
      // antialiased path, which took most of the GUI's CPU once a noisy
      // chart had filled its width.
      auto smoothed = [&](size_t j) {
        double sum = 0;
        int n = 0;
        for (size_t k = j >= 2 ? j - 2 : 0; k < cols.size() && k <= j + 2; ++k)
          if (std::abs(cols[k].x - cols[j].x) <= 2) sum += cols[k].sum, n += cols[k].n;
        return Y(sum / n);
      };
      double prev = smoothed(0);
      for (size_t j = 0; j < cols.size(); ++j) {
        const double y = smoothed(j);
        const int y0 = int(std::floor(std::min(prev, y) - 1)), y1 = int(std::ceil(std::max(prev, y) + 1));
        p->fillRect(QRect(cols[j].x, y0, 2, std::max(2, y1 - y0)), colour);
        prev = y;
      }
      continue;
    }
    // Sparse (a long window on a wide chart): an antialiased polyline.
    QPolygonF poly;
    poly.reserve(int(cols.size()) * 2);
    for (const Column& col : cols) {
      poly.push_back(QPointF(col.x, Y(col.loFirst ? col.lo : col.hi)));
      if (col.lo != col.hi) poly.push_back(QPointF(col.x, Y(col.loFirst ? col.hi : col.lo)));
    }
    // Bevel joins: round ones make the stroker build arcs at every vertex.
    p->setPen(QPen(colour, 2, Qt::SolidLine, Qt::FlatCap, Qt::BevelJoin));
    p->setBrush(Qt::NoBrush);
    p->setRenderHint(QPainter::Antialiasing, true);
    p->drawPolyline(poly);
  }
  p->restore();

  // Legend (top, left to right) with each line's newest value; the names
  // are elided (in the middle, where file names differ least) when all do
  // not fit.
  const double legendW = all.right() - all.left() - 2;
  bool withUnit = !unit_.isEmpty(), withValue = true;
  std::vector<double> figures(lines.size());
  for (size_t i = 0; i < lines.size(); ++i) figures[i] = legendFigure(int(i));
  auto valueText = [&](size_t i) {
    return lines[i].points.empty() || !withValue
               ? QString()
               : ": " + tickLabel(figures[i]) + (withUnit ? " " + unit_ : QString());
  };
  auto legendNeed = [&] {
    double need = 0;
    for (size_t i = 0; i < lines.size(); ++i) need += 28 + width(lines[i].name + valueText(i));
    return need;
  };
  double need = legendNeed();
  // Too long: without the unit (the axis says it), then without the
  // values (the lines show them), then with names elided.
  if (need > legendW && withUnit) withUnit = false, need = legendNeed();
  if (need > legendW) withValue = false, need = legendNeed();
  // Room for the names when all do not fit: the short ones keep theirs,
  // the long ones share what is left equally.
  std::vector<double> room(lines.size(), 1e9);
  if (need > legendW && !lines.empty()) {
    double left = legendW;
    std::vector<size_t> order(lines.size());
    for (size_t i = 0; i < lines.size(); ++i) order[i] = i, left -= 28 + width(valueText(i));
    std::sort(order.begin(), order.end(),
              [&](size_t a, size_t b) { return width(lines[a].name) < width(lines[b].name); });
    for (size_t k = 0; k < order.size(); ++k) {
      const double share = left / double(order.size() - k);
      room[order[k]] = std::max(24.0, std::min(width(lines[order[k]].name), share));
      left -= room[order[k]];
    }
  }
  double lx = all.left() + 2;
  for (size_t i = 0; i < lines.size(); ++i) {
    const QString value = valueText(i);
    QString name = lines[i].name;
    if (width(name) > room[i]) name = fm.elidedText(name, Qt::ElideMiddle, room[i]);
    const QString s = name + value;
    const double w = width(s);
    if (lx + 14 + w > all.right()) break;
    p->fillRect(QRectF(lx, all.top() + (lineH - 8) / 2 + 1, 10, 8), lineColor(int(i)));
    p->setPen(text_);
    drawAt(lx + 14, all.top() + fm.ascent() + 1, s);
    lx += 14 + w + 14;
  }
  if (lines.empty() || pointCount() == 0) {
    p->setPen(text_);
    p->drawText(plot, Qt::AlignCenter, tr("Waiting for data…"));
  }
}

}  // namespace rs::gui
