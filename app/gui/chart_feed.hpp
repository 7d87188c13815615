// Feeds one Qt Charts ChartView from a TelemetryModel's series, as Qt's
// qmloscilloscope example feeds its scope: the points stay in C++ and each
// series is replaced in bulk (QXYSeries::replace) at most maxUpdateHz
// times a second, decimated to the plot's pixel width first. The axes'
// ranges and grid rows are set here too; their colours come from the
// palette in QML (ChartCard.qml). The legend and the marks (tunable
// changes, member events) are laid out here and drawn by QML over the
// chart, so their labels elide as the window's text does.
//
// The ChartView's series are made in QML (ChartView.createSeries) when
// `lineNames` changes and handed back through `series`, one per line in
// the model's order.
#pragma once
#include <QtQml/qqmlregistration.h>

#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QPointer>
#include <QStringList>
#include <QTimer>
#include <QVariantList>

#include "telemetry_model.hpp"

class QXYSeries;  // Qt Charts (no namespace in Qt 6)
class QValueAxis;

namespace rs::gui {

class ChartFeed : public QObject {
  Q_OBJECT
  QML_ELEMENT
  Q_PROPERTY(rs::gui::TelemetryModel* model READ model WRITE setModel NOTIFY modelChanged)
  Q_PROPERTY(QString metric READ metric WRITE setMetric NOTIFY modelChanged)
  Q_PROPERTY(QString unit READ unit WRITE setUnit NOTIFY styleChanged)
  Q_PROPERTY(double window READ window WRITE setWindow NOTIFY windowChanged)       // seconds shown
  Q_PROPERTY(double fixedMax READ fixedMax WRITE setFixedMax NOTIFY styleChanged)  // 0: auto scale
  // The figure each legend entry shows, over the points in view: "newest"
  // (the last sample), "mean" or "peak"; legendNote says which, and over
  // what window, in words the card can show.
  Q_PROPERTY(QString legendStat READ legendStat WRITE setLegendStat NOTIFY styleChanged)
  Q_PROPERTY(QString legendNote READ legendNote NOTIFY styleChanged)
  // The unit the axis is in now: `unit` with "k" or "M" in front when the
  // figures are that large (the axis labels stay short).
  Q_PROPERTY(QString axisUnit READ axisUnit NOTIFY updated)
  Q_PROPERTY(QVariantList series READ seriesList WRITE setSeries NOTIFY seriesChanged)
  Q_PROPERTY(QObject* axisX READ axisX WRITE setAxisX NOTIFY seriesChanged)
  Q_PROPERTY(QObject* axisY READ axisY WRITE setAxisY NOTIFY seriesChanged)
  // The plot area's size in pixels (ChartView.plotArea) and the labels'
  // line height: the decimation's columns, the grid rows, the marks' places.
  // Their own signal, which QML does not read: a new plot size must not
  // re-evaluate any binding of the chart (each lays the chart out again,
  // which changes the plot size inside its own binding: a binding loop).
  Q_PROPERTY(double plotWidth READ plotWidth WRITE setPlotWidth NOTIFY plotSizeChanged)
  Q_PROPERTY(double plotHeight READ plotHeight WRITE setPlotHeight NOTIFY plotSizeChanged)
  Q_PROPERTY(double lineHeight READ lineHeight WRITE setLineHeight NOTIFY plotSizeChanged)
  Q_PROPERTY(int maxUpdateHz READ maxUpdateHz WRITE setMaxUpdateHz NOTIFY styleChanged)
  // False while the chart is not shown (another page, a hidden card): the
  // series, axes, legend and marks wait (only the line names follow the
  // model, so a card shown by its line count can appear); made true, the
  // chart catches up at once.
  Q_PROPERTY(bool active READ active WRITE setActive NOTIFY styleChanged)
  Q_PROPERTY(QStringList lineNames READ lineNames NOTIFY linesChanged)
  // [{name, value}] per line: its name and legendStat's figure with the unit.
  // Notified only when an entry's text changes (each notification makes
  // QML read the whole list again).
  Q_PROPERTY(QVariantList legend READ legend NOTIFY legendChanged)
  // [{x (px from the plot's left), label, row (0..2; -1: no room for a label)}].
  Q_PROPERTY(QVariantList marks READ marks NOTIFY marksChanged)
  Q_PROPERTY(bool hasData READ hasData NOTIFY updated)
  Q_PROPERTY(int pointCount READ pointCount NOTIFY updated)   // points handed to the series
  Q_PROPERTY(int updates READ updates NOTIFY updated)         // series replaced so often
  Q_PROPERTY(double lastValue READ lastValue NOTIFY updated)  // the first line's newest value (tests)

