// The live session behind every page: the open array (an engine
// ArraySession held across runs and with no run), the workload running on
// it, its telemetry and its tunables.
//
// Threads. Opening and closing the array and a run (laying out the demo,
// the jobs) go on a run thread of its own, one at a time; tunable changes
// and the Arrays page's fail/add/check are the array session's commands
// (its own thread); the GUI thread only drains the SampleFeed on one timer
// (refreshHz, 20 by default) and reads the session's tunables and state
// (no I/O: the registry's getters must not block). The session's sampler
// runs while the array is open, so the dashboard shows the members, tasks
// and events with no workload; a run is one more client of the session.
//
// Tunables set by the user take effect on the open array at once and are
// remembered: opening the same members again applies them again.
#pragma once
#include <QtQml/qqmlregistration.h>

#include <QObject>
#include <QStringList>
#include <QTimer>
#include <QVariantMap>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "command_thread.hpp"
#include "presets.hpp"
#include "report/result_doc.hpp"
#include "sample_feed.hpp"
#include "session/array_session.hpp"
#include "telemetry_model.hpp"
#include "tunables_model.hpp"
#include "workload/bench.hpp"
#include "workload/job_spec.hpp"

namespace rs::gui {

// What one run does: its jobs, tunables to set for it, and a label.
struct RunRequest {
  QString label;                        // "Sequential read 1 MiB, QD16"
  std::vector<workload::JobSpec> jobs;  // typed jobs (a preset's, a live workload's)
  std::string job_file;                 // fio job file text the user wrote (its jobs run after `jobs`)
  std::vector<std::pair<std::string, std::string>> set;  // applied after the remembered ones
  bool keep_overrides = true;  // a run that opens the array applies the user's remembered tunables
  // Keep the run as a result document (RunReport::document) for reports:
  // every telemetry sample is kept, so only for runs of bounded length.
  bool keep_document = false;
  // Filled by beginRun() from the session (the run thread reads only these).
  std::vector<std::string> members;
  std::vector<std::pair<std::string, std::string>> remembered;
  unsigned hz = 20;
  double scale = 0;
  session::SessionOptions open_options;  // how the array is opened if the run opens it
  raid::AssembleOptions assemble;        // what the user accepted for it (LiveSession::openAnyway)
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
  QString array_text;                            // "raid5 of 4 members, 192 MiB, clean" as the run left it
  QString array_key;                             // the array's UUID (an open: memory::arrayKey)
  QString array_name;                            // its name in the superblocks
  rs::Consent consent = rs::Consent::none;       // an open refused: what the user may accept to go ahead
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
  // The open array's UUID ("" when none is open or it has none).
  Q_PROPERTY(QString arrayKey READ arrayKey NOTIFY membersChanged)
  // The figures are live: an array is open and a workload runs on it, or
  // something else (an export's client) does array I/O. Not live: the
  // dashboard greys its figures and says "stopped".
  Q_PROPERTY(bool live READ live NOTIFY liveChanged)
  Q_PROPERTY(QString workloadName READ workloadName NOTIFY statusChanged)
  // The last open was refused, and the user may start the array anyway on
  // purpose: "degraded" (members missing) or "dirty-degraded" (members
  // missing before its resync finished); "" otherwise. openAnyway() does it.
  Q_PROPERTY(QString openConsent READ openConsent NOTIFY statusChanged)
  Q_PROPERTY(QString openConsentText READ openConsentText NOTIFY statusChanged)
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
  bool busy() const {
    return status_ == Opening || status_ == Preparing || status_ == Running || status_ == Stopping;
  }
  QStringList members() const { return members_; }
  QString arrayText() const { return array_text_; }
  QString arrayKey() const { return array_key_; }
  bool live() const { return live_; }
  QString workloadName() const { return workload_name_; }
  QString openConsent() const;
  QString openConsentText() const;  // what starting it anyway risks, for the confirmation
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
  // Opens the array of these members (stops what runs; closes the array
  // open before); nothing is started. Empty: closes it.
  Q_INVOKABLE void openArray(const QStringList& members);
  // Opens the array whose open was just refused, accepting what openConsent
  // names (and what was accepted before for these members).
  Q_INVOKABLE void openAnyway();
  // The same with an array session opened already (a create's).
  void useArray(const QStringList& members, std::shared_ptr<session::ArraySession> array);
  // The open array, or null (any thread).
  std::shared_ptr<session::ArraySession> arraySession() const;
  // How the GUI opens arrays: its profile folders, its refresh rate, kept
  // open between runs.
  session::SessionOptions sessionOptions() const;
  // The open array changed (a task ended, a member failed or was added):
  // `members` (empty: unchanged) is its member list from now on, `state`
  // its description now (describeState), shown in place of the old one.
  void arrayChanged(const QStringList& members, const QString& state);
  // "raid1 of 2 members, 63 MiB, clean": the array as it is now.
  static QString describeState(const session::SessionStatus& status);
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
  void liveChanged();
  void runFinished(bool ok, const QString& message);
  void tunableFailed(const QString& name, const QString& message);

