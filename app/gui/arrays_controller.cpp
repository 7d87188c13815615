#include "arrays_controller.hpp"

#include <sys/stat.h>

#include <QFileInfo>
#include <QVariantMap>
#include <algorithm>
#include <chrono>

#include "discovery/in_use.hpp"
#include "discovery/signature.hpp"
#include "levels/levels.hpp"
#include "raid/array.hpp"
#include "session/array_session.hpp"
#include "fio/size_parse.hpp"

namespace rs::gui {

namespace {

bool isBlockDevice(const QString& path) {
  struct stat st {};
  return ::stat(path.toLocal8Bit().constData(), &st) == 0 && S_ISBLK(st.st_mode);
}

// An engine error as the window shows it. A refusal that raidscope-cli
// would override with --force has no override here: say how to free the
// member instead.
QString engineError(const rs::Error& e) {
  QString m = QString::fromStdString(e.message);
  // mdadm --zero-superblock clears an md superblock only; a filesystem or
  // partition table needs wipefs (the engine's refusal names which it is).
  if (e.overridable)
    m += m.contains(QStringLiteral("md superblock"))
             ? QStringLiteral(
                   " (if it is no longer needed, clear it first: mdadm --zero-superblock, or delete "
                   "the image file)")
             : QStringLiteral(
                   " (if it is no longer needed, clear it first: wipefs -a, or delete the image "
                   "file)");
  return m;
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

QVariantList ArraysController::levels() const {
  QVariantList out;
  for (const auto& l : levels::builtin().levels) {
    // The layouts a user picks from, for the level's smallest array (the
    // spellings do not depend on the count beyond that, except raid10's copies).
    QStringList layouts;
    for (const auto& name : l.layout_names(std::max(l.min_members, 4)))
      layouts << QString::fromStdString(name);
    out.push_back(QVariantMap{{"level", l.level},
                              {"name", QString::fromLatin1(l.name)},
                              {"min", l.min_members},
                              {"max", l.max_members},
                              {"chunked", l.chunked},
                              {"defaultLayout", QString::fromStdString(l.layout_name(l.default_layout))},
                              {"layouts", layouts}});
  }
  return out;
}

void ArraysController::inspect(const QStringList& paths) {
  if (working()) return;
  joinWorker();
  const std::vector<std::string> ps = [&] {
    std::vector<std::string> v;
    for (const auto& p : paths)
      if (!p.trimmed().isEmpty()) v.push_back(p.trimmed().toStdString());
    return v;
  }();
  worker_ = std::thread([this, ps] {
    QVariantList rows;
    for (const auto& p : ps) {
      QVariantMap row;
      row["path"] = QString::fromStdString(p);
      struct stat st {};
      const bool exists = ::stat(p.c_str(), &st) == 0;
      row["exists"] = exists;
      row["blockDevice"] = exists && S_ISBLK(st.st_mode);
      QString note;
      if (exists) {
        if (auto dev = io::MemberDevice::open(p, io::OpenMode::ReadOnly)) {
          row["size"] = double((*dev)->size_bytes());
          row["rotational"] = (*dev)->info().rotational;
          row["ioOpt"] = double((*dev)->info().io_opt);
        } else {
          note = QString::fromStdString(dev.error().message);
        }
        if (note.isEmpty()) note = QString::fromStdString(discovery::member_in_use(p));
        if (note.isEmpty()) {
          const std::string sig = discovery::existing_signature(p);
          if (!sig.empty()) note = QString::fromStdString("holds " + sig);
        }
      } else {
        note = QObject::tr("new image file");
      }
      row["note"] = note;
      rows.push_back(row);
    }
    QMetaObject::invokeMethod(
        this,
        [this, rows] {
          candidates_ = rows;
          emit candidatesChanged();
        },
        Qt::QueuedConnection);
  });
}

bool ArraysController::create(int level, const QString& layout, const QString& chunk,
                              const QStringList& pathsIn, const QString& newFileSize,
                              const QString& confirmation) {
  if (working()) return false;
  QStringList paths;
  for (const auto& p : pathsIn)
    if (!p.trimmed().isEmpty()) paths << p.trimmed();
  const raid::LevelInfo* info = levels::builtin().find(level);
  creating_ = true;
  auto refuse = [&](const QString& why) {
    setStatus(Error, {}, why);
    return false;
  };
  if (!info) return refuse(tr("RAID level %1 is not offered by this build").arg(level));
  if (paths.size() < info->min_members || paths.size() > info->max_members)
    return refuse(tr("%1 needs %2 to %3 members; %4 given")
                      .arg(QString::fromLatin1(info->name))
                      .arg(info->min_members)
                      .arg(info->max_members)
                      .arg(paths.size()));
  raid::CreateOptions o;
  o.level = level;
  o.raid_disks = int(paths.size());
  if (!chunk.trimmed().isEmpty()) {
    if (!info->chunked) return refuse(tr("%1 has no chunks").arg(QString::fromLatin1(info->name)));
    auto c = fio::parse_size(chunk.trimmed().toStdString());
    if (!c.ok() || c->value > raid::kMaxChunkBytes)
      return refuse(tr("Chunk %1: a power of two from 4K to 1G").arg(chunk));
    o.chunk_bytes = uint32_t(c->value);
  }
  if (!layout.trimmed().isEmpty()) {
    auto w = info->parse_layout(layout.trimmed().toStdString(), o.raid_disks);
    if (!w) return refuse(engineError(w.error()));
    o.layout = *w;
  }
  // The level's rules (chunk range, defaults) before anything is touched.
  if (auto shape = info->new_shape(o.raid_disks, o.layout, o.chunk_bytes); !shape)
    return refuse(engineError(shape.error()));
  bool anyMissing = false;
  for (const auto& p : paths) anyMissing |= !QFileInfo::exists(p);
  if (anyMissing) {
    auto sz = fio::parse_size(newFileSize.trimmed().toStdString());
    if (newFileSize.trimmed().isEmpty() || !sz.ok() || sz->value < (4u << 20))
      return refuse(tr("New image files need a size of at least 4M (\"%1\" given)").arg(newFileSize));
    o.create_files_bytes = sz->value;
  }
  QStringList devices;
  for (const auto& p : paths)
    if (isBlockDevice(p)) devices << p;
  if (!devices.isEmpty() && confirmation.trimmed() != "WRITE")
    return refuse(
        tr("Creating writes to %1, destroying what it holds: type WRITE to confirm").arg(devices.join(", ")));
  o.name = "raidscope";
  joinWorker();
  cancel_ = false;
  task_name_ = tr("Create");
  progress_ = -1;
  emit progressChanged();
  setStatus(Working, tr("Checking the members and writing the superblocks…"));
  std::vector<std::string> ps;
  for (const auto& p : paths) ps.push_back(p.toStdString());
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
  return true;
}

void ArraysController::open(const QStringList& paths) {
  QStringList ps;
  for (const auto& p : paths)
    if (!p.trimmed().isEmpty()) ps << p.trimmed();
  creating_ = true;
  if (ps.isEmpty()) {
    setStatus(Error, {}, tr("Give the array's members"));
    return;
  }
  if (session_) session_->openArray(ps);
}

bool ArraysController::onArray(const QString& name, Work work) {
  if (working() || !session_) return false;
  creating_ = false;
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
  work(*array).on_done([self, weak](const Result<io::TaskHandle>& t) {
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
    adding_ = false;
    setStatus(Error, {}, engineError(t.error()));
    return;
  }
  {
    std::lock_guard lock(mutex_);
    task_ = *t;
    members_after_.clear();
    if (auto array = weak.lock(); array && adding_)
      for (const auto& m : array->member_paths())
        if (!m.empty()) members_after_ << QString::fromStdString(m);
  }
  adding_ = false;
  if (cancel_) (*t)->cancel();
  joinWorker();
  worker_ = std::thread([this, task = *t, weak] {
    rs::Status st = waitFor(task);
    auto array = weak.lock();
    finished(st, array ? LiveSession::describeState(array->status()) : QString());
  });
}

rs::Status ArraysController::waitFor(io::TaskHandle task) {
  rs::Status st = task ? task->wait() : rs::Status{};
  std::lock_guard lock(mutex_);
  task_.reset();
  return st;
}

void ArraysController::finished(rs::Status st, QString state) {
  const bool cancelled = !st && st.error().code == Errc::cancelled;
  const QString err = st ? QString() : engineError(st.error());
  QMetaObject::invokeMethod(
      this,
      [this, cancelled, err, state] {
        if (cancelled)
          setStatus(Cancelled, tr("%1 cancelled").arg(task_name_));
        else if (!err.isEmpty())
          setStatus(Error, {}, err);
        else
          setStatus(Done, tr("%1 finished").arg(task_name_));
        QStringList after;
        {
          std::lock_guard lock(mutex_);
          std::swap(after, members_after_);
        }
        if (!err.isEmpty() || cancelled) after.clear();
        // The header says what the array is now, whatever the outcome (a
        // cancelled rebuild leaves it degraded, a Fail makes it so).
        if (session_) session_->arrayChanged(after, state);
        progress_ = cancelled || !err.isEmpty() ? progress_ : 1;
        emit progressChanged();
      },
      Qt::QueuedConnection);
}

bool ArraysController::check(bool repair) {
  return onArray(repair ? tr("Repair") : tr("Check"),
                 [repair](session::ArraySession& a) { return a.check(repair); });
}

bool ArraysController::failMember(int slot) {
  return onArray(tr("Fail member %1").arg(slot), [slot](session::ArraySession& a) {
    // A fail is done once the superblocks say so: a task finished at once.
    Started done;
    a.fail_member(slot, "failed from the GUI").on_done([done](const rs::Status& st) {
      if (!st) return done.set(st.error());
      auto t = io::make_task("fail");
      t->finish({});
      done.set(t);
    });
    return done;
  });
}

bool ArraysController::addMember(const QString& path, const QString& newFileSize) {
  raid::AddOptions o;
  if (!QFileInfo::exists(path)) {
    auto sz = fio::parse_size(newFileSize.trimmed().toStdString());
    if (newFileSize.trimmed().isEmpty() || !sz.ok()) {
      setStatus(Error, {}, tr("%1 does not exist: give a size to create it as an image file").arg(path));
      return false;
    }
    o.create_files_bytes = sz->value;
  }
  const std::string p = path.toStdString();
  // The new member takes a slot as the task starts: the array's members are
  // then the ones in a slot, by slot (what the session shows from now on,
  // once the rebuild finished).
  adding_ = true;  // started() takes the member list once the new member has its slot
  const bool ok = onArray(tr("Add %1").arg(QFileInfo(path).fileName()),
                          [p, o](session::ArraySession& a) { return a.add_member(p, o); });
  adding_ = ok;
  return ok;
}

void ArraysController::cancel() {
  cancel_ = true;
  std::lock_guard lock(mutex_);
  if (task_) task_->cancel();
}

}  // namespace rs::gui
