// The one entry point for reports, shared by `raidscope-cli report` and the
// GUI's Export button:
//
//   #include "report/report.hpp"
//   std::vector<rs::report::NamedResult> runs = {{"before", doc1}, {"after", doc2}};
//   rs::Status st = rs::report::render(rs::report::Format::pdf, runs, "/tmp/out.pdf");
//   if (!st) show(st.error().message);
//
// `doc` is a result document (report/result_doc.hpp: bench_document(),
// simulate_document(), or report::load_result() of a saved file). Several
// results make a comparison with ratios against the first. The output is
// written to a temporary file and renamed into place: on any error nothing
// is left at `output_path`. PDF needs Qt (Gui, Svg); in a process without a
// QGuiApplication it makes one on the offscreen platform, so it works with
// no display. Call it from the thread that owns QGuiApplication (the GUI
// thread) or, without one, from any single thread.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.hpp"
#include "report/report_model.hpp"

namespace rs::report {

enum class Format { html, pdf, json, csv };
std::optional<Format> format_from_name(std::string_view name);  // "html", "pdf", "json", "csv"
const char* format_name(Format f);

struct RenderOptions {
  bool force = false;  // compare results of different kinds
};

// Refused input (not a result, mixed kinds) is Errc::invalid_argument with a
// message naming the result; writing failures Errc::io_error.
Status render(Format format, const std::vector<NamedResult>& results, const std::string& output_path,
              const RenderOptions& options = {});
// Loads each file first (load_result), then render(); results are named by
// their file names.
Status render_files(Format format, const std::vector<std::string>& paths, const std::string& output_path,
                    const RenderOptions& options = {});

// True when this build can write PDF.
bool pdf_available();

}  // namespace rs::report
