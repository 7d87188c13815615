// A live line chart over time, drawn in C++ from a TelemetryModel's series
// (the oscilloscope example's rule: the points live in C++ and are handed
// over in bulk; QML never appends per point). Painted with QPainter so it
// follows the palette QML gives it and stays crisp at any device pixel
// ratio. The x axis is seconds since the run started, the last `window`
// seconds; tunable changes and member events are dashed vertical marks.
#pragma once
#include <QColor>
#include <QElapsedTimer>
#include <algorithm>
#include <QPointer>
#include <QHash>
#include <QQuickPaintedItem>
#include <QStaticText>
#include <QTimer>
#include <QtQml/qqmlregistration.h>

#include "telemetry_model.hpp"

namespace rs::gui {

class TimeChart : public QQuickPaintedItem {
  Q_OBJECT
  QML_ELEMENT
  Q_PROPERTY(rs::gui::TelemetryModel* model READ model WRITE setModel NOTIFY modelChanged)
  Q_PROPERTY(QString metric READ metric WRITE setMetric NOTIFY metricChanged)
  Q_PROPERTY(QString unit READ unit WRITE setUnit NOTIFY styleChanged)
  Q_PROPERTY(double window READ window WRITE setWindow NOTIFY styleChanged)  // seconds shown
  Q_PROPERTY(double fixedMax READ fixedMax WRITE setFixedMax NOTIFY styleChanged)  // 0: auto scale
  Q_PROPERTY(bool showMarks READ showMarks WRITE setShowMarks NOTIFY styleChanged)
  Q_PROPERTY(QColor textColor READ textColor WRITE setTextColor NOTIFY styleChanged)
  Q_PROPERTY(QColor gridColor READ gridColor WRITE setGridColor NOTIFY styleChanged)
  Q_PROPERTY(QColor markColor READ markColor WRITE setMarkColor NOTIFY styleChanged)
  // What the chart is drawn on: a dense line's min/max band is its colour
  // faded into this one (opaque, so the band is filled, not blended).
  Q_PROPERTY(QColor backgroundColor READ backgroundColor WRITE setBackgroundColor NOTIFY styleChanged)
  // The figure each legend entry shows, over the points in view: "newest"
  // (the last sample), "mean" or "peak"; legendNote says which, and over
  // what window, in words the card can show.
  Q_PROPERTY(QString legendStat READ legendStat WRITE setLegendStat NOTIFY styleChanged)
  Q_PROPERTY(QString legendNote READ legendNote NOTIFY styleChanged)
  Q_PROPERTY(QVariantList colors READ colors WRITE setColors NOTIFY styleChanged)
  // Repaints at most this often (the data still arrives at the session's
  // refresh rate): a chart scrolling 10 times a second reads as continuous,
  // and halving its repaints halves its share of the GUI's CPU. Slower when
  // the time axis moves less than a pixel in that time.
  Q_PROPERTY(int maxRepaintHz READ maxRepaintHz WRITE setMaxRepaintHz NOTIFY styleChanged)
  Q_PROPERTY(int lineCount READ lineCount NOTIFY painted)
  Q_PROPERTY(int pointCount READ pointCount NOTIFY painted)
  Q_PROPERTY(double lastValue READ lastValue NOTIFY painted)  // first line's newest value (tests)

 public:
  explicit TimeChart(QQuickItem* parent = nullptr);
  void paint(QPainter* p) override;

  TelemetryModel* model() const { return model_; }
  void setModel(TelemetryModel* m);
  QString metric() const { return metric_; }
  void setMetric(const QString& m);
  QString unit() const { return unit_; }
  void setUnit(const QString& u) { unit_ = u, emit styleChanged(), update(); }
  double window() const { return window_; }
  void setWindow(double w) { window_ = w > 1 ? w : 1, emit styleChanged(), update(); }  // and legendNote
  double fixedMax() const { return fixed_max_; }
  void setFixedMax(double v) { fixed_max_ = v, emit styleChanged(), update(); }
  bool showMarks() const { return show_marks_; }
  void setShowMarks(bool v) { show_marks_ = v, emit styleChanged(), update(); }
  QColor textColor() const { return text_; }
  void setTextColor(const QColor& c) { text_ = c, emit styleChanged(), update(); }
  QColor gridColor() const { return grid_; }
  void setGridColor(const QColor& c) { grid_ = c, emit styleChanged(), update(); }
  QColor markColor() const { return mark_; }
  void setMarkColor(const QColor& c) { mark_ = c, emit styleChanged(), update(); }
  QColor backgroundColor() const { return background_; }
  void setBackgroundColor(const QColor& c) { background_ = c, emit styleChanged(), update(); }
  QString legendStat() const { return legend_stat_; }
  void setLegendStat(const QString& s);
  QString legendNote() const;
  // Line i's legend figure (legendStat over the points in view; 0 when
  // none) and its legend entry as drawn when there is room ("p99: 124 ms").
  Q_INVOKABLE double legendFigure(int line) const;
  Q_INVOKABLE QString legendText(int line) const;
  QVariantList colors() const { return colors_; }
  void setColors(const QVariantList& c) { colors_ = c, emit styleChanged(), update(); }
  int maxRepaintHz() const { return max_repaint_hz_; }
  void setMaxRepaintHz(int hz) { max_repaint_hz_ = std::clamp(hz, 1, 60), emit styleChanged(); }
  int lineCount() const;
  int pointCount() const;
  double lastValue() const;

  // The axis maximum for data up to `max`: 1, 2, 2.5 or 5 times a power of
  // ten, at least `max` (public for the tests).
  static double niceCeiling(double max);
  // Grid rows for an axis up to such a ceiling, so the labels stay round:
  // 4 for 2 and 8 (0.5, 2 steps), 5 for 1, 2.5 and 5 (0.2, 0.5, 1 steps).
  static int gridDivisions(double ymax);
  // The same for a plot `plotHeight` px high with labels `lineHeight` px
  // high: halves (or none between) when the rows would crowd the labels
  // into each other, as on the Tune page's short chart.
  static int gridDivisions(double ymax, double plotHeight, double lineHeight);

 signals:
  void modelChanged();
  void metricChanged();
  void styleChanged();
  void painted();  // the model changed: a repaint is scheduled (GUI thread)

 private:
  QColor lineColor(int i) const;
  // The time span in view, [t0, t1], for the model's newest time.
  std::pair<double, double> span() const;
  QPointer<TelemetryModel> model_;
  QMetaObject::Connection conn_;
  QString metric_, unit_;
  double window_ = 60, fixed_max_ = 0;
  bool show_marks_ = true;
  QColor text_{Qt::black}, grid_{Qt::lightGray}, mark_{QColor(0xf6, 0x74, 0x00)}, background_{Qt::white};
  QString legend_stat_ = QStringLiteral("newest");
  QVariantList colors_;
  int max_repaint_hz_ = 10;
  QElapsedTimer since_repaint_;
  QTimer late_;
  double plot_width_ = 0;  // of the last paint: how fast the time axis moves per pixel
  QHash<QString, QStaticText> texts_;  // labels laid out in text_font_
  QFont text_font_;  // the repaint an update too soon after the last one left
  void scheduleRepaint();
};

}  // namespace rs::gui