 public:
  explicit ChartFeed(QObject* parent = nullptr);

  TelemetryModel* model() const { return model_; }
  void setModel(TelemetryModel* m);
  QString metric() const { return metric_; }
  void setMetric(const QString& m);
  QString unit() const { return unit_; }
  void setUnit(const QString& u);
  double window() const { return window_; }
  void setWindow(double w);
  double fixedMax() const { return fixed_max_; }
  void setFixedMax(double v);
  QString legendStat() const { return legend_stat_; }
  void setLegendStat(const QString& s);
  QString legendNote() const;
  QString axisUnit() const { return axis_unit_; }
  QVariantList seriesList() const;
  void setSeries(const QVariantList& series);
  QObject* axisX() const;
  void setAxisX(QObject* a);
  QObject* axisY() const;
  void setAxisY(QObject* a);
  double plotWidth() const { return plot_width_; }
  void setPlotWidth(double w);
  double plotHeight() const { return plot_height_; }
  void setPlotHeight(double h);
  double lineHeight() const { return line_height_; }
  void setLineHeight(double h);
  int maxUpdateHz() const { return max_update_hz_; }
  void setMaxUpdateHz(int hz);
  bool active() const { return active_; }
  void setActive(bool a);
  QStringList lineNames() const { return line_names_; }
  QVariantList legend() const { return legend_; }
  QVariantList marks() const { return marks_; }
  bool hasData() const { return point_count_ > 0; }
  int pointCount() const { return point_count_; }
  int updates() const { return updates_; }
  double lastValue() const;

  // Line i's legend figure (legendStat over the points in view; 0 when
  // none) and its legend entry ("p99: 124 ms").
  Q_INVOKABLE double legendFigure(int line) const;
  Q_INVOKABLE QString legendText(int line) const;
  // Replaces the series' points, the axes' ranges, the legend and the
  // marks now (the model's updates call it, at most maxUpdateHz a second).
  Q_INVOKABLE void update();

 signals:
  void modelChanged();
  void styleChanged();
  void windowChanged();
  void plotSizeChanged();
  void seriesChanged();
  void linesChanged();
  void updated();
  void legendChanged();
  void marksChanged();

 private:
  // The time span in view, [t0, t1], for the model's newest time.
  std::pair<double, double> span() const;
  void scheduleUpdate();
  void updateAxes(double ymax, double scale);
  void layOutMarks(double t0, double t1);
  QVariantList placeMarks(double t0, double t1) const;
  void layOutLegend();

  QPointer<TelemetryModel> model_;
  QMetaObject::Connection conn_;
  QString metric_, unit_, legend_stat_ = QStringLiteral("newest"), axis_unit_;
  double window_ = 60, fixed_max_ = 0;
  double plot_width_ = 0, plot_height_ = 0, line_height_ = 15;
  int max_update_hz_ = 10;
  bool active_ = true;
  QList<QPointer<QXYSeries>> series_;
  QPointer<QValueAxis> axis_x_, axis_y_;
  QStringList line_names_;
  QVariantList legend_, marks_;
  int point_count_ = 0, updates_ = 0;
  double shown_max_ = -1;
  int shown_ticks_ = -1;
  QElapsedTimer since_update_;
  QTimer late_;  // the last update, when the model's ticks stop
};

}  // namespace rs::gui
