// The Benchmark page: KDiskMark's presets, a fio job file, the seed
// scenarios on the simulator, and the before/after runner (one run with a
// tunable at one value, then at another; the ratio of the two). Runs go
// through the LiveSession, so the dashboard shows them live and the Tune
// page can change things while they go on. Each run's result is kept as
// the fio JSON the CLI writes (bench --output-format=json), in resultsDir.
#pragma once
#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QVariantList>
#include <QVariantMap>
#include <QtQml/qqmlregistration.h>
#include <optional>
#include <thread>

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
  Q_PROPERTY(QVariantList presets READ presets CONSTANT)
  Q_PROPERTY(QVariantList scenarios READ scenarios CONSTANT)
  Q_PROPERTY(QVariantMap comparison READ comparison NOTIFY resultsChanged)
  Q_PROPERTY(QVariantList results READ results NOTIFY resultsChanged)
  Q_PROPERTY(QVariantList scenarioRows READ scenarioRows NOTIFY resultsChanged)
  Q_PROPERTY(QString resultsDir READ resultsDir CONSTANT)
  // The last Export: what was written or why not ("" before any).
  Q_PROPERTY(QString exportMessage READ exportMessage NOTIFY exportedChanged)
  Q_PROPERTY(bool exportOk READ exportOk NOTIFY exportedChanged)
  Q_PROPERTY(bool canExport READ canExport NOTIFY resultsChanged)

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
  bool canExport() const { return !documents_.empty(); }  // the last run kept its documents

  // One preset for `seconds`. Stops a live workload first.
  Q_INVOKABLE bool runPreset(const QString& preset, double seconds);
  // The preset twice: `tunable` = `before`, then = `after` (e.g.
  // read_policy md-legacy then md-rr; rd1/device_profile ...). Both values
  // are checked first; a bad one is an error and nothing runs.
  Q_INVOKABLE bool runBeforeAfter(const QString& preset, const QString& tunable, const QString& before,
                                  const QString& after, double seconds);
  // Parses a fio job file: {ok, error, line (1-based, 0 if none), message
  // (the error without its "job file:LINE:" prefix), jobs, warnings}.
  Q_INVOKABLE QVariantMap checkJobFile(const QString& text) const;
  Q_INVOKABLE bool runJobFile(const QString& text, double seconds);
  // A seed scenario on the simulator (no member I/O): rows before/after.
  Q_INVOKABLE bool runScenario(const QString& name);
  Q_INVOKABLE void cancel();
  // Writes the last run (a before/after: both runs, compared) as a report
  // through the report code `raidscope-cli report` uses; the format from
  // the file name's suffix: .html, .pdf, .json or .csv. `path` may be a
  // file: URL (a FileDialog's). Returns false with exportMessage saying why
  // when refused; true once started (exportedChanged says how it ended).
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

 private:
  struct Step {
    QString label;
    RunRequest request;
  };
  void setStatus(Status s, const QString& phase, const QString& error = {});
  std::optional<Step> presetStep(const QString& preset, double seconds);
  bool startSteps(std::vector<Step> steps, const QString& change);
  void next();
  void finished(const RunReport& r);
  void tick();
  QVariantMap summarize(const Step& step, const RunReport& r) const;
  void save(const QString& label, const RunReport& r);

  QPointer<LiveSession> session_;
  Status status_ = Idle;
  QString error_, phase_, change_;
  double progress_ = 0;
  QVariantMap comparison_;
  QVariantList results_, scenario_rows_;
  QString results_dir_;
  std::vector<Step> steps_;
  size_t step_ = 0;
  double seconds_ = 0;
  QVariantList step_results_;
  std::vector<report::NamedResult> documents_;  // the last run's steps, for Export
  QString export_message_;
  bool export_ok_ = false;
  bool cancel_ = false;
  QTimer timer_;
  QElapsedTimer clock_;
  QMetaObject::Connection wait_conn_;
  std::thread scenario_thread_;
};

}  // namespace rs::gui
