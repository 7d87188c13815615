// The Benchmark page: presets (KDiskMark's four as reads and as writes,
// and the user's own), a fio job file, the seed scenarios on the
// simulator, and the before/after runner: a preset run with a tunable at
// one value, then at another, repeated and interleaved (A B A B ...), the
// sides compared by their medians and spread (comparison.hpp). Runs go
// through the LiveSession, so the dashboard shows them live. Every run is
// kept as a result document (report/result_doc.hpp) in resultsDir, named by
// time, preset and change so none overwrites another; the History page
// lists them. A write preset overwrites the array's data: it runs only when
// the caller says the user agreed, and a running workload is stopped only
// when asked to.
#pragma once
#include <QtQml/qqmlregistration.h>

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QVariantList>
#include <QVariantMap>
#include <optional>
#include <thread>

#include "comparison.hpp"
#include "live_session.hpp"
#include "report/report_model.hpp"

namespace rs::gui {

class BenchmarkController : public QObject {
  Q_OBJECT
  QML_ELEMENT
  Q_PROPERTY(rs::gui::LiveSession* session READ session WRITE setSession NOTIFY sessionChanged)
  Q_PROPERTY(Status status READ status NOTIFY statusChanged)
  Q_PROPERTY(QString errorString READ errorString NOTIFY statusChanged)
  Q_PROPERTY(QString phaseText READ phaseText NOTIFY statusChanged)
  Q_PROPERTY(double progress READ progress NOTIFY progressChanged)
  Q_PROPERTY(bool running READ running NOTIFY statusChanged)
  // presetToMap() of every preset: KDiskMark's, then the user's.
  Q_PROPERTY(QVariantList presets READ presets NOTIFY presetsChanged)
  Q_PROPERTY(QVariantList scenarios READ scenarios CONSTANT)
  Q_PROPERTY(QVariantMap comparison READ comparison NOTIFY resultsChanged)  // compareRuns()
  Q_PROPERTY(QVariantList results READ results NOTIFY resultsChanged)
  Q_PROPERTY(QVariantList scenarioRows READ scenarioRows NOTIFY resultsChanged)
  Q_PROPERTY(QString resultsDir READ resultsDir CONSTANT)
  // The last Export: what was written or why not ("" before any).
  Q_PROPERTY(QString exportMessage READ exportMessage NOTIFY exportedChanged)
  Q_PROPERTY(bool exportOk READ exportOk NOTIFY exportedChanged)
  Q_PROPERTY(QString exportedPath READ exportedPath NOTIFY exportedChanged)
  Q_PROPERTY(bool canExport READ canExport NOTIFY resultsChanged)
  // A file name for the last run's report that no file has yet:
  // resultsDir/<time>-<preset>-<change>.html.
  Q_PROPERTY(QString suggestedReport READ suggestedReport NOTIFY resultsChanged)

 public:
  enum Status { Idle, Waiting, Running, Done, Cancelled, Error };
  Q_ENUM(Status)

  explicit BenchmarkController(QObject* parent = nullptr);
  ~BenchmarkController() override;

  LiveSession* session() const { return session_; }
  void setSession(LiveSession* s);
  Status status() const { return status_; }
  QString errorString() const { return error_; }
  QString phaseText() const { return phase_; }
  double progress() const { return progress_; }
  bool running() const { return status_ == Waiting || status_ == Running; }
  QVariantList presets() const;
  QVariantList scenarios() const;
  QVariantMap comparison() const { return comparison_; }
  QVariantList results() const { return results_; }
  QVariantList scenarioRows() const { return scenario_rows_; }
  QString resultsDir() const { return results_dir_; }
  QString exportMessage() const { return export_message_; }
  bool exportOk() const { return export_ok_; }
  QString exportedPath() const { return exported_path_; }
  bool canExport() const { return !documents_.empty(); }
  QString suggestedReport() const;

