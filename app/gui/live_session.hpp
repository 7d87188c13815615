// The live session behind every page: one array (its member paths), the
// workload running on it, its telemetry and its tunables.
//
// Threads. A run (opening the array, laying out the demo, the jobs) goes on
// a run thread of its own; tunable changes and other commands go through a
// CommandThread; the GUI thread only drains the SampleFeed on one timer
// (refreshHz, 20 by default) and reads the registry's list (no I/O: the
// registry's getters must not block). The BenchSession is shared between
// the run thread and the commands while the run lasts.
//
// Tunables set by the user are remembered and applied again at the start
// of every later run on the same array (so Stop/Start or a benchmark keeps
// them), unless a run asks for other values.
#pragma once
#include <QObject>
#include <QStringList>
#include <QTimer>
#include <QVariantMap>
#include <QtQml/qqmlregistration.h>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "command_thread.hpp"
#include "sample_feed.hpp"
#include "telemetry_model.hpp"
#include "tunables_model.hpp"
#include "report/result_doc.hpp"
#include "workload/bench.hpp"

namespace rs::gui {

// What one run does: fio job options, tunables to set for it, and a label.
struct RunRequest {
  QString label;                       // "Sequential read 1 MiB, QD16"
  std::vector<std::string> job_args;   // fio command-line options ("--rw=read", ...)
  std::string job_file;               // fio job file text (its jobs run after job_args' ones)
  std::vector<std::pair<std::string, std::string>> set;  // applied after the remembered ones
  bool keep_overrides = true;          // apply the user's remembered tunables first
  bool inspect_only = false;           // open the array, read its tunables, close: no I/O run
  // Keep the run as a result document (RunReport::document) for reports:
  // every telemetry sample is kept, so only for runs of bounded length.
  bool keep_document = false;
  // Filled by beginRun() from the session (the run thread reads only these).
  std::vector<std::string> members;
  std::vector<std::pair<std::string, std::string>> remembered;
  unsigned hz = 20;
  double scale = 0;
};

struct RunReport {
  bool ok = false;
  bool cancelled = false;
  QString error;
  workload::RunResults results;
  std::vector<std::string> warnings;
  double share[8] = {};  // read share per member over the whole run (%); up to 8 members
  int members = 0;
  std::vector<telemetry::TunableInfo> tunables;  // the registry at the end of the run
  QString array_text;  // "raid5 of 4 members, 192 MiB, clean" as assembled
  // The run as `raidscope-cli bench --save` keeps it (report/result_doc.hpp),
  // when the request asked for it; null otherwise.
  report::Json document;
};

class LiveSession : public QObject {
  Q_OBJECT
  QML_ELEMENT
  Q_PROPERTY(Status status READ status NOTIFY statusChanged)
  Q_PROPERTY(QString errorString READ errorString NOTIFY statusChanged)
  Q_PROPERTY(QString statusText READ statusText NOTIFY statusChanged)
  Q_PROPERTY(double progress READ progress NOTIFY progressChanged)  // preparing: 0..1; -1 none
  Q_PROPERTY(bool running READ running NOTIFY statusChanged)
  Q_PROPERTY(bool busy READ busy NOTIFY statusChanged)  // preparing, running or stopping
  Q_PROPERTY(QStringList members READ members NOTIFY membersChanged)
  Q_PROPERTY(QString arrayText READ arrayText NOTIFY membersChanged)
  Q_PROPERTY(QString workloadName READ workloadName NOTIFY statusChanged)
  Q_PROPERTY(QString demoDir READ demoDir CONSTANT)
  Q_PROPERTY(int refreshHz READ refreshHz WRITE setRefreshHz NOTIFY refreshHzChanged)
  // Slows every emulated disk by this factor (0 < f <= 1, the CLI's
  // --profile-scale); 0: automatic, only as much as the host disk needs.
  Q_PROPERTY(double profileScale READ profileScale WRITE setProfileScale NOTIFY refreshHzChanged)
  Q_PROPERTY(rs::gui::TelemetryModel* telemetry READ telemetry CONSTANT)
  Q_PROPERTY(rs::gui::TunablesModel* tunables READ tunables CONSTANT)
  Q_PROPERTY(QStringList workloads READ workloads CONSTANT)
  Q_PROPERTY(QStringList profiles READ profiles CONSTANT)

 public:
  enum Status { Idle, Opening, Preparing, Running, Stopping, Stopped, Error };
  Q_ENUM(Status)

  explicit LiveSession(QObject* parent = nullptr);
  ~LiveSession() override;

