#include "report/result_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "base/read_file.hpp"
#include "base/unique_fd.hpp"

namespace rs::report {

namespace fs = std::filesystem;

namespace {

Error bad(const std::string& name, const std::string& why) {
  return make_error(Errc::invalid_argument, name + ": " + why);
}

}  // namespace

Status check_result(const Json& doc, const std::string& name) {
  if (!doc.is_object() || !doc.contains("format") || doc["format"] != kResultFormat)
    return bad(
        name,
        "not a raidscope result (no \"format\": \"raidscope-result\"; save one with bench/simulate --save)");
  if (!doc.contains("format_version") || !doc["format_version"].is_number_integer() ||
      doc["format_version"].get<int>() != kResultFormatVersion)
    return bad(name, "result format version " +
                         (doc.contains("format_version") ? doc["format_version"].dump() : "?") +
                         " is not one this raidscope reads (" + std::to_string(kResultFormatVersion) + ")");
  const Json kind = doc.value("kind", Json());
  if (kind == "bench") {
    if (!doc.contains("fio") || !doc["fio"].is_object() || !doc["fio"].contains("jobs") ||
        !doc["fio"]["jobs"].is_array())
      return bad(name, "a bench result without fio's \"jobs\"");
  } else if (kind == "simulate") {
    if (!doc.contains("scenarios") || !doc["scenarios"].is_array())
      return bad(name, "a simulate result without \"scenarios\"");
  } else {
    return bad(name, "unknown result kind " + kind.dump() + " (bench or simulate)");
  }
  for (const char* key : {"telemetry", "events", "tunables"})
    if (doc.contains(key) && !doc[key].is_array())
      return bad(name, std::string("\"") + key + "\" is not a list");
  return {};
}

Result<Json> load_result(const std::string& path) {
  const Result<std::string> text = read_file(path);
  if (!text) return text.error();
  Json doc = Json::parse(*text, nullptr, false);
  if (doc.is_discarded()) return bad(path, "not JSON, so not a raidscope result");
  if (Status st = check_result(doc, path); !st) return st.error();
  return doc;
}

Status write_file_atomic(const std::string& path, const std::string& text) {
  const fs::path target(path);
  const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return make_error(Errc::not_found, path + ": directory " + dir.string() + " does not exist");
  if (fs::is_directory(target, ec)) return make_error(Errc::invalid_argument, path + ": is a directory");
  std::string tmp = (dir / ("." + target.filename().string() + ".XXXXXX")).string();
  UniqueFd fd(::mkstemp(tmp.data()));
  if (!fd)
    return make_error(Errc::io_error,
                      path + ": cannot create a file in " + dir.string() + ": " + std::strerror(errno));
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = std::strerror(errno);
      fd.reset();
      ::unlink(tmp.c_str());
      return make_error(Errc::io_error, path + ": writing failed: " + why);
    }
    done += size_t(n);
  }
  // mkstemp makes the file 0600; an output file is an ordinary document.
  ::fchmod(fd.get(), 0644);
  // close() too may report a lost write (NFS), so its result counts.
  if (::fsync(fd.get()) != 0 || fd.close_checked() != 0) {
    const std::string why = std::strerror(errno);
    fd.reset();
    ::unlink(tmp.c_str());
    return make_error(Errc::io_error, path + ": writing failed: " + why);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(tmp.c_str());
    return make_error(Errc::io_error, path + ": cannot rename the finished file into place: " + why);
  }
  return {};
}

std::string history_dir() {
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg == '/')
    return (fs::path(xdg) / "raidscope" / "results").string();
  const char* home = std::getenv("HOME");
  return (fs::path(home && *home ? home : ".") / ".local" / "share" / "raidscope" / "results").string();
}

Result<std::string> save_to_history(const Json& doc) {
  if (Status st = check_result(doc, "result"); !st) return st.error();
  const fs::path dir = history_dir();
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return make_error(Errc::io_error, dir.string() + ": cannot create: " + ec.message());
  std::string stem = doc.value("created", utc_timestamp()) + "-" + doc["kind"].get<std::string>();
  std::replace(stem.begin(), stem.end(), ':', '-');
  fs::path path = dir / (stem + ".json");
  for (int n = 2; fs::exists(path, ec); ++n) path = dir / (stem + "-" + std::to_string(n) + ".json");
  if (Status st = write_file_atomic(path.string(), doc.dump(2) + "\n"); !st) return st.error();
  return path.string();
}

std::vector<std::string> list_history() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(history_dir(), ec))
    if (e.is_regular_file(ec) && e.path().extension() == ".json") out.push_back(e.path().string());
  std::sort(out.rbegin(), out.rend());  // names start with the ISO time: newest first
  return out;
}

}  // namespace rs::report
