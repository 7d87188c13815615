#include "benchmark_controller.hpp"

#include <QDateTime>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QUrl>
#include <algorithm>

#include "fio/job_parser.hpp"
#include "report/report.hpp"
#include "report/result_file.hpp"
#include "result_files.hpp"
#include "scenario/scenario.hpp"

namespace rs::gui {

BenchmarkController::BenchmarkController(QObject* parent) : QObject(parent) {
  const QByteArray env = qgetenv("RAIDSCOPE_RESULTS_DIR");
  results_dir_ = env.isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) +
                                     "/raidscope/results"
                               : QString::fromLocal8Bit(env);
  timer_.setInterval(200);
  connect(&timer_, &QTimer::timeout, this, &BenchmarkController::tick);
}

BenchmarkController::~BenchmarkController() {
  if (scenario_thread_.joinable()) scenario_thread_.join();
}

void BenchmarkController::setSession(LiveSession* s) {
  if (session_ == s) return;
  session_ = s;
  emit sessionChanged();
}

QVariantList BenchmarkController::presets() const {
  QVariantList out;
  for (const auto& p : builtinPresets()) out.push_back(presetToMap(p));
  for (const auto& p : loadUserPresets()) out.push_back(presetToMap(p));
  return out;
}

std::optional<Preset> BenchmarkController::findPreset(const QString& key) const {
  for (const auto& list : {builtinPresets(), loadUserPresets()})
    for (const auto& p : list)
      if (p.key == key) return p;
  return std::nullopt;
}

QVariantMap BenchmarkController::preset(const QString& key) const {
  auto p = findPreset(key);
  return p ? presetToMap(*p) : QVariantMap();
}

QString BenchmarkController::savePreset(const QVariantMap& fields) {
  QString error;
  auto p = presetFromMap(fields, &error);
  if (!p) return error;
  for (const auto& b : builtinPresets())
    if (b.label == p->label)
      return tr("'%1' is one of KDiskMark's presets: give yours another name").arg(p->label);
  auto mine = loadUserPresets();
  auto it = std::find_if(mine.begin(), mine.end(), [&](const Preset& x) { return x.key == p->key; });
  if (it != mine.end())
    *it = *p;
  else
    mine.push_back(*p);
  saveUserPresets(mine);
  emit presetsChanged();
  return {};
}

void BenchmarkController::deletePreset(const QString& key) {
  auto mine = loadUserPresets();
  mine.erase(std::remove_if(mine.begin(), mine.end(), [&](const Preset& x) { return x.key == key; }),
             mine.end());
  saveUserPresets(mine);
  emit presetsChanged();
}

QVariantList BenchmarkController::scenarios() const {
  std::vector<std::string> dirs;
  for (const auto& d : LiveSession::resourceDirs("scenarios")) dirs.push_back(d.toStdString());
  QVariantList out;
  for (const auto& sc : scenario::list_scenarios(dirs))
    out.push_back(QVariantMap{{"name", QString::fromStdString(sc.name)},
                              {"description", QString::fromStdString(sc.description)},
                              {"before", QString::fromStdString(sc.policy_before)},
                              {"after", QString::fromStdString(sc.policy_after)}});
  return out;
}

void BenchmarkController::setStatus(Status s, const QString& phase, const QString& error) {
  status_ = s;
  phase_ = phase;
  error_ = error;
  emit statusChanged();
}

// A preset run for `seconds` as a step, or null (and the error shown).
std::optional<BenchmarkController::Step> BenchmarkController::presetStep(const QString& key, double seconds,
                                                                         bool allowWrites) {
  const auto p = findPreset(key);
  if (!p) {
    setStatus(Error, {}, tr("Unknown preset '%1'").arg(key));
    return std::nullopt;
  }
  if (!(seconds >= 1 && seconds <= 3600)) {
    setStatus(Error, {}, tr("The duration must be 1 to 3600 seconds"));
    return std::nullopt;
  }
  if (p->writes() && !allowWrites) {
    setStatus(Error, {},
              tr("%1 writes over the array's data: confirm that its contents may be lost").arg(p->label));
    return std::nullopt;
  }
  Step st{p->label, 0, {}};
  st.request.label = p->label;
  workload::JobSpec job = p->job;
  // The job's name is what a report calls it: the preset and what it does.
  job.name = (p->label + ": " + describeJob(p->job)).toStdString();
  job.time_based = true;
  job.runtime = std::chrono::seconds(int(seconds));
  st.request.jobs = {job};
  preset_label_ = p->label;
  return st;
}

