#include "result_capture.hpp"

#include <filesystem>

#include "args.hpp"
#include "balance/policy.hpp"
#include "report/result_file.hpp"

namespace rs::cli {

void check_output_dir(const std::string& option, const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  std::error_code ec;
  if (path.empty()) throw UsageError("--" + option + " needs a file name");
  if (fs::is_directory(p, ec)) throw UsageError("--" + option + "=" + path + ": is a directory");
  const fs::path dir = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  if (!fs::is_directory(dir, ec))
    throw UsageError("--" + option + "=" + path + ": directory " + dir.string() + " does not exist");
}

ResultCapture::ResultCapture(std::string path, std::vector<std::string> command) : path_(std::move(path)) {
  check_output_dir("save", path_);
  capture_.command = std::move(command);
}

void ResultCapture::begin(workload::BenchSession& session) {
  std::lock_guard lock(mutex_);
  capture_.target = session.target().describe();
  if (raid::Array* arr = session.array()) {
    capture_.array = report::array_facts(*arr);
    capture_.tunables_start = report::tunable_values(arr->tunables());
    if (auto p = arr->tunables().get(balance::kReadPolicy.name)) capture_.policy = *p;
  }
}

void ResultCapture::sample(const telemetry::Sample& s) {
  std::string line = telemetry::to_json_line(s);
  std::lock_guard lock(mutex_);
  capture_.telemetry_lines.push_back(std::move(line));
}

void ResultCapture::end(workload::BenchSession& session) {
  std::lock_guard lock(mutex_);
  if (raid::Array* arr = session.array()) {
    capture_.tunables_end = report::tunable_values(arr->tunables());
    capture_.array = report::array_facts(*arr);  // member states after the run (a failed member shows)
  }
}

void ResultCapture::save(const workload::RunResults& results) {
  std::lock_guard lock(mutex_);
  const report::Json doc = report::bench_document(results, capture_);
  if (Status st = report::write_file_atomic(
          path_, doc.dump(2, ' ', false, report::Json::error_handler_t::replace) + "\n");
      !st)
    throw RuntimeError(st.error().message);
}

}  // namespace rs::cli
