// A report's content in order, independent of the format: headings,
// paragraphs, tables and charts. The HTML writer and the PDF writer both
// lay out this outline, so both show the same figures.
#pragma once
#include <string>
#include <vector>

#include "report/report_model.hpp"
#include "report/svg_chart.hpp"

namespace rs::report {

struct Block {
  enum class Kind { title, heading, paragraph, table, chart };
  Kind kind = Kind::paragraph;
  std::string text;                             // title, heading, paragraph; a table's caption
  std::vector<std::vector<std::string>> rows;   // table: the first row is the header
  Chart chart;                                  // chart
};

std::vector<Block> report_outline(const ReportModel& model);

}  // namespace rs::report