bool BenchmarkController::runPreset(const QString& preset, double seconds, int repeats, bool allowWrites,
                                    bool stopWorkload) {
  if (running() || !session_) return false;
  auto st = presetStep(preset, seconds, allowWrites);
  if (!st) return false;
  seconds_ = seconds;
  std::vector<Step> steps(size_t(std::clamp(repeats, 1, 20)), *st);
  return startSteps(std::move(steps), {}, stopWorkload);
}

bool BenchmarkController::runBeforeAfter(const QString& preset, const QString& tunable, const QString& before,
                                         const QString& after, double seconds, int repeats, bool allowWrites,
                                         bool stopWorkload) {
  if (running() || !session_) return false;
  auto base = presetStep(preset, seconds, allowWrites);
  if (!base) return false;
  for (const QString& v : {before, after})
    if (QString bad = session_->tunables()->check(tunable, v); !bad.isEmpty()) {
      setStatus(Error, {}, bad);
      return false;
    }
  seconds_ = seconds;
  // Interleaved (A B A B ...): a drift of the host over the runs falls on
  // both sides alike.
  std::vector<Step> steps;
  for (int r = 0; r < std::clamp(repeats, 1, 20); ++r)
    for (int side = 0; side < 2; ++side) {
      const QString v = side ? after : before;
      Step st = *base;
      st.side = side;
      st.label = tunable + "=" + v.trimmed();
      st.request.label = base->label + " · " + st.label;
      st.request.set = {{tunable.toStdString(), v.trimmed().toStdString()}};
      steps.push_back(std::move(st));
    }
  return startSteps(std::move(steps), tunable, stopWorkload);
}

QVariantMap BenchmarkController::checkJobFile(const QString& text) const {
  auto r = fio::parse_job_file(text.toStdString(), "job file");
  QVariantMap out;
  out["ok"] = r.ok();
  out["error"] = r ? QString() : QString::fromStdString(r.error().message);
  int line = 0;
  // "job file:LINE: message"
  static const QRegularExpression re("^job file:(\\d+):");
  QString message = out["error"].toString();
  if (auto m = re.match(message); m.hasMatch()) {
    line = m.captured(1).toInt();
    message = message.mid(m.capturedLength()).trimmed();
  }
  out["line"] = line;
  out["message"] = message;  // without the "job file:LINE:" prefix
  out["jobs"] = r ? int(r->jobs.size()) : 0;
  QStringList warnings;
  if (r)
    for (const auto& w : r->warnings) warnings << QString::fromStdString(w);
  out["warnings"] = warnings;
  if (r && r->jobs.empty()) {
    out["ok"] = false;
    out["error"] = out["message"] = tr("The file defines no job (a job starts with a [name] line)");
  }
  return out;
}

bool BenchmarkController::runJobFile(const QString& text, double seconds, bool stopWorkload) {
  const QVariantMap check = checkJobFile(text);
  if (!check["ok"].toBool()) {
    setStatus(Error, {}, check["error"].toString());
    return false;
  }
  seconds_ = seconds;
  Step st{tr("job file"), 0, {}};
  st.request.label = tr("fio job file");
  st.request.job_file = text.toStdString();
  preset_label_ = tr("job file");
  return startSteps({st}, {}, stopWorkload);
}

bool BenchmarkController::startSteps(std::vector<Step> steps, const QString& change, bool stopWorkload) {
  if (running() || !session_) return false;
  if (session_->busy() && !stopWorkload) {
    setStatus(Error, {},
              tr("A workload is running on the array (%1): stop it first").arg(session_->workloadName()));
    return false;
  }
  steps_ = std::move(steps);
  step_ = 0;
  change_ = change;
  cancel_ = false;
  sides_[0].clear(), sides_[1].clear();
  documents_.clear();
  for (auto& st : steps_) st.request.keep_document = true;
  progress_ = 0;
  emit progressChanged();
  if (session_->busy()) {
    // The user agreed to stop the live workload: go on once it stopped.
    setStatus(Waiting, tr("Stopping the live workload…"));
    wait_conn_ = connect(session_, &LiveSession::statusChanged, this, [this] {
      if (session_->busy()) return;
      disconnect(wait_conn_);
      if (cancel_)
        setStatus(Cancelled, tr("Cancelled"));
      else
        next();
    });
    session_->stop();
    return true;
  }
  next();
  return true;
}

