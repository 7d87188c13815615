#include "report/html_report.hpp"

#include "report/outline.hpp"

namespace rs::report {

namespace {

const char* kStyle = R"(body{font-family:"DejaVu Sans",Arial,sans-serif;margin:24px auto;max-width:1000px;color:#222;padding:0 16px}
h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ccc;padding-bottom:4px}
table{border-collapse:collapse;margin:8px 0 16px;font-size:13px}caption{text-align:left;font-weight:bold;padding:4px 0}
th,td{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}td.n{white-space:nowrap}th{background:#f0f0f0}
figure{margin:12px 0}svg{max-width:100%;height:auto}p{font-size:14px;line-height:1.4})";

}  // namespace

std::string render_html(const ReportModel& model) {
  const auto blocks = report_outline(model);
  std::string title = blocks.empty() ? "RaidScope report" : blocks.front().text;
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>" +
                    xml_escape(title) + "</title>\n<style>\n" + kStyle + "\n</style>\n</head>\n<body>\n";
  for (const auto& b : blocks) {
    switch (b.kind) {
      case Block::Kind::title:
        out += "<h1>" + xml_escape(b.text) + "</h1>\n";
        break;
      case Block::Kind::heading:
        out += "<h2>" + xml_escape(b.text) + "</h2>\n";
        break;
      case Block::Kind::paragraph:
        out += "<p>" + xml_escape(b.text) + "</p>\n";
        break;
      case Block::Kind::table:
        out += "<table>\n<caption>" + xml_escape(b.text) + "</caption>\n";
        for (size_t r = 0; r < b.rows.size(); ++r) {
          const char* cell = r == 0 ? "th" : "td";
          out += "<tr>";
          // Figures stay on one line ("603.3 MB/s"); names and long text may wrap.
          for (const auto& c : b.rows[r])
            out += std::string("<") + cell + (r > 0 && c.size() <= 16 ? " class=\"n\"" : "") + ">" + xml_escape(c) +
                   "</" + cell + ">";
          out += "</tr>\n";
        }
        out += "</table>\n";
        break;
      case Block::Kind::chart:
        out += "<figure>\n" + b.chart.svg + "</figure>\n";
        break;
    }
  }
  return out + "</body>\n</html>\n";
}

}  // namespace rs::report