  Status status() const { return status_; }
  QString errorString() const { return error_; }
  QString statusText() const { return status_text_; }
  double progress() const { return progress_; }
  bool running() const { return status_ == Running; }
  bool busy() const { return status_ == Opening || status_ == Preparing || status_ == Running || status_ == Stopping; }
  QStringList members() const { return members_; }
  QString arrayText() const { return array_text_; }
  QString workloadName() const { return workload_name_; }
  QString demoDir() const { return demo_dir_; }
  int refreshHz() const { return refresh_hz_; }
  void setRefreshHz(int hz);
  double profileScale() const { return profile_scale_; }
  void setProfileScale(double f) {
    profile_scale_ = f > 0 && f <= 1 ? f : 0;
    emit refreshHzChanged();
  }
  TelemetryModel* telemetry() { return &telemetry_; }
  TunablesModel* tunables() { return &tunables_; }
  QStringList workloads() const;  // the live workloads start() knows, by key
  QStringList profiles() const;   // device profiles found in the resource folders

  // The first-run demo: a RAID1 of two image files under demoDir (made and
  // written once if missing), two different emulated disks, a sequential
  // read running.
  Q_INVOKABLE void openDemo();
  // Uses these members from now on (stops what runs); nothing is started.
  Q_INVOKABLE void openArray(const QStringList& members);
  // The open array changed (a task ended, a member failed or was added):
  // `members` (empty: unchanged) is its member list from the next run on (a
  // run going on is left alone), `state` its description now
  // (describeState), shown in place of the old one.
  void arrayChanged(const QStringList& members, const QString& state);
  // "raid1 of 2 members, 63 MiB, clean": the array as it is now (any thread
  // that may use the array).
  static QString describeState(const raid::Array& array);
  // Starts a live (time based, until Stop) workload: "seqread", "randread",
  // "seqwrite", "mixed".
  Q_INVOKABLE void start(const QString& workload = QStringLiteral("seqread"));
  Q_INVOKABLE void stop();
  // Checks `value` now (an error message, nothing changed, if it is wrong);
  // else remembers it and applies it on the command thread while a run goes
  // on. Returns "" or the message.
  Q_INVOKABLE QString setTunable(const QString& name, const QString& value);
  Q_INVOKABLE QString workloadLabel(const QString& key) const;

  // For the other controllers: one run with a report at the end (GUI
  // thread). Refused (false) while something runs.
  bool beginRun(RunRequest request, std::function<void(const RunReport&)> done);
  // Runs `work` on the command thread with the open array, or null when no
  // run holds it; `done` gets its message on the GUI thread.
  void withArray(std::function<QString(raid::Array*)> work, std::function<void(const QString&)> done);
  // Runs `work` on the command thread (file writes and other I/O the GUI
  // thread must not do).
  void post(std::function<void()> work) { commands_->post(std::move(work)); }
  // The user's remembered tunables (name, value), in the order set.
  const std::vector<std::pair<std::string, std::string>>& overrides() const { return overrides_; }
  static QStringList resourceDirs(const QString& kind);

 signals:
  void statusChanged();
  void progressChanged();
  void membersChanged();
  void refreshHzChanged();
  void runFinished(bool ok, const QString& message);
  void tunableFailed(const QString& name, const QString& message);

 private:
  void setStatus(Status s, const QString& text, const QString& error = {});
  void tick();
  void joinRun();
  void remember(const std::string& name, const std::string& value);
  // arrayText from the members' names and state_ (the last description).
  void composeArrayText();
  // The run thread's body.
  RunReport runOnThread(RunRequest request, bool prepare_demo);
  rs::Status prepareDemo();

  Status status_ = Idle;
  QString error_, status_text_, array_text_, workload_name_, demo_dir_;
  QString state_;  // describeState() of the array when last seen ("" before)
  double progress_ = -1;
  QStringList members_;
  int refresh_hz_ = 20;
  double profile_scale_ = 0;
  int ticks_ = 0;
  bool demo_ = false;

  TelemetryModel telemetry_;
  TunablesModel tunables_;
  QTimer timer_;
  SampleFeed feed_;
  std::vector<std::pair<std::string, std::string>> overrides_;

  // Shared with the run thread.
  std::mutex mutex_;
  std::shared_ptr<workload::BenchSession> current_;  // while a run holds the array
  std::atomic<double> prep_progress_{-1};
  std::atomic<bool> cancel_{false};
  workload::RunProgress* progress_ptr_ = nullptr;    // under mutex_
  std::thread run_thread_;
  std::unique_ptr<CommandThread> commands_;  // last: destroyed (joined) first
};

}  // namespace rs::gui