void BenchmarkController::next() {
  if (step_ >= steps_.size()) return;
  const Step& st = steps_[step_];
  setStatus(Running, steps_.size() > 1
                         ? tr("Run %1 of %2: %3").arg(step_ + 1).arg(steps_.size()).arg(st.label)
                         : tr("Running %1").arg(st.request.label));
  clock_.start();
  timer_.start();
  const bool ok = session_->beginRun(st.request, [this](const RunReport& r) { finished(r); });
  if (!ok) {
    timer_.stop();
    setStatus(Error, {},
              session_->errorString().isEmpty() ? tr("The array is busy") : session_->errorString());
  }
}

void BenchmarkController::tick() {
  if (steps_.empty() || seconds_ <= 0) return;
  const double done =
      (double(step_) + std::min(1.0, double(clock_.elapsed()) / 1000.0 / seconds_)) / double(steps_.size());
  if (done != progress_) {
    progress_ = done;
    emit progressChanged();
  }
}

void BenchmarkController::finished(const RunReport& r) {
  timer_.stop();
  const Step& st = steps_[step_];
  if (!r.ok || r.document.is_null()) {
    if (r.cancelled || cancel_)
      setStatus(Cancelled, tr("Cancelled: %1").arg(st.label));
    else
      setStatus(Error, {}, r.error.isEmpty() ? tr("The run failed") : r.error);
    return;
  }
  report::Json doc = r.document;
  nameMembersShort(doc);
  save(st, doc);
  const RunFigures f = figuresOf(doc);
  sides_[st.side].push_back(f);
  const int repeat = int(sides_[st.side].size());
  documents_.push_back(
      {(st.label + (steps_.size() > 2 ? QStringLiteral(" #%1").arg(repeat) : QString())).toStdString(), doc});
  QVariantMap summary = toMap(f);
  summary["label"] = st.label;
  summary["title"] = st.request.label;
  summary["when"] = QDateTime::currentDateTime().toString("yyyy-MM-dd hh:mm:ss");
  results_.prepend(summary);
  ++step_;
  if (step_ < steps_.size()) {
    emit resultsChanged();
    next();
    return;
  }
  progress_ = 1;
  emit progressChanged();
  compare();
  emit resultsChanged();
  setStatus(Done, tr("Finished"));
}

void BenchmarkController::compare() {
  if (sides_[1].empty()) {
    // One preset, repeated: its spread, no sides to compare.
    comparison_ = compareRuns(sides_[0], sides_[0], steps_[0].label, steps_[0].label, {});
    comparison_["single"] = true;
    return;
  }
  comparison_ = compareRuns(sides_[0], sides_[1], steps_[0].label, steps_[1].label, change_);
  comparison_["preset"] = preset_label_;
}

// The run's result document, as `raidscope-cli bench --save` keeps it,
// written off the GUI thread under a name no other run has.
void BenchmarkController::save(const Step& step, const report::Json& doc) {
  if (!session_) return;
  QDir().mkpath(results_dir_);
  const QString file = stampedPath(results_dir_, step.request.label, "json");
  // The name is taken now (an empty file), so the next run's differs.
  QFile(file).open(QIODevice::WriteOnly);
  const std::string text = doc.dump(1);
  session_->post([this, file, text] {
    rs::Status st = report::write_file_atomic(file.toStdString(), text);
    QMetaObject::invokeMethod(
        this,
        [this, file, ok = bool(st)] {
          if (ok) emit resultSaved(file);
        },
        Qt::QueuedConnection);
  });
}

