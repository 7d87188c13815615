// The Arrays page's list: every array the app knows of, one row each, the
// open one first. Known: opened or created here before (remembered across
// restarts, array_memory.hpp). Found: block devices (loop devices over
// image files included) whose md superblock names an array, grouped by the
// array's UUID. The open array's row says so; the page shows its live state
// from the session. Discovery reads the devices on a worker thread.
#pragma once
#include <QtQml/qqmlregistration.h>

#include <QObject>
#include <QPointer>
#include <QVariantList>
#include <thread>

#include "live_session.hpp"

namespace rs::gui {

class ArrayList : public QObject {
  Q_OBJECT
  QML_ELEMENT
  Q_PROPERTY(rs::gui::LiveSession* session READ session WRITE setSession NOTIFY arraysChanged)
  // [{key, name, level, state, members (paths), names (short, distinct),
  //   open (the session's), known (remembered), found (by discovery)}]
  Q_PROPERTY(QVariantList arrays READ arrays NOTIFY arraysChanged)
  Q_PROPERTY(bool scanning READ scanning NOTIFY arraysChanged)

 public:
  explicit ArrayList(QObject* parent = nullptr);
  ~ArrayList() override;

  LiveSession* session() const { return session_; }
  void setSession(LiveSession* s);
  QVariantList arrays() const;
  bool scanning() const { return scanning_; }

  Q_INVOKABLE void refresh();
  // Drops a remembered array from the list (nothing on disk changes).
  Q_INVOKABLE void forget(const QString& key);

 signals:
  void arraysChanged();

 private:
  void joinWorker();
  QPointer<LiveSession> session_;
  QVariantList found_;  // discovery's rows, from the last scan
  bool scanning_ = false;
  std::thread worker_;
};

}  // namespace rs::gui
