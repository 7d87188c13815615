// The Arrays page: candidates for members (size, rotational, io_opt, what
// holds them), create an array (level, layout, chunk, new image files of a
// size or existing files/devices; the engine's safety checks run before
// anything is written; a typed confirmation before writing to a block
// device), open an existing array from its members, and the long
// operations (check, repair, fail a member, add one) as tasks with progress
// and Cancel. Those are commands of the open array's session (the one the
// live session holds, with or without a run: never a second owner of the
// members); a create runs on a worker thread and hands its array's session
// to the live session.
#pragma once
#include <QtQml/qqmlregistration.h>

#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QVariantList>
#include <atomic>
#include <mutex>
#include <thread>

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
  // The last operation was a create (shown by the create form) rather than
  // a task on the open array (shown by the array's card).
  Q_PROPERTY(bool creating READ creating NOTIFY statusChanged)
  Q_PROPERTY(QVariantList candidates READ candidates NOTIFY candidatesChanged)
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
  QVariantList candidates() const { return candidates_; }
  QVariantList levels() const;  // [{level, name, min, max}]

  // Describes each path (off the GUI thread): exists, kind, size, rotational,
  // io_opt, and what would stop it from being a member ("" when free).
  Q_INVOKABLE void inspect(const QStringList& paths);
  // Creates the array; `newFileSize` ("256M") creates missing image files of
  // that size. Writing to a block device needs `confirmation` to be the
  // word WRITE. On success the session opens the new array.
  Q_INVOKABLE bool create(int level, const QString& layout, const QString& chunk, const QStringList& paths,
                          const QString& newFileSize, const QString& confirmation);
  Q_INVOKABLE void open(const QStringList& paths);
  Q_INVOKABLE bool check(bool repair);
  Q_INVOKABLE bool failMember(int slot);
  Q_INVOKABLE bool addMember(const QString& path, const QString& newFileSize);
  Q_INVOKABLE void cancel();

 signals:
  void sessionChanged();
  void statusChanged();
  void progressChanged();
  void candidatesChanged();
  void created(const QStringList& members);

 private:
  using Started = session::Pending<Result<io::TaskHandle>>;
  using Work = std::function<Started(session::ArraySession&)>;
  void setStatus(Status s, const QString& message, const QString& error = {});
  // Runs `work` (a command) on the open array's session and follows the
  // task it answers with.
  bool onArray(const QString& name, Work work);
  // Worker thread: waits for `task`, then reports on the GUI thread with
  // the array's state after it.
  rs::Status waitFor(io::TaskHandle task);
  void finished(rs::Status st, QString state);
  // GUI thread: the command's answer came.
  void started(const Result<io::TaskHandle>& task, std::weak_ptr<session::ArraySession> array);
  void joinWorker();

  QPointer<LiveSession> session_;
  Status status_ = Idle;
  QString error_, message_, task_name_;
  double progress_ = -1;
  bool creating_ = false;
  QVariantList candidates_;
  QTimer poll_;
  std::mutex mutex_;
  io::TaskHandle task_;        // the task being followed (under mutex_)
  QStringList members_after_;  // an add's member list once it finished (under mutex_)
  bool adding_ = false;        // the task being started is an add
  std::atomic<bool> cancel_{false};
  std::thread worker_;
};

}  // namespace rs::gui
