// The PDF report: the report outline (engine/report/outline.hpp) laid out on
// A4 pages with Qt: QTextDocument for text and tables, QSvgRenderer for the
// same SVG charts the HTML page shows. Needs no display: without a
// QGuiApplication in the process it runs one on the offscreen platform for
// the duration of the call.
#pragma once
#include <string>

#include "base/result.hpp"
#include "report/report_model.hpp"

namespace rs::report {

// The PDF file's bytes.
Result<std::string> render_pdf(const ReportModel& model);

}  // namespace rs::report
