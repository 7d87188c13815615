#include "result_files.hpp"

#include <QDateTime>
#include <QFileInfo>
#include <QRegularExpression>

#include "member_names.hpp"

namespace rs::gui {

QString uniquePath(const QString& path) {
  if (!QFileInfo::exists(path)) return path;
  const QFileInfo fi(path);
  const QString suffix = fi.completeSuffix().isEmpty() ? QString() : "." + fi.completeSuffix();
  const QString stem = fi.absolutePath() + "/" + fi.baseName();
  for (int n = 2;; ++n) {
    const QString candidate = QStringLiteral("%1-%2%3").arg(stem).arg(n).arg(suffix);
    if (!QFileInfo::exists(candidate)) return candidate;
  }
}

QString safeName(QString text) {
  static const QRegularExpression unsafe("[^A-Za-z0-9.=-]+");
  text.replace(unsafe, "_");
  text.replace('=', '_');
  while (text.startsWith('_')) text.remove(0, 1);
  while (text.endsWith('_')) text.chop(1);
  return text.left(80);
}

QString stampedPath(const QString& dir, const QString& what, const QString& suffix) {
  const QString stamp = QDateTime::currentDateTime().toString("yyyyMMdd-hhmmss");
  return uniquePath(dir + "/" + stamp + "-" + safeName(what) + "." + suffix);
}

void nameMembersShort(report::Json& doc) {
  std::vector<std::string> paths;
  if (doc.contains("array") && doc["array"].is_object())
    for (const auto& m : doc["array"].value("members", report::Json::array()))
      if (m.contains("path") && m["path"].is_string()) paths.push_back(m["path"].get<std::string>());
  if (paths.empty()) return;
  const std::vector<std::string> names = distinctNames(paths);
  auto shortOf = [&](report::Json& field) {
    if (!field.is_string()) return;
    for (size_t i = 0; i < paths.size(); ++i)
      if (field.get<std::string>() == paths[i]) field = names[i];
  };
  if (doc.contains("fio") && doc["fio"].contains("jobs"))
    for (auto& j : doc["fio"]["jobs"])
      if (j.contains("raidscope") && j["raidscope"].contains("members"))
        for (auto& m : j["raidscope"]["members"])
          if (m.contains("path")) shortOf(m["path"]);
  if (doc.contains("telemetry"))
    for (auto& s : doc["telemetry"])
      if (s.contains("members"))
        for (auto& m : s["members"])
          if (m.contains("name")) shortOf(m["name"]);
  if (doc.contains("events"))
    for (auto& e : doc["events"])
      if (e.contains("name")) shortOf(e["name"]);
}

}  // namespace rs::gui
