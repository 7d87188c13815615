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
#include "workload/size_parse.hpp"

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
    for (const auto& name : l.layout_names(std::max(l.min_members, 4))) layouts << QString::fromStdString(name);
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
        std::string err;
        if (auto dev = io::MemberDevice::open(p, io::OpenMode::ReadOnly, &err)) {
          row["size"] = double(dev->size_bytes());
          row["rotational"] = dev->info().rotational;
          row["ioOpt"] = double(dev->info().io_opt);
        } else {
          note = QString::fromStdString(err);
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
    auto c = workload::parse_size(chunk.trimmed().toStdString());
    if (!c.ok() || c.value > raid::kMaxChunkBytes)
      return refuse(tr("Chunk %1: a power of two from 4K to 1G").arg(chunk));
    o.chunk_bytes = uint32_t(c.value);
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
    auto sz = workload::parse_size(newFileSize.trimmed().toStdString());
    if (newFileSize.trimmed().isEmpty() || !sz.ok() || sz.value < (4u << 20))
      return refuse(tr("New image files need a size of at least 4M (\"%1\" given)").arg(newFileSize));
    o.create_files_bytes = sz.value;
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
  worker_ = std::thread([this, o, ps, paths] {
    auto made = raid::Array::create(levels::builtin(), o, ps);
    QString err;
    if (!made)
      err = engineError(made.error());
    else if (rs::Status st = (*made)->close(); !st)
      err = engineError(st.error());
    if (made) made->reset();  // the array is destroyed here, off the GUI thread
    QMetaObject::invokeMethod(
        this,
        [this, err, paths] {
          if (!err.isEmpty()) {
            setStatus(Error, {}, err);
            return;
          }
          setStatus(Done, tr("Created a RAID array of %1 members").arg(paths.size()));
          emit created(paths);
          if (session_) session_->openArray(paths);
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
  if (session_->members().isEmpty()) {
    setStatus(Error, {}, tr("No array is open"));
    return false;
  }
  joinWorker();
  cancel_ = false;
  task_name_ = name;
  progress_ = -1;
  emit progressChanged();
  setStatus(Working, name + "…");
  poll_.start();
  if (session_->running()) {
    // The running workload holds the array: the task runs on it, alongside.
    session_->withArray(
        [this, work](raid::Array* a) -> QString {
          if (!a) return tr("The array closed before the task could start");
          auto t = work(*a);
          if (!t) return engineError(t.error());
          std::lock_guard lock(mutex_);
          task_ = *t;
          return {};
        },
        [this](const QString& err) {
          if (!err.isEmpty()) return setStatus(Error, {}, err);
          io::TaskHandle t;
          {
            std::lock_guard lock(mutex_);
            t = task_;
          }
          joinWorker();
          worker_ = std::thread([this, t] { finished(waitFor(t), {}); });
        });
    return true;
  }
  std::vector<std::string> members;
  for (const auto& m : session_->members()) members.push_back(m.toStdString());
  worker_ = std::thread([this, members, work] {
    auto arr = raid::Array::assemble(levels::builtin(), members, {});
    if (!arr) {
      QString e = engineError(arr.error());
      QMetaObject::invokeMethod(
          this, [this, e] { setStatus(Error, {}, e); }, Qt::QueuedConnection);
      return;
    }
    auto t = work(**arr);
    if (!t) {
      QString e = engineError(t.error());
      (void)(*arr)->close();
      QMetaObject::invokeMethod(
          this, [this, e] { setStatus(Error, {}, e); }, Qt::QueuedConnection);
      return;
    }
    {
      std::lock_guard lock(mutex_);
      task_ = *t;
    }
    if (cancel_) (*t)->cancel();
    rs::Status st = waitFor(*t);
    (void)(*arr)->close();
    // Described once closed (a repair's writes leave it active until then).
    finished(st, LiveSession::describeState(**arr));
  });
  return true;
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
        if (session_) {
          session_->arrayChanged(after, state);
          if (state.isEmpty() && session_->running()) {
            QPointer<LiveSession> s = session_;
            session_->withArray([](raid::Array* a) { return a ? LiveSession::describeState(*a) : QString(); },
                                [s](const QString& now) {
                                  if (s) s->arrayChanged({}, now);
                                });
          }
        }
        progress_ = cancelled || !err.isEmpty() ? progress_ : 1;
        emit progressChanged();
      },
      Qt::QueuedConnection);
}

bool ArraysController::check(bool repair) {
  return onArray(repair ? tr("Repair") : tr("Check"),
                 [repair](raid::Array& a) { return a.start_check(repair); });
}

bool ArraysController::failMember(int slot) {
  return onArray(tr("Fail member %1").arg(slot), [slot](raid::Array& a) -> Result<io::TaskHandle> {
    if (rs::Status st = a.fail_member(slot, "failed from the GUI"); !st) return st.error();
    auto t = io::make_task("fail");
    t->finish({});
    return t;
  });
}

bool ArraysController::addMember(const QString& path, const QString& newFileSize) {
  raid::AddOptions o;
  if (!QFileInfo::exists(path)) {
    auto sz = workload::parse_size(newFileSize.trimmed().toStdString());
    if (newFileSize.trimmed().isEmpty() || !sz.ok()) {
      setStatus(Error, {}, tr("%1 does not exist: give a size to create it as an image file").arg(path));
      return false;
    }
    o.create_files_bytes = sz.value;
  }
  const std::string p = path.toStdString();
  std::vector<std::string> old;
  if (session_)
    for (const auto& m : session_->members()) old.push_back(m.toStdString());
  {
    std::lock_guard lock(mutex_);
    members_after_.clear();
  }
  // The new member takes a slot as the task starts: the array's members are
  // then the old ones still in a slot and it, by slot (what the session
  // opens from now on, once the rebuild finished).
  const bool ok = onArray(tr("Add %1").arg(QFileInfo(path).fileName()),
                          [this, p, o, old](raid::Array& a) -> Result<io::TaskHandle> {
                            auto t = a.start_add(p, o);
                            if (!t) return t;
                            std::vector<std::pair<int, std::string>> bySlot;
                            for (const auto& m : old)
                              if (int s = a.slot_of(m); s >= 0) bySlot.emplace_back(s, m);
                            bySlot.emplace_back(a.slot_of(p), p);
                            std::sort(bySlot.begin(), bySlot.end());
                            QStringList after;
                            for (const auto& [slot, m] : bySlot) after << QString::fromStdString(m);
                            std::lock_guard lock(mutex_);
                            members_after_ = after;
                            return t;
                          });
  return ok;
}

void ArraysController::cancel() {
  cancel_ = true;
  std::lock_guard lock(mutex_);
  if (task_) task_->cancel();
}

}  // namespace rs::gui
