// The arithmetic of a live chart, kept apart from Qt Charts so it can be
// tested alone: round axis maxima, how many grid rows fit, tick labels, and
// the decimation of a dense series to the plot's pixel width (20 samples a
// second over 60 s is 1200 points for a few hundred pixels: handing them
// all to the chart would have it stroke every one, each refresh).
#pragma once
#include <QList>
#include <QPointF>
#include <QString>
#include <deque>

namespace rs::gui::chart {

// The axis maximum for data up to `max`: 1, 2, 2.5 or 5 times a power of
// ten, at least `max`.
double niceCeiling(double max);
// Grid rows for an axis up to such a ceiling, so the labels stay round:
// 4 for 2 and 8 (0.5, 2 steps), 5 for 1, 2.5 and 5 (0.2, 0.5, 1 steps).
int gridDivisions(double ymax);
// The same for a plot `plotHeight` px high with labels `lineHeight` px
// high: halves (or none between) when the rows would crowd the labels
// into each other, as on the Tune page's short chart.
int gridDivisions(double ymax, double plotHeight, double lineHeight);
// "0", "2.5", "250", "12.5k", "1.5M".
QString tickLabel(double v);

struct Decimated {
  QList<QPointF> points;
  bool dense = false;  // several points per pixel column: one point per column
};

// The points of `pts` (oldest first) that a plot of `width` px showing
// [t0, t1] draws. Sparse series (fewer than two points per column) keep
// their points, with the last one before t0 so the line enters from the
// left edge. Dense ones become one point per pixel column: the mean of
// the points within two columns either side (a column's own mean zig-zags
// when the samples alternate around it; a second on a 60 s chart).
Decimated decimate(const std::deque<QPointF>& pts, double t0, double t1, double width);

}  // namespace rs::gui::chart
