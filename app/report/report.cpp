#include "report/report.hpp"

#include "report/html_report.hpp"
#ifdef RAIDSCOPE_HAVE_PDF
#include "report/pdf_report.hpp"
#endif
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
    case Format::pdf: {
#ifdef RAIDSCOPE_HAVE_PDF
      auto bytes = render_pdf(*model);
      if (!bytes) return bytes.error();
      return write_file_atomic(output_path, *bytes);
#else
      return make_error(Errc::unsupported, "this raidscope was built without Qt 6 Gui and Svg: it writes no PDF");
#endif
    }
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
#ifdef RAIDSCOPE_HAVE_PDF
  return true;
#else
  return false;
#endif
}
}  // namespace rs::report