  // Saves a preset of the user's from the editor's fields (presetToMap's
  // keys; a builtin's label is refused): "" or why not.
  Q_INVOKABLE QString savePreset(const QVariantMap& fields);
  Q_INVOKABLE void deletePreset(const QString& key);
  Q_INVOKABLE QVariantMap preset(const QString& key) const;

  // One preset `repeats` times for `seconds` each. A write preset needs
  // `allowWrites` (it overwrites the array's data); a running workload is
  // stopped only with `stopWorkload`.
  Q_INVOKABLE bool runPreset(const QString& preset, double seconds, int repeats, bool allowWrites,
                             bool stopWorkload);
  // The preset with `tunable` = `before`, then = `after` (e.g. read_policy
  // md-legacy then md-rr; rd1/device_profile ...), `repeats` times each,
  // interleaved. Both values are checked first; a bad one is an error and
  // nothing runs.
  Q_INVOKABLE bool runBeforeAfter(const QString& preset, const QString& tunable, const QString& before,
                                  const QString& after, double seconds, int repeats, bool allowWrites,
                                  bool stopWorkload);
  // Parses a fio job file: {ok, error, line (1-based, 0 if none), message
  // (the error without its "job file:LINE:" prefix), jobs, warnings}.
  Q_INVOKABLE QVariantMap checkJobFile(const QString& text) const;
  Q_INVOKABLE bool runJobFile(const QString& text, double seconds, bool stopWorkload);
  // A seed scenario on the simulator (no member I/O): rows before/after.
  Q_INVOKABLE bool runScenario(const QString& name);
  Q_INVOKABLE void cancel();
  // Writes the last run (a before/after: every run, compared) as a report
  // through the report code `raidscope-cli report` uses; the format from
  // the file name's suffix: .html, .pdf, .json or .csv. `path` may be a
  // file: URL (a FileDialog's). A file that exists is never overwritten:
  // the report goes to the name with -2, -3 ... before the suffix, and
  // exportMessage says where. Returns false with exportMessage saying why
  // when refused.
  Q_INVOKABLE bool exportReport(const QString& path);
  // The save dialog for Export (the desktop's own through the platform
  // theme, Qt's widget dialog elsewhere: Qt Quick's needs a module Debian
  // splits off). Returns the chosen path, "" when cancelled.
  Q_INVOKABLE QString chooseExportFile(const QString& suggested);

 signals:
  void sessionChanged();
  void statusChanged();
  void progressChanged();
  void resultsChanged();
  void exportedChanged();
  void presetsChanged();
  void resultSaved(const QString& path);

 private:
  struct Step {
    QString label;  // "read_policy=md-rr"
    int side = 0;   // 0: before (or the only side), 1: after
    RunRequest request;
  };
  void setStatus(Status s, const QString& phase, const QString& error = {});
  std::optional<Preset> findPreset(const QString& key) const;
  std::optional<Step> presetStep(const QString& preset, double seconds, bool allowWrites);
  bool startSteps(std::vector<Step> steps, const QString& change, bool stopWorkload);
  void next();
  void finished(const RunReport& r);
  void compare();
  void tick();
  void save(const Step& step, const report::Json& doc);

  QPointer<LiveSession> session_;
  Status status_ = Idle;
  QString error_, phase_, change_, preset_label_;
  double progress_ = 0;
  QVariantMap comparison_;
  QVariantList results_, scenario_rows_;
  QString results_dir_;
  std::vector<Step> steps_;
  size_t step_ = 0;
  double seconds_ = 0;
  std::vector<RunFigures> sides_[2];
  std::vector<report::NamedResult> documents_;  // the last run's steps, for Export
  QString export_message_, exported_path_;
  bool export_ok_ = false;
  bool cancel_ = false;
  QTimer timer_;
  QElapsedTimer clock_;
  QMetaObject::Connection wait_conn_;
  std::thread scenario_thread_;
};

}  // namespace rs::gui
