// The HTML report: one self-contained page (inline CSS, inline SVG charts,
// no scripts, no external assets) from the report outline.
#pragma once
#include <string>

#include "report/report_model.hpp"

namespace rs::report {

std::string render_html(const ReportModel& model);

}  // namespace rs::report
