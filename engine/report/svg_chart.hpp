// Charts as self-contained SVG text (no scripts, no external fonts or
// styles), for the HTML report inline and for the PDF through Qt's SVG
// renderer: grouped bars, stacked share bars and lines over time with
// event marks. Every chart has a title, labelled axes with round ticks and
// a legend.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "report/report_model.hpp"

namespace rs::report {

struct Chart {
  std::string svg;
  int width = 0, height = 0;  // px (the PDF scales them to the page width)
};

struct BarSeries {
  std::string name;
  std::vector<double> values;  // one per category
};
// Bars grouped by category, one colour per series.
Chart bar_chart(const std::string& title, const std::string& x_label, const std::string& y_label,
                const std::vector<std::string>& categories, const std::vector<BarSeries>& series);

struct ShareRow {
  std::string label;
  std::vector<std::pair<std::string, double>> parts;  // name -> share 0..1
};
// One horizontal 100 % bar per row, split by part (members' read shares).
Chart share_chart(const std::string& title, const std::vector<ShareRow>& rows);

// Lines over time (x in seconds) with vertical marks at events.
Chart line_chart(const std::string& title, const std::string& y_label, const std::vector<double>& t,
                 const std::vector<SeriesLine>& lines, const std::vector<Mark>& marks);

// Round tick step for an axis from 0 to `max` with about `ticks` ticks.
double nice_step(double max, int ticks);
// Text safe inside SVG/HTML elements and attributes.
std::string xml_escape(const std::string& s);

}  // namespace rs::report