 private:
  void setStatus(Status s, const QString& text, const QString& error = {});
  void tick();
  void joinRun();
  void remember(const std::string& name, const std::string& value);
  // arrayText from the members' names and state_ (the last description).
  void composeArrayText();
  // The header and the member list from the open array's status (GUI
  // thread, twice a second): the members by slot as they are now (an added
  // member from the moment it has its slot), and its state.
  void refreshFromArray(const session::SessionStatus& status);
  // An open was refused: the header and the member list show again the
  // array that is still open (or none), not the members that were refused.
  void showOpenArrayAgain();
  // When to refresh it (and the tunables): see tick(); `newest` is the
  // newest sample drained this tick, or null.
  void refreshHeader(session::ArraySession& array, const telemetry::Sample* newest);
  // An array was opened: remembered (its members, its state) and the
  // tunables set on it before applied again.
  void arrayOpened(const RunReport& report);
  // Starts `body` on the run thread; `done` (and the status that follows)
  // on the GUI thread with its report. `opening`: no workload runs.
  void launch(std::function<RunReport()> body, bool opening, std::function<void(const RunReport&)> done);
  // The run thread's bodies.
  RunReport runOnThread(RunRequest request, bool prepare_demo);
  // The jobs of `run` with what the report wants of them (shares, a report document).
  workload::RunOutcome runBench(workload::BenchSession& run, const RunRequest& req, RunReport& rep);
  rs::Status prepareDemo(const RunRequest& req);
  // Run thread: makes `members` the open array (the one given, the open one
  // if it is theirs, else opened now), applying `remembered`.
  rs::Status openOnThread(const std::vector<std::string>& members,
                          std::shared_ptr<session::ArraySession> given,
                          const std::vector<std::pair<std::string, std::string>>& remembered,
                          const raid::AssembleOptions& assemble, const session::SessionOptions& options);
  // Run thread (or the destructor): leaves and closes the open array.
  void closeOnThread();

  Status status_ = Idle;
  QString error_, status_text_, array_text_, workload_name_, demo_dir_;
  QString state_;  // describeState() of the array when last seen ("" before)
  double progress_ = -1;
  QStringList members_;
  int refresh_hz_ = 20;
  double profile_scale_ = 0;
  int ticks_ = 0;
  bool demo_ = false;
  bool live_ = false;
  bool had_tasks_ = false;  // the last tick saw a task running on the array
  QString members_seen_;    // the members (path=state;...) the last tick's samples showed
  QString array_key_;       // the open array's UUID: what its remembered tunables are kept under
  rs::Consent open_consent_ = rs::Consent::none;  // the last open's refusal may be accepted so
  raid::AssembleOptions assemble_;                // what the user accepted for that open (openAnyway)
  QStringList refused_members_;                   // the members of the last open (refused: openAnyway's)

  TelemetryModel telemetry_;
  TunablesModel tunables_;
  QTimer timer_;
  SampleFeed feed_;
  std::vector<std::pair<std::string, std::string>> overrides_;

  // Shared with the run thread.
  mutable std::mutex mutex_;
  std::shared_ptr<session::ArraySession> array_;  // the open array
  bool run_attached_ = false;                     // a run is the array's client
  // The run thread's (set and reset only there, or in the destructor once it ended).
  session::Client viewer_;                        // the GUI as the array's client
  session::ArraySession::Subscription feed_sub_;  // every sample into feed_
  std::atomic<double> prep_progress_{-1};
  std::atomic<bool> cancel_{false};
  workload::RunProgress* progress_ptr_ = nullptr;  // under mutex_
  std::thread run_thread_;
  std::unique_ptr<CommandThread> commands_;  // last: destroyed (joined) first
};

}  // namespace rs::gui
