#include "report/report.hpp"

#include "report/html_report.hpp"
#include "report/result_file.hpp"
#include "report/text_reports.hpp"

namespace rs::report {

std::optional<Format> format_from_name(std::string_view name) {
  if (name == "html") return Format::html;
  if (name == "pdf") return Format::pdf;
  if (name == "json") return Format::json;
  if (name == "csv") return Format::csv;
  return std::nullopt;
}

const char* format_name(Format f) {
  switch (f) {
    case Format::html:
      return "html";
    case Format::pdf:
      return "pdf";
    case Format::json:
      return "json";
    case Format::csv:
      return "csv";
  }
  return "?";
}

Status render(Format format, const std::vector<NamedResult>& results, const std::string& output_path,
              const RenderOptions& options) {
  auto model = build_model(results, options.force);
  if (!model) return model.error();
  switch (format) {
    case Format::csv:
      return write_file_atomic(output_path, render_csv(*model));
    case Format::json:
      return write_file_atomic(output_path, render_json(*model, results));
    case Format::html:
      return write_file_atomic(output_path, render_html(*model));
    case Format::pdf:
      return make_error(Errc::unsupported, std::string(format_name(format)) + " reports are not written yet");
  }
  return make_error(Errc::internal, "unknown report format");
}

Status render_files(Format format, const std::vector<std::string>& paths, const std::string& output_path,
                    const RenderOptions& options) {
  std::vector<NamedResult> results;
  for (const auto& path : paths) {
    auto doc = load_result(path);
    if (!doc) return doc.error();
    const auto slash = path.find_last_of('/');
    results.push_back({slash == std::string::npos ? path : path.substr(slash + 1), std::move(*doc)});
  }
  return render(format, results, output_path, options);
}

}  // namespace rs::report

namespace rs::report {
bool pdf_available() {
  return false;
}
}  // namespace rs::report
