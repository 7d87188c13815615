#include "arrays_controller.hpp"

#include <QFileInfo>
#include <algorithm>

#include "fio/size_parse.hpp"
#include "member_names.hpp"
#include "session/array_session.hpp"

namespace rs::gui {

namespace {

// An engine error as the window shows it. A refusal that raidscope-cli
// would override with --force has no override here: say how to free the
// member instead.
QString engineError(const rs::Error& e) {
  QString m = QString::fromStdString(e.message);
  // mdadm --zero-superblock clears an md superblock only; a filesystem or
  // partition table needs wipefs (the engine's refusal names which it is).
  if (e.consent == Consent::overwrite)
    m += m.contains(QStringLiteral("md superblock"))
             ? QStringLiteral(
                   " (if it is no longer needed, clear it first: mdadm --zero-superblock, or delete "
                   "the image file)")
             : QStringLiteral(
                   " (if it is no longer needed, clear it first: wipefs -a, or delete the image "
                   "file)");
  return m;
}

// The members in a slot now, by slot (what the session shows from now on).
QStringList presentMembers(const session::SessionStatus& st) {
  QStringList out;
  for (const auto& m : st.members)
    if (!m.path.empty()) out << QString::fromStdString(m.path);
  return out;
}

// Every slot's path ("" where missing), for distinctNames.
QStringList presentOrSlotNames(const session::SessionStatus& st) {
  QStringList out;
  for (const auto& m : st.members) out << QString::fromStdString(m.path);
  return out;
}

}  // namespace

ArraysController::ArraysController(QObject* parent) : QObject(parent) {
  poll_.setInterval(100);
  connect(&poll_, &QTimer::timeout, this, [this] {
    io::TaskHandle t;
    {
      std::lock_guard lock(mutex_);
      t = task_;
    }
    if (!t) return;
    const auto p = t->progress();
    const double f = p.total ? double(p.done) / double(p.total) : -1;
    if (f != progress_) {
      progress_ = f;
      emit progressChanged();
    }
  });
}

ArraysController::~ArraysController() {
  cancel_ = true;
  {
    std::lock_guard lock(mutex_);
    if (task_) task_->cancel();
  }
  joinWorker();
}

void ArraysController::joinWorker() {
  if (worker_.joinable()) worker_.join();
}

void ArraysController::setSession(LiveSession* s) {
  if (session_ == s) return;
  session_ = s;
  emit sessionChanged();
}

void ArraysController::setStatus(Status s, const QString& message, const QString& error) {
  status_ = s;
  message_ = message;
  error_ = error;
  if (s != Working) poll_.stop();
  emit statusChanged();
}

bool ArraysController::refuseWhileRunning(bool stopWorkload) {
  if (!session_ || !session_->busy()) return false;
  if (!stopWorkload) {
    setStatus(
        Error, {},
        tr("A workload is running on the open array (%1): stop it first").arg(session_->workloadName()));
    return true;
  }
  session_->stop();  // asked for: the page confirmed it with the user
  return false;
}

bool ArraysController::create(CreatePlan* plan, bool stopWorkload) {
  if (working() || !plan) return false;
  creating_ = true;
  if (const QStringList problems = plan->problems(); !problems.isEmpty()) {
    setStatus(Error, {}, problems.first());
    return false;
  }
  if (!plan->confirmed()) {
    setStatus(Error, {}, plan->confirmationPrompt());
    return false;
  }
  if (session_ && session_->busy() && !stopWorkload) return refuseWhileRunning(false), false;
  const raid::CreateOptions o = plan->options();
  const std::vector<std::string> ps = plan->paths();
  const QStringList paths = plan->members();
  task_name_ = tr("Create");
  progress_ = -1;
  emit progressChanged();
  setStatus(Working, tr("Checking the members and writing the superblocks…"));
  if (session_ && session_->busy()) {
    // The page asked the user: the run stops first and lets go of its array.
    setStatus(Working, tr("Stopping the running workload…"));
    auto conn = std::make_shared<QMetaObject::Connection>();
    *conn = connect(session_, &LiveSession::statusChanged, this, [this, conn, o, ps, paths] {
      if (session_->busy()) return;
      disconnect(*conn);
      startCreate(o, ps, paths);
    });
    session_->stop();
    return true;
  }
  startCreate(o, ps, paths);
  return true;
}

void ArraysController::startCreate(const raid::CreateOptions& o, const std::vector<std::string>& ps,
                                   const QStringList& paths) {
  joinWorker();
  cancel_ = false;
  setStatus(Working, tr("Checking the members and writing the superblocks…"));
  const session::SessionOptions options = session_ ? session_->sessionOptions() : session::SessionOptions{};
  worker_ = std::thread([this, o, ps, paths, options] {
    // The new array is opened as it is made: the live session takes it
    // over, no close and assemble in between.
    auto made = session::ArraySession::create(o, ps, options);
    QString err = made ? QString() : engineError(made.error());
    std::shared_ptr<session::ArraySession> array = made ? *made : nullptr;
    QMetaObject::invokeMethod(
        this,
        [this, err, paths, array]() mutable {
          if (!err.isEmpty()) {
            setStatus(Error, {}, err);
            return;
          }
          setStatus(Done, tr("Created a RAID array of %1 members").arg(paths.size()));
          emit created(paths);
          if (session_) session_->useArray(paths, std::move(array));
          // Without a live session the array closes here, clean.
        },
        Qt::QueuedConnection);
  });
}

bool ArraysController::open(const QStringList& paths, bool stopWorkload) {
  QStringList ps;
  for (const auto& p : paths)
    if (!p.trimmed().isEmpty()) ps << p.trimmed();
  creating_ = false;
  if (ps.isEmpty()) {
    setStatus(Error, {}, tr("Give the array's members"));
    return false;
  }
  if (!session_ || refuseWhileRunning(stopWorkload)) return false;
  session_->openArray(ps);
  return true;
}

bool ArraysController::onArray(const QString& name, Work work, bool checking) {
  if (working() || !session_) return false;
  creating_ = false;
  // Read when the task has started (later, on the GUI thread): its result is a mismatch count.
  checking_ = checking;
  auto array = session_->arraySession();
  if (!array) {
    setStatus(Error, {},
              session_->members().isEmpty() ? tr("No array is open")
                                            : tr("The array is not open yet: wait for it"));
    return false;
  }
  joinWorker();
  cancel_ = false;
  task_name_ = name;
  progress_ = -1;
  emit progressChanged();
  setStatus(Working, name + "…");
  poll_.start();
  // A command of the array's session: with or without a run, on the one open array.
  QPointer<ArraysController> self(this);
  std::weak_ptr<session::ArraySession> weak = array;
  work(array).on_done([self, weak](const Result<io::TaskHandle>& t) {
    QMetaObject::invokeMethod(
        self,
        [self, t, weak] {
          if (self) self->started(t, weak);
        },
        Qt::QueuedConnection);
  });
  return true;
}

void ArraysController::started(const Result<io::TaskHandle>& t, std::weak_ptr<session::ArraySession> weak) {
  if (!t) {
    setStatus(Error, {}, engineError(t.error()));
    return;
  }
  {
    std::lock_guard lock(mutex_);
    task_ = *t;
  }
  if (cancel_) (*t)->cancel();
  joinWorker();
  worker_ = std::thread([this, task = *t, weak, checking = checking_] {
    rs::Status st = waitFor(task);
    auto array = weak.lock();
    double mismatches = -1;
    if (array && checking) {
      // The check's own record: md's mismatch_cnt once it finished.
      const auto tasks = array->tasks();
      auto it = std::find_if(tasks.rbegin(), tasks.rend(), [&](const auto& i) { return i.task == task; });
      if (it != tasks.rend()) mismatches = double(it->mismatches);
    }
    finished(st, array ? LiveSession::describeState(array->status()) : QString(), mismatches);
  });
}

rs::Status ArraysController::waitFor(io::TaskHandle task) {
  rs::Status st = task ? task->wait() : rs::Status{};
  std::lock_guard lock(mutex_);
  task_.reset();
  return st;
}

void ArraysController::finished(rs::Status st, QString state, double mismatches) {
  const bool cancelled = !st && st.error().code == Errc::cancelled;
  const QString err = st ? QString() : engineError(st.error());
  QMetaObject::invokeMethod(
      this,
      [this, cancelled, err, state, mismatches] {
        if (mismatches >= 0) mismatches_ = mismatches;
        QString done = tr("%1 finished").arg(task_name_);
        if (mismatches >= 0)
          done = mismatches == 0 ? tr("%1 finished: no mismatch, the copies agree").arg(task_name_)
                                 : tr("%1 finished: %2 mismatched sectors (md's mismatch_cnt)%3")
                                       .arg(task_name_)
                                       .arg(qulonglong(mismatches))
                                       .arg(task_name_ == tr("Repair") ? tr(", rewritten") : QString());
        if (cancelled)
          setStatus(Cancelled, tr("%1 cancelled").arg(task_name_));
        else if (!err.isEmpty())
          setStatus(Error, {}, err);
        else
          setStatus(Done, done);
        // The header says what the array is now, whatever the outcome (a
        // cancelled rebuild leaves it degraded, a Fail makes it so).
        if (session_)
          if (auto array = session_->arraySession())
            session_->arrayChanged(presentMembers(array->status()), state);
        progress_ = cancelled || !err.isEmpty() ? progress_ : 1;
        emit progressChanged();
      },
      Qt::QueuedConnection);
}

bool ArraysController::check(bool repair) {
  return onArray(
      repair ? tr("Repair") : tr("Check"),
      [repair](std::shared_ptr<session::ArraySession> a) { return a->check(repair); }, true);
}

ArraysController::Started ArraysController::doneAtOnce(session::Pending<rs::Status> command) {
  // Done once the superblocks say so: a task finished at once.
  Started done;
  command.on_done([done](const rs::Status& st) {
    if (!st) return done.set(st.error());
    auto t = io::make_task("member");
    t->finish({});
    done.set(t);
  });
  return done;
}

bool ArraysController::failMember(int slot) {
  return onArray(tr("Fail member %1").arg(slot), [slot](std::shared_ptr<session::ArraySession> a) {
    return doneAtOnce(a->fail_member(slot, "failed from the GUI"));
  });
}

bool ArraysController::removeMember(int slot) {
  return onArray(tr("Remove member %1").arg(slot), [slot](std::shared_ptr<session::ArraySession> a) {
    return doneAtOnce(a->remove_member(slot));
  });
}

bool ArraysController::newFileOptions(const QString& path, const QString& newFileSize, raid::AddOptions& o) {
  if (QFileInfo::exists(path)) return true;
  auto sz = fio::parse_size(newFileSize.trimmed().toStdString());
  if (newFileSize.trimmed().isEmpty() || !sz.ok()) {
    setStatus(Error, {}, tr("%1 does not exist: give a size to create it as an image file").arg(path));
    return false;
  }
  o.create_files_bytes = sz->value;
  return true;
}

bool ArraysController::addMember(const QString& path, const QString& newFileSize) {
  raid::AddOptions o;
  if (!newFileOptions(path, newFileSize, o)) return false;
  const std::string p = path.toStdString();
  return onArray(tr("Add %1").arg(QFileInfo(path).fileName()),
                 [p, o](std::shared_ptr<session::ArraySession> a) { return a->add_member(p, o); });
}

bool ArraysController::replaceMember(int slot, const QString& path, const QString& newFileSize) {
  raid::AddOptions o;
  if (!newFileOptions(path, newFileSize, o)) return false;
  auto array = session_ ? session_->arraySession() : nullptr;
  const auto st = array ? array->status() : session::SessionStatus{};
  if (slot < 0 || size_t(slot) >= st.members.size()) {
    setStatus(Error, {}, tr("The array has no member %1").arg(slot));
    return false;
  }
  const bool failFirst =
      st.members[size_t(slot)].state != "faulty" && st.members[size_t(slot)].state != "missing";
  const std::string p = path.toStdString();
  return onArray(
      tr("Replace member %1 by %2").arg(slot).arg(QFileInfo(path).fileName()),
      [slot, p, o, failFirst](std::shared_ptr<session::ArraySession> a) {
        if (!failFirst) return a->add_member(p, o);
        // In order on the session's command thread: the fail, then the add.
        Started done;
        a->fail_member(slot, "replaced from the GUI").on_done([done, a, p, o](const rs::Status& st) {
          if (!st) return done.set(st.error());
          a->add_member(p, o).on_done([done](const Result<io::TaskHandle>& t) { done.set(t); });
        });
        return done;
      });
}

QString ArraysController::describeWithout(const session::SessionStatus& st, int slot) const {
  QStringList keep;
  const QStringList names = distinctNames(presentOrSlotNames(st));
  for (size_t i = 0; i < st.members.size(); ++i)
    if (int(i) != slot && st.members[i].state == "active sync") keep << names[qsizetype(i)];
  const int working = st.working - (st.members[size_t(slot)].state == "active sync" ? 1 : 0);
  return tr("%1 of %2 members, %3 of them working: %4")
      .arg(QString::fromStdString(st.level))
      .arg(st.raid_disks)
      .arg(working)
      .arg(keep.isEmpty() ? tr("none") : keep.join(", "));
}

bool ArraysController::slotOfOpenArray(int slot, session::SessionStatus& st, QString& name) const {
  auto array = session_ ? session_->arraySession() : nullptr;
  if (!array) return false;
  st = array->status();
  if (slot < 0 || size_t(slot) >= st.members.size()) return false;
  name = distinctNames(presentOrSlotNames(st))[slot];
  return true;
}

QString ArraysController::describeFail(int slot) const {
  session::SessionStatus st;
  QString name;
  if (!slotOfOpenArray(slot, st, name)) return {};
  return tr("Mark %1 (member %2) faulty? The array goes on degraded as %3; its data is no longer on %1 until "
            "a new member is added and rebuilt.")
      .arg(name)
      .arg(slot)
      .arg(describeWithout(st, slot));
}

QString ArraysController::describeRemove(int slot) const {
  session::SessionStatus st;
  QString name;
  if (!slotOfOpenArray(slot, st, name)) return {};
  return tr("Remove %1 (member %2, %3) from the array? Its slot is left empty for a new member, and %1 "
            "is released (nothing on it is erased). The array stays degraded as %4.")
      .arg(name)
      .arg(slot)
      .arg(QString::fromStdString(st.members[size_t(slot)].state))
      .arg(describeWithout(st, slot));
}

void ArraysController::cancel() {
  cancel_ = true;
  std::lock_guard lock(mutex_);
  if (task_) task_->cancel();
}

}  // namespace rs::gui
