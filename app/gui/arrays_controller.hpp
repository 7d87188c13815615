// The Arrays page's commands: create an array from the wizard's plan (the
// engine's safety checks run before anything is written), open one from
// its members, and the operations on the open array (check, repair, fail,
// add, replace a member) as tasks with progress, Cancel and a result (a
// check's or repair's mismatch count). Those are commands of the open
// array's session (the one the live session holds, with or without a run:
// never a second owner of the members); a create runs on a worker thread
// and hands its array's session to the live session.
//
// A running workload is never stopped silently: create and open refuse
// while one runs unless told to stop it (the page asks first).
#pragma once
#include <QtQml/qqmlregistration.h>

#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QVariantList>
#include <atomic>
#include <mutex>
#include <thread>

#include "create_plan.hpp"
#include "io/task.hpp"
#include "live_session.hpp"

namespace rs::gui {

class ArraysController : public QObject {
  Q_OBJECT
  QML_ELEMENT
  Q_PROPERTY(rs::gui::LiveSession* session READ session WRITE setSession NOTIFY sessionChanged)
  Q_PROPERTY(Status status READ status NOTIFY statusChanged)
  Q_PROPERTY(QString errorString READ errorString NOTIFY statusChanged)
  Q_PROPERTY(QString message READ message NOTIFY statusChanged)
  Q_PROPERTY(QString taskName READ taskName NOTIFY statusChanged)
  Q_PROPERTY(double progress READ progress NOTIFY progressChanged)  // 0..1, -1 unknown
  Q_PROPERTY(bool working READ working NOTIFY statusChanged)
  // The last operation was a create (shown by the wizard) rather than a
  // task on the open array (shown by the array's panel).
  Q_PROPERTY(bool creating READ creating NOTIFY statusChanged)
  // The last check's or repair's mismatch count (md's mismatch_cnt, in
  // 512-byte sectors); -1 before one finished.
  Q_PROPERTY(double mismatches READ mismatches NOTIFY statusChanged)
  Q_PROPERTY(QVariantList levels READ levels CONSTANT)

 public:
  enum Status { Idle, Working, Done, Cancelled, Error };
  Q_ENUM(Status)

  explicit ArraysController(QObject* parent = nullptr);
  ~ArraysController() override;

  LiveSession* session() const { return session_; }
  void setSession(LiveSession* s);
  Status status() const { return status_; }
  QString errorString() const { return error_; }
  QString message() const { return message_; }
  QString taskName() const { return task_name_; }
  double progress() const { return progress_; }
  bool working() const { return status_ == Working; }
  bool creating() const { return creating_; }
  double mismatches() const { return mismatches_; }
  QVariantList levels() const { return levelRows(); }

  // Creates the plan's array (refused with the plan's first problem, or
  // while a workload runs unless `stopWorkload`). On success the session
  // opens the new array.
  Q_INVOKABLE bool create(rs::gui::CreatePlan* plan, bool stopWorkload);
  // Opens the array of these members (refused while a workload runs unless
  // `stopWorkload`).
  Q_INVOKABLE bool open(const QStringList& paths, bool stopWorkload);
  Q_INVOKABLE bool check(bool repair);
  Q_INVOKABLE bool failMember(int slot);
  // Takes a failed member out of the array (mdadm --remove): its slot is
  // left missing for a new member. Refused (by the engine) for a member
  // that is not faulty.
  Q_INVOKABLE bool removeMember(int slot);
  Q_INVOKABLE bool addMember(const QString& path, const QString& newFileSize);
  // Fails the member in `slot` (when it is not faulty already) and rebuilds
  // onto `path` in its place.
  Q_INVOKABLE bool replaceMember(int slot, const QString& path, const QString& newFileSize);
  // What failing `slot` leaves, in words for the confirmation: "raid1 of 2
  // members, degraded: only j0.img holds the data".
  Q_INVOKABLE QString describeFail(int slot) const;
  // The remove's confirmation: the member by name and the array afterwards.
  Q_INVOKABLE QString describeRemove(int slot) const;
  Q_INVOKABLE void cancel();

 signals:
  void sessionChanged();
  void statusChanged();
  void progressChanged();
  void created(const QStringList& members);

 private:
  using Started = session::Pending<Result<io::TaskHandle>>;
  using Work = std::function<Started(std::shared_ptr<session::ArraySession>)>;
  void setStatus(Status s, const QString& message, const QString& error = {});
  bool refuseWhileRunning(bool stopWorkload);
  void startCreate(const raid::CreateOptions& o, const std::vector<std::string>& paths,
                   const QStringList& members);
  // Runs `work` (a command) on the open array's session and follows the
  // task it answers with.
  bool onArray(const QString& name, Work work, bool checking = false);
  // Worker thread: waits for `task`, then reports on the GUI thread with
  // the array's state after it.
  rs::Status waitFor(io::TaskHandle task);
  void finished(rs::Status st, QString state, double mismatches);
  // GUI thread: the command's answer came.
  void started(const Result<io::TaskHandle>& task, std::weak_ptr<session::ArraySession> array);
  // A command that is done once it answers (fail, remove), followed as a
  // task that finished at once.
  static Started doneAtOnce(session::Pending<rs::Status> command);
  // "raid1 of 2 members, 1 of them working: j0.img" with `slot` counted as
  // not working (the array after a fail or remove of it).
  QString describeWithout(const session::SessionStatus& st, int slot) const;
  // The open array's status and member `slot`'s short name; false when no
  // array is open or it has no such slot.
  bool slotOfOpenArray(int slot, session::SessionStatus& st, QString& name) const;
  bool newFileOptions(const QString& path, const QString& newFileSize, raid::AddOptions& o);
  void joinWorker();

  QPointer<LiveSession> session_;
  Status status_ = Idle;
  QString error_, message_, task_name_;
  double progress_ = -1, mismatches_ = -1;
  bool creating_ = false;
  bool checking_ = false;  // the task being followed is a check or repair
  QTimer poll_;
  std::mutex mutex_;
  io::TaskHandle task_;  // the task being followed (under mutex_)
  std::atomic<bool> cancel_{false};
  std::thread worker_;
};

}  // namespace rs::gui
