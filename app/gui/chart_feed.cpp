#include "chart_feed.hpp"

#include <QFontMetricsF>
#include <QGuiApplication>
#include <QValueAxis>
#include <QVariantMap>
#include <QXYSeries>
#include <algorithm>
#include <cmath>

#include "chart_scale.hpp"

namespace rs::gui {

ChartFeed::ChartFeed(QObject* parent) : QObject(parent) {
  late_.setSingleShot(true);
  connect(&late_, &QTimer::timeout, this, &ChartFeed::update);
}

void ChartFeed::setModel(TelemetryModel* m) {
  if (model_ == m) return;
  if (conn_) disconnect(conn_);
  model_ = m;
  if (m) conn_ = connect(m, &TelemetryModel::updated, this, &ChartFeed::scheduleUpdate);
  emit modelChanged();
  update();
}

void ChartFeed::setMetric(const QString& m) {
  if (metric_ == m) return;
  metric_ = m;
  emit modelChanged();
  update();
}

void ChartFeed::setUnit(const QString& u) {
  if (unit_ == u) return;
  unit_ = u;
  emit styleChanged();
  update();
}

void ChartFeed::setWindow(double w) {
  w = w > 1 ? w : 1;
  if (w == window_) return;
  window_ = w;
  emit windowChanged();
  emit styleChanged();  // legendNote
  update();
}

void ChartFeed::setFixedMax(double v) {
  fixed_max_ = v;
  emit styleChanged();
  update();
}

void ChartFeed::setLegendStat(const QString& s) {
  if (s != "newest" && s != "mean" && s != "peak") {
    qWarning("ChartFeed.legendStat: '%s' is not newest, mean or peak", qPrintable(s));
    return;
  }
  legend_stat_ = s;
  emit styleChanged();
  update();
}

QString ChartFeed::legendNote() const {
  const QString secs = QString::number(window_, 'f', 0);
  if (legend_stat_ == "mean") return tr("legend: %1 s mean").arg(secs);
  if (legend_stat_ == "peak") return tr("legend: %1 s peak").arg(secs);
  return tr("legend: newest value");
}

QVariantList ChartFeed::seriesList() const {
  QVariantList out;
  for (const auto& s : series_) out.push_back(QVariant::fromValue<QObject*>(s.data()));
  return out;
}

void ChartFeed::setSeries(const QVariantList& series) {
  series_.clear();
  for (const QVariant& v : series) series_.push_back(qobject_cast<QXYSeries*>(v.value<QObject*>()));
  shown_max_ = -1;  // new series: set the axes again
  emit seriesChanged();
  update();
}

QObject* ChartFeed::axisX() const {
  return axis_x_.data();
}
QObject* ChartFeed::axisY() const {
  return axis_y_.data();
}

// The time axis' range is the feed's alone (QML binds none: a binding to
// the window was re-evaluated on every resize and threw a scrolled chart
// back to [t0, window] until the next update).
void ChartFeed::setAxisX(QObject* a) {
  axis_x_ = qobject_cast<QValueAxis*>(a);
  if (axis_x_) {
    const auto [t0, t1] = span();
    axis_x_->setRange(t0, t1);
  }
  emit seriesChanged();
}

void ChartFeed::setAxisY(QObject* a) {
  axis_y_ = qobject_cast<QValueAxis*>(a);
  shown_max_ = -1;
  emit seriesChanged();
}

// A new plot size is laid out on the next turn of the event loop, not at
// the next tick's pace: with the run stopped no tick comes, and the marks
// stood where the old width put them (past the plot's edge after the window
// was made smaller). Not inside the setter: the update sets the axes, which
// lays out the chart and changes the plot size this setter is bound to (a
// binding loop).
void ChartFeed::setPlotWidth(double w) {
  if (w == plot_width_) return;
  plot_width_ = w;
  emit plotSizeChanged();
  late_.start(0);
}

void ChartFeed::setPlotHeight(double h) {
  if (h == plot_height_) return;
  plot_height_ = h;
  shown_ticks_ = -1;
  emit plotSizeChanged();
  late_.start(0);
}

void ChartFeed::setLineHeight(double h) {
  h = h > 0 ? h : 15;
  if (h == line_height_) return;
  line_height_ = h;
  emit plotSizeChanged();
}

void ChartFeed::setMaxUpdateHz(int hz) {
  max_update_hz_ = std::clamp(hz, 1, 60);
  emit styleChanged();
}

void ChartFeed::setActive(bool a) {
  if (a == active_) return;
  active_ = a;
  emit styleChanged();
  if (a) update();
}

std::pair<double, double> ChartFeed::span() const {
  // Fills from the left until a window has passed, then scrolls.
  const double now = model_ ? model_->elapsed() : 0;
  const double t1 = std::max(now, window_);
  return {t1 - window_, t1};
}

// At most maxUpdateHz a second, and no faster than the time axis moves a
// pixel (a 60 s window 300 px wide scrolls a pixel every 0.2 s: an update
// between two shows the same picture). Updates happen only on the model's
// ticks, so every chart of a page changes in the frame the tick's figures
// change in (a timer per chart drew frames of their own between ticks).
// The timer catches the last update when the ticks stop.
void ChartFeed::scheduleUpdate() {
  // The time axis moves 2 px at a time: half the chart repaints of a 1 px
  // step, for a scroll that still reads as continuous.
  const double pixelMs = plot_width_ > 0 ? 2 * 1000.0 * window_ / plot_width_ : 0;
  const qint64 period = std::max<qint64>(1000 / max_update_hz_, qint64(pixelMs));
  const qint64 waited = since_update_.isValid() ? since_update_.elapsed() : period;
  if (waited >= period * 8 / 10) {
    late_.stop();
    update();
    return;
  }
  late_.start(int(period * 2));  // restarted on every tick: fires only once they stop
}

double ChartFeed::lastValue() const {
  if (!model_) return 0;
  const auto& lines = model_->lines(metric_);
  return lines.empty() || lines[0].points.empty() ? 0 : lines[0].points.back().y();
}

double ChartFeed::legendFigure(int line) const {
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

QString ChartFeed::legendText(int line) const {
  if (!model_) return {};
  const auto& lines = model_->lines(metric_);
  if (line < 0 || size_t(line) >= lines.size()) return {};
  return lines[size_t(line)].name + ": " + chart::tickLabel(legendFigure(line)) +
         (unit_.isEmpty() ? QString() : " " + unit_);
}

void ChartFeed::update() {
  since_update_.start();
  static const std::vector<SeriesLine> none;
  const auto& lines = model_ ? model_->lines(metric_) : none;
  QStringList names;
  for (const auto& l : lines) names << l.name;
  if (names != line_names_) {
    line_names_ = names;
    const int before = updates_;
    emit linesChanged();  // QML makes the series and sets them, which updates again
    if (updates_ != before) return;
  }
  if (!active_) return;
  const auto [t0, t1] = span();
  double ymax = 0;
  for (const auto& l : lines)
    for (auto it = l.points.rbegin(); it != l.points.rend() && it->x() >= t0; ++it)
      ymax = std::max(ymax, it->y());
  ymax = fixed_max_ > 0 ? fixed_max_ : chart::niceCeiling(ymax * 1.05);
  // Large figures in thousands or millions: the axis labels stay short.
  const double scale = fixed_max_ > 0 || ymax < 1e4 ? 1 : ymax < 1e7 ? 1e3 : 1e6;
  point_count_ = 0;
  const double width = std::max(1.0, plot_width_ > 0 ? plot_width_ : 300);
  for (size_t i = 0; i < lines.size() && i < size_t(series_.size()); ++i) {
    chart::Decimated d = chart::decimate(lines[i].points, t0, t1, width);
    if (scale != 1)
      for (auto& p : d.points) p.setY(p.y() / scale);
    point_count_ += int(d.points.size());
    if (QXYSeries* s = series_[qsizetype(i)]) s->replace(d.points);
  }
  updateAxes(ymax, scale);
  if (axis_x_) axis_x_->setRange(t0, t1);
  layOutLegend();
  layOutMarks(t0, t1);
  ++updates_;
  emit updated();
}

void ChartFeed::updateAxes(double ymax, double scale) {
  axis_unit_ = scale == 1 ? unit_ : (scale == 1e3 ? "k" : "M") + unit_;
  if (!axis_y_) return;
  const int ticks = chart::gridDivisions(ymax, plot_height_ > 0 ? plot_height_ : 200, line_height_) + 1;
  if (ymax / scale != shown_max_) {
    shown_max_ = ymax / scale;
    axis_y_->setRange(0, shown_max_);
  }
  if (ticks != shown_ticks_) {
    shown_ticks_ = ticks;
    axis_y_->setTickCount(ticks);
  }
}

void ChartFeed::layOutLegend() {
  QVariantList legend;
  static const std::vector<SeriesLine> none;
  const auto& lines = model_ ? model_->lines(metric_) : none;
  for (size_t i = 0; i < lines.size(); ++i) {
    const bool any = !lines[i].points.empty();
    legend.push_back(QVariantMap{
        {"name", lines[i].name},
        {"value", any ? chart::tickLabel(legendFigure(int(i))) + (unit_.isEmpty() ? QString() : " " + unit_)
                      : QString()}});
  }
  if (legend == legend_) return;
  legend_ = std::move(legend);
  emit legendChanged();
}

// Each label in the first of three rows where it clears the labels after
// it, the newest placed first: the latest change is the one labelled when
// changes crowd (the array's opening events held every row before); an
// older one with no room keeps only its dashed line. A label goes right of
// its line, or left of it where the plot ends first ("repair=fi…" was cut
// at the right edge), and is elided only when the plot is narrower than it.
void ChartFeed::layOutMarks(double t0, double t1) {
  QVariantList marks;
  if (model_ && plot_width_ > 0) marks = placeMarks(t0, t1);
  if (marks == marks_) return;
  marks_ = std::move(marks);
  emit marksChanged();
}

QVariantList ChartFeed::placeMarks(double t0, double t1) const {
  QVariantList marks;
  const QFontMetricsF fm(QGuiApplication::font());
  constexpr double kGap = 3;            // between the line and its label
  double rowLeft[3] = {1e9, 1e9, 1e9};  // where each row's leftmost label starts
  const auto& all = model_->marks();
  for (auto m = all.rbegin(); m != all.rend(); ++m) {
    if (m->t < t0 || m->t > t1) continue;
    const double x = (m->t - t0) / (t1 - t0) * plot_width_;
    const double w = std::min(plot_width_, std::ceil(fm.horizontalAdvance(m->label)));
    // The label's left edge relative to the line.
    double offset = kGap;
    if (x + kGap + w > plot_width_) offset = x - kGap - w >= 0 ? -kGap - w : plot_width_ - w - x;
    const double left = x + offset;
    int row = -1;
    for (int r = 0; r < 3 && row < 0; ++r)
      if (left + w + 6 < rowLeft[r]) row = r, rowLeft[r] = left;
    marks.prepend(QVariantMap{{"x", x}, {"label", m->label}, {"row", row}, {"labelX", offset}, {"width", w}});
  }
  return marks;
}

}  // namespace rs::gui
