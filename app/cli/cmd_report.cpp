// report: saved results (bench/simulate --save) as HTML, PDF, CSV or JSON;
// several results make a comparison against the first. The work is in
// app/report (report.hpp), which the GUI's Export button calls too.
#include <cstdio>

#include "args.hpp"
#include "commands.hpp"
#include "report/report.hpp"
#include "result_capture.hpp"
#include "workload_args.hpp"

namespace rs::cli {

namespace {

const char* kReportHelp = R"(usage: raidscope-cli report --format=html|pdf|json|csv --output=FILE [--force] RESULT.json...

  RESULT.json   results saved with `bench --save=FILE` or `simulate --save=FILE`.
                One result is reported on its own; with several, every figure is
                also given as a ratio against the first (before/after, N-way).
  --format      html: one self-contained page with SVG charts; pdf: the same,
                paginated (no display needed); csv: one row per job per run;
                json: the documents merged, with the comparison.
  --output      the file to write; it is written whole or not at all.
  --force       compare results of different kinds (bench with simulate).
)";

}  // namespace

int cmd_report(const Argv& argv) {
  for (auto& a : argv)
    if (a == "--help" || a == "-h") {
      std::fputs(kReportHelp, stdout);
      return 0;
    }
  Split s = split_args(argv, {"format", "output"}, {"force"});
  std::vector<std::string> paths;
  for (auto& a : s.fio) {
    if (a.rfind("--", 0) == 0) throw UsageError("unknown option '" + a + "' (see report --help)");
    paths.push_back(a);
  }
  const auto format_text = one(s, "format");
  if (!format_text) throw UsageError("give --format=html|pdf|json|csv");
  const auto format = report::format_from_name(*format_text);
  if (!format) throw UsageError("--format=" + *format_text + ": not one of html, pdf, json, csv");
  const auto output = one(s, "output");
  if (!output || output->empty()) throw UsageError("give --output=FILE");
  check_output_dir("output", *output);
  if (paths.empty()) throw UsageError("give one or more RESULT.json files (saved with bench/simulate --save)");
  report::RenderOptions options;
  options.force = s.ours.count("force") > 0;
  if (Status st = report::render_files(*format, paths, *output, options); !st) {
    if (st.error().is_usage()) throw UsageError(st.error().message);
    throw RuntimeError(st.error().message);
  }
  return 0;
}

}  // namespace rs::cli