bool BenchmarkController::runScenario(const QString& name) {
  if (running()) return false;
  if (scenario_thread_.joinable()) scenario_thread_.join();
  setStatus(Running, tr("Simulating %1…").arg(name));
  progress_ = -1;
  emit progressChanged();
  std::vector<std::string> dirs, profile_dirs;
  for (const auto& d : LiveSession::resourceDirs("scenarios")) dirs.push_back(d.toStdString());
  for (const auto& d : LiveSession::resourceDirs("profiles")) profile_dirs.push_back(d.toStdString());
  scenario_thread_ = std::thread([this, name = name.toStdString(), dirs, profile_dirs] {
    std::string err;
    QVariantList rows;
    bool ok = false;
    auto sc = scenario::find_scenario(name, dirs);
    if (!sc) err = sc.error().message;
    if (sc) {
      auto res = scenario::run_scenario(*sc, {}, profile_dirs);
      ok = res.ok();
      if (!res) err = res.error().message;
      if (res)
        for (const auto& r : *res) {
          QVariantList sb, sa;
          for (double x : r.before.read_share) sb.push_back(100 * x);
          for (double x : r.after.read_share) sa.push_back(100 * x);
          QStringList members;
          for (const auto& m : r.members) members << QString::fromStdString(m);
          rows.push_back(QVariantMap{{"label", QString::fromStdString(r.label)},
                                     {"before", QString::fromStdString(r.policy_before)},
                                     {"after", QString::fromStdString(r.policy_after)},
                                     {"members", members.join(", ")},
                                     {"bwBefore", r.before.bw_bytes},
                                     {"bwAfter", r.after.bw_bytes},
                                     {"sharesBefore", sb},
                                     {"sharesAfter", sa},
                                     {"ratio", r.ratio},
                                     {"seedBefore", r.seed.before_bw},
                                     {"seedAfter", r.seed.after_bw},
                                     {"within", r.within}});
        }
    }
    QMetaObject::invokeMethod(
        this,
        [this, ok, err, rows] {
          progress_ = ok ? 1 : 0;
          emit progressChanged();
          if (!ok) {
            setStatus(Error, {}, QString::fromStdString(err));
            return;
          }
          scenario_rows_ = rows;
          emit resultsChanged();
          setStatus(Done, tr("Finished"));
        },
        Qt::QueuedConnection);
  });
  return true;
}

void BenchmarkController::cancel() {
  if (!running()) return;
  cancel_ = true;
  if (status_ == Running && session_) session_->stop();
}

QString BenchmarkController::suggestedReport() const {
  if (documents_.empty()) return results_dir_ + "/report.html";
  return stampedPath(results_dir_, preset_label_ + (change_.isEmpty() ? QString() : " " + change_), "html");
}

QString BenchmarkController::chooseExportFile(const QString& suggested) {
  return QFileDialog::getSaveFileName(nullptr, tr("Export the report"), suggested,
                                      tr("HTML report (*.html);;PDF (*.pdf);;JSON (*.json);;CSV (*.csv)"));
}

bool BenchmarkController::exportReport(const QString& pathIn) {
  auto refuse = [this](const QString& why) {
    export_ok_ = false;
    export_message_ = why;
    emit exportedChanged();
    return false;
  };
  if (running()) return refuse(tr("Wait for the run to finish"));
  if (documents_.empty()) return refuse(tr("Nothing to export yet: run a before/after or a preset first"));
  const QString asked = pathIn.startsWith("file:") ? QUrl(pathIn).toLocalFile() : pathIn.trimmed();
  if (asked.isEmpty()) return refuse(tr("Choose a file to write the report to"));
  const QFileInfo fi(asked);
  const auto format = report::format_from_name(fi.suffix().toLower().toStdString());
  if (!format) return refuse(tr("%1: end the name with .html, .pdf, .json or .csv").arg(fi.fileName()));
  if (fi.isDir()) return refuse(tr("%1 is a folder").arg(asked));
  if (!fi.absoluteDir().exists()) return refuse(tr("The folder %1 does not exist").arg(fi.absolutePath()));
  // Never over an earlier report: the next free name, said.
  const QString path = uniquePath(asked);
  QFile(path).open(QIODevice::WriteOnly);  // taken now: a second Export before this one ends gets another
  auto done = [this, path, asked](const rs::Status& st) {
    export_ok_ = bool(st);
    exported_path_ = st ? path : QString();
    export_message_ =
        !st             ? QString::fromStdString(st.error().message)
        : path == asked ? tr("Report written to %1").arg(path)
                        : tr("Report written to %1 (%2 exists: kept)").arg(path, QFileInfo(asked).fileName());
    if (!st) QFile::remove(path);
    emit exportedChanged();
  };
  // PDF is drawn with Qt's painter, which belongs to the GUI thread (see
  // report.hpp); the other formats are written on the command thread.
  if (*format == report::Format::pdf || !session_) {
    done(report::render(*format, documents_, path.toStdString()));
    return true;
  }
  session_->post([this, docs = documents_, format = *format, path, done] {
    rs::Status st = report::render(format, docs, path.toStdString());
    QMetaObject::invokeMethod(
        this, [st, done] { done(st); }, Qt::QueuedConnection);
  });
  return true;
}

}  // namespace rs::gui
