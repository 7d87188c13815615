#include "benchmark_controller.hpp"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QStandardPaths>
#include <QUrl>
#include <QRegularExpression>

#include "report/report.hpp"
#include "fio/job_parser.hpp"
#include "fio/json_output.hpp"
#include "scenario/scenario.hpp"

namespace rs::gui {

namespace {

struct Preset {
  const char* key;
  const char* label;
  std::vector<std::string> args;
};

// KDiskMark's default presets, reads only: an array may hold data. The
// engine is io_uring (KDiskMark's libaio): fio's default, psync, keeps one
// I/O in flight whatever the iodepth.
const std::vector<Preset>& allPresets() {
  static const std::vector<Preset> p = {
      {"SEQ1M_Q8T1", "SEQ1M Q8T1", {"--rw=read", "--bs=1M", "--iodepth=8", "--ioengine=io_uring"}},
      {"SEQ1M_Q1T1", "SEQ1M Q1T1", {"--rw=read", "--bs=1M", "--iodepth=1", "--ioengine=io_uring"}},
      {"RND4K_Q32T1", "RND4K Q32T1", {"--rw=randread", "--bs=4k", "--iodepth=32", "--ioengine=io_uring"}},
      {"RND4K_Q1T1", "RND4K Q1T1", {"--rw=randread", "--bs=4k", "--iodepth=1", "--ioengine=io_uring"}},
  };
  return p;
}

const Preset* findPreset(const QString& key) {
  for (const auto& p : allPresets())
    if (key == QLatin1String(p.key)) return &p;
  return nullptr;
}

QString safeName(QString s) {
  s.replace(QRegularExpression("[^A-Za-z0-9._-]+"), "_");
  return s.left(60);
}

}  // namespace

BenchmarkController::BenchmarkController(QObject* parent) : QObject(parent) {
  const QByteArray env = qgetenv("RAIDSCOPE_RESULTS_DIR");
  results_dir_ = env.isEmpty()
                     ? QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + "/raidscope/results"
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
  for (const auto& p : allPresets()) out.push_back(QVariantMap{{"key", p.key}, {"label", p.label}});
  return out;
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
std::optional<BenchmarkController::Step> BenchmarkController::presetStep(const QString& preset, double seconds) {
  const Preset* p = findPreset(preset);
  if (!p) {
    setStatus(Error, {}, tr("Unknown preset '%1'").arg(preset));
    return std::nullopt;
  }
  if (!(seconds >= 1 && seconds <= 3600)) {
    setStatus(Error, {}, tr("The duration must be 1 to 3600 seconds"));
    return std::nullopt;
  }
  Step st{QString::fromLatin1(p->label), {}};
  st.request.label = st.label;
  st.request.job_args = p->args;
  for (const std::string& a :
       std::vector<std::string>{"--direct=1", "--time_based", "--runtime=" + std::to_string(int(seconds))})
    st.request.job_args.push_back(a);
  return st;
}

bool BenchmarkController::runPreset(const QString& preset, double seconds) {
  if (running() || !session_) return false;
  auto st = presetStep(preset, seconds);
  if (!st) return false;
  seconds_ = seconds;
  return startSteps({*st}, {});
}

bool BenchmarkController::runBeforeAfter(const QString& preset, const QString& tunable, const QString& before,
                                         const QString& after, double seconds) {
  if (running() || !session_) return false;
  auto base = presetStep(preset, seconds);
  if (!base) return false;
  for (const QString& v : {before, after})
    if (QString bad = session_->tunables()->check(tunable, v); !bad.isEmpty()) {
      setStatus(Error, {}, bad);
      return false;
    }
  seconds_ = seconds;
  std::vector<Step> steps;
  for (const QString& v : {before, after}) {
    Step st = *base;
    st.label = tunable + "=" + v;
    st.request.label = base->label + " · " + st.label;
    st.request.set = {{tunable.toStdString(), v.trimmed().toStdString()}};
    steps.push_back(std::move(st));
  }
  return startSteps(std::move(steps), tunable);
}

QVariantMap BenchmarkController::checkJobFile(const QString& text) const {
  auto r = fio::parse_job_file(text.toStdString(), "job file");
  QVariantMap out;
  out["ok"] = r.ok;
  out["error"] = QString::fromStdString(r.error);
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
  out["jobs"] = int(r.jobs.size());
  QStringList warnings;
  for (const auto& w : r.warnings) warnings << QString::fromStdString(w);
  out["warnings"] = warnings;
  if (r.ok && r.jobs.empty()) {
    out["ok"] = false;
    out["error"] = out["message"] = tr("The file defines no job (a job starts with a [name] line)");
  }
  return out;
}

bool BenchmarkController::runJobFile(const QString& text, double seconds) {
  const QVariantMap check = checkJobFile(text);
  if (!check["ok"].toBool()) {
    setStatus(Error, {}, check["error"].toString());
    return false;
  }
  seconds_ = seconds;
  Step st{tr("job file"), {}};
  st.request.label = tr("fio job file");
  st.request.job_file = text.toStdString();
  st.request.job_args = {};
  return startSteps({st}, {});
}

bool BenchmarkController::startSteps(std::vector<Step> steps, const QString& change) {
  if (running() || !session_) return false;
  steps_ = std::move(steps);
  step_ = 0;
  change_ = change;
  cancel_ = false;
  step_results_.clear();
  documents_.clear();
  for (auto& st : steps_) st.request.keep_document = true;
  progress_ = 0;
  emit progressChanged();
  if (session_->busy()) {
    // A live workload holds the array: stop it and go on once it stopped.
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
  setStatus(Running, steps_.size() > 1 ? tr("Run %1 of %2: %3").arg(step_ + 1).arg(steps_.size()).arg(st.label)
                                       : tr("Running %1").arg(st.request.label));
  clock_.start();
  timer_.start();
  const bool ok = session_->beginRun(st.request, [this](const RunReport& r) { finished(r); });
  if (!ok) {
    timer_.stop();
    setStatus(Error, {}, session_->errorString().isEmpty() ? tr("The array is busy") : session_->errorString());
  }
}

void BenchmarkController::tick() {
  if (steps_.empty() || seconds_ <= 0) return;
  const double done = (double(step_) + std::min(1.0, double(clock_.elapsed()) / 1000.0 / seconds_)) / double(steps_.size());
  if (done != progress_) {
    progress_ = done;
    emit progressChanged();
  }
}

QVariantMap BenchmarkController::summarize(const Step& step, const RunReport& r) const {
  double bw = 0, iops = 0;
  const workload::LatencyHistogram* clat = nullptr;
  for (const auto& j : r.results.jobs) {
    bw += double(j.read.bw_bytes() + j.write.bw_bytes());
    iops += j.read.iops() + j.write.iops();
    if (!clat) clat = j.read.total_ios ? &j.read.clat : j.write.total_ios ? &j.write.clat : nullptr;
  }
  QVariantList shares;
  for (int i = 0; i < r.members; ++i) shares.push_back(r.share[i]);
  QVariantMap m;
  m["label"] = step.label;
  m["title"] = step.request.label;
  m["bandwidth"] = bw;
  m["iops"] = iops;
  m["p50Ms"] = clat ? double(clat->percentile(50)) / 1e6 : 0.0;
  m["p95Ms"] = clat ? double(clat->percentile(95)) / 1e6 : 0.0;
  m["p99Ms"] = clat ? double(clat->percentile(99)) / 1e6 : 0.0;
  m["shares"] = shares;
  return m;
}

void BenchmarkController::finished(const RunReport& r) {
  timer_.stop();
  const Step& st = steps_[step_];
  if (!r.ok) {
    if (r.cancelled || cancel_)
      setStatus(Cancelled, tr("Cancelled: %1").arg(st.label));
    else
      setStatus(Error, {}, r.error.isEmpty() ? tr("The run failed") : r.error);
    return;
  }
  QVariantMap summary = summarize(st, r);
  save(st.request.label, r);
  if (!r.document.is_null()) documents_.push_back({st.label.toStdString(), r.document});
  summary["when"] = QDateTime::currentDateTime().toString("yyyy-MM-dd hh:mm:ss");
  results_.prepend(summary);
  step_results_.push_back(summary);
  ++step_;
  if (step_ < steps_.size()) {
    emit resultsChanged();
    next();
    return;
  }
  progress_ = 1;
  emit progressChanged();
  if (step_results_.size() == 2) {
    const QVariantMap a = step_results_[0].toMap(), b = step_results_[1].toMap();
    comparison_ = {{"change", change_},
                   {"before", a},
                   {"after", b},
                   {"ratio", a["bandwidth"].toDouble() > 0 ? b["bandwidth"].toDouble() / a["bandwidth"].toDouble() : 0.0}};
  }
  emit resultsChanged();
  setStatus(Done, tr("Finished"));
}

// The fio JSON the CLI writes, one file per run, written off the GUI thread.
void BenchmarkController::save(const QString& label, const RunReport& r) {
  if (!session_) return;
  const QString dir = results_dir_;
  const QString file = dir + "/" + QDateTime::currentDateTime().toString("yyyyMMdd-hhmmss-zzz") + "-" +
                       safeName(label) + ".json";
  const std::string text = fio::format_fio_json(r.results);
  session_->post([dir, file, text] {
    QDir().mkpath(dir);
    QFile f(file);
    if (f.open(QIODevice::WriteOnly | QIODevice::Truncate)) f.write(text.data(), qint64(text.size()));
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

QString BenchmarkController::chooseExportFile(const QString& suggested) {
  return QFileDialog::getSaveFileName(nullptr, tr("Export the before/after report"), suggested,
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
  const QString path = pathIn.startsWith("file:") ? QUrl(pathIn).toLocalFile() : pathIn.trimmed();
  if (path.isEmpty()) return refuse(tr("Choose a file to write the report to"));
  const QFileInfo fi(path);
  const auto format = report::format_from_name(fi.suffix().toLower().toStdString());
  if (!format) return refuse(tr("%1: end the name with .html, .pdf, .json or .csv").arg(fi.fileName()));
  if (fi.isDir()) return refuse(tr("%1 is a folder").arg(path));
  if (!fi.absoluteDir().exists()) return refuse(tr("The folder %1 does not exist").arg(fi.absolutePath()));
  auto done = [this, path](const rs::Status& st) {
    export_ok_ = bool(st);
    export_message_ = st ? tr("Report written to %1").arg(path) : QString::fromStdString(st.error().message);
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
    QMetaObject::invokeMethod(this, [st, done] { done(st); }, Qt::QueuedConnection);
  });
  return true;
}

}  // namespace rs::gui
