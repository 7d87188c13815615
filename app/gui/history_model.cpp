#include "history_model.hpp"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <QUrl>

#include "comparison.hpp"
#include "report/report.hpp"
#include "report/result_file.hpp"
#include "result_files.hpp"

namespace rs::gui {

namespace {

// What the history lists of a run: the GUI's label ("(GUI) SEQ1M Q8T1 read
// · read_policy=md-rr" in its command) or the CLI's command line.
QString titleOf(const report::Json& doc) {
  QStringList words;
  for (const auto& w : doc.value("command", report::Json::array()))
    if (w.is_string()) words << QString::fromStdString(w.get<std::string>());
  if (words.size() > 1 && words[1].startsWith("(GUI) ")) return words[1].mid(6);
  return words.join(' ');
}

QVariantMap rowOf(const QString& file, const report::Json& doc) {
  const RunFigures f = figuresOf(doc);
  QVariantMap row = toMap(f);
  row["file"] = file;
  row["name"] = QFileInfo(file).fileName();
  row["when"] = QString::fromStdString(doc.value("created", std::string()));
  row["title"] = titleOf(doc);
  const report::Json array = doc.value("array", report::Json());
  row["array"] = array.is_object() ? QStringLiteral("%1 of %2 members")
                                         .arg(QString::fromStdString(array.value("level", std::string())))
                                         .arg(array.value("raid_devices", 0))
                                   : QString();
  return row;
}

}  // namespace

HistoryModel::HistoryModel(QObject* parent) : QObject(parent) {
  const QByteArray env = qgetenv("RAIDSCOPE_RESULTS_DIR");
  dir_ = env.isEmpty()
             ? QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + "/raidscope/results"
             : QString::fromLocal8Bit(env);
  refresh();
}

HistoryModel::~HistoryModel() {
  joinWorker();
}

void HistoryModel::joinWorker() {
  if (worker_.joinable()) worker_.join();
}

void HistoryModel::setResultsDir(const QString& dir) {
  if (dir == dir_) return;
  dir_ = dir;
  runs_.clear();
  selected_.clear();
  emit selectionChanged();
  refresh();
}

QVariantList HistoryModel::runs() const {
  QVariantList out;
  for (auto it = runs_.rbegin(); it != runs_.rend(); ++it) {  // names start with the time: newest first
    QVariantMap row = it->second.row;
    row["selected"] = selected_.contains(it->first);
    out.push_back(row);
  }
  return out;
}

void HistoryModel::refresh() {
  if (loading_) {
    again_ = true;
    return;
  }
  joinWorker();
  loading_ = true;
  emit runsChanged();
  std::map<QString, Run> known;
  for (const auto& [file, run] : runs_) known[file] = run;
  worker_ = std::thread([this, dir = dir_, known = std::move(known)]() mutable {
    std::map<QString, Run> found;
    for (const QFileInfo& fi : QDir(dir).entryInfoList({"*.json"}, QDir::Files, QDir::Name)) {
      const QString file = fi.absoluteFilePath();
      if (auto k = known.find(file); k != known.end()) {
        found[file] = std::move(k->second);
        continue;
      }
      auto doc = report::load_result(file.toStdString());
      if (!doc || doc->value("kind", std::string()) != "bench") continue;
      found[file] = Run{rowOf(file, *doc), std::move(*doc)};
    }
    QMetaObject::invokeMethod(
        this,
        [this, found = std::move(found)]() mutable {
          runs_ = std::move(found);
          loading_ = false;
          emit runsChanged();
          if (again_) again_ = false, refresh();
        },
        Qt::QueuedConnection);
  });
}

void HistoryModel::toggle(const QString& file) {
  if (selected_.contains(file))
    selected_.removeAll(file);
  else if (runs_.count(file))
    selected_ << file;
  while (selected_.size() > 2) selected_.removeFirst();
  // Another pick: the last export's message was about other runs.
  if (!export_message_.isEmpty()) {
    export_message_.clear();
    last_report_.clear();
    emit exportedChanged();
  }
  emit selectionChanged();
  emit runsChanged();
}

QVariantMap HistoryModel::comparison() const {
  if (selected_.size() != 2 || !runs_.count(selected_[0]) || !runs_.count(selected_[1])) return {};
  // The older run is "before".
  QString a = selected_[0], b = selected_[1];
  if (QFileInfo(a).fileName() > QFileInfo(b).fileName()) std::swap(a, b);
  const Run &ra = runs_.at(a), &rb = runs_.at(b);
  return compareRuns({figuresOf(ra.doc)}, {figuresOf(rb.doc)}, ra.row["title"].toString(),
                     rb.row["title"].toString(), tr("two runs from the history"));
}

QString HistoryModel::suggestedReport() const {
  return stampedPath(dir_ + "/reports", "comparison", "html");
}

bool HistoryModel::exportReport(const QString& pathIn) {
  auto finish = [this](bool ok, const QString& message, const QString& written = {}) {
    export_ok_ = ok;
    export_message_ = message;
    last_report_ = written;
    emit exportedChanged();
    return ok;
  };
  if (selected_.size() != 2) return finish(false, tr("Pick two runs to export them as one report"));
  const QString asked = pathIn.startsWith("file:") ? QUrl(pathIn).toLocalFile() : pathIn.trimmed();
  const QFileInfo fi(asked);
  const auto format = report::format_from_name(fi.suffix().toLower().toStdString());
  if (asked.isEmpty() || !format)
    return finish(false, tr("End the file name with .html, .pdf, .json or .csv"));
  QDir().mkpath(fi.absolutePath());
  const QString path = uniquePath(asked);
  std::vector<report::NamedResult> docs;
  for (const auto& f : selected_)
    docs.push_back({runs_.at(f).row["title"].toString().toStdString(), runs_.at(f).doc});
  // On this thread: PDF is drawn with Qt's painter (the GUI thread's).
  const rs::Status st = report::render(*format, docs, path.toStdString());
  if (!st) return finish(false, QString::fromStdString(st.error().message));
  return finish(true,
                path == asked ? tr("Report written to %1").arg(path)
                              : tr("Report written to %1 (%2 exists: kept)").arg(path, fi.fileName()),
                path);
}

}  // namespace rs::gui
