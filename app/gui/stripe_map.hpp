// The Arrays page's stripe-layout card for parity levels: for the first
// stripes of the open array, what each member holds (data chunk k, P, Q),
// asked of the level table (LevelInfo::stripe_roles, the engine's layout
// maps): no layout rule is written here.
#pragma once
#include <QtQml/qqmlregistration.h>

#include <QObject>
#include <QPointer>
#include <QStringList>
#include <QVariantList>
#include <vector>

#include "live_session.hpp"

namespace rs::gui {

class StripeMap : public QObject {
  Q_OBJECT
  QML_ELEMENT
  Q_PROPERTY(rs::gui::LiveSession* session READ session WRITE setSession NOTIFY changed)
  Q_PROPERTY(int stripes READ stripes WRITE setStripes NOTIFY changed)  // how many rows
  Q_PROPERTY(int status READ status NOTIFY changed)
  Q_PROPERTY(QString errorString READ errorString NOTIFY changed)
  // The open array has parity stripes (RAID5, RAID6): the card shows.
  Q_PROPERTY(bool available READ available NOTIFY changed)
  Q_PROPERTY(QStringList members READ members NOTIFY changed)  // short names, by slot
  // One row per stripe, one cell per member: "D<k>" (array chunk k), "P", "Q".
  Q_PROPERTY(QVariantList rows READ rows NOTIFY changed)
  // "raid6, left-symmetric, 512 KiB chunks"
  Q_PROPERTY(QString caption READ caption NOTIFY changed)

 public:
  enum Status { Empty, Ready };
  Q_ENUM(Status)

  explicit StripeMap(QObject* parent = nullptr);

  LiveSession* session() const { return session_; }
  void setSession(LiveSession* s);
  int stripes() const { return stripes_; }
  void setStripes(int n);
  int status() const { return rows_.isEmpty() ? Empty : Ready; }
  QString errorString() const { return {}; }
  bool available() const { return !rows_.isEmpty(); }
  QStringList members() const { return members_; }
  QVariantList rows() const { return rows_; }
  QString caption() const { return caption_; }

  // The rows for a shape, from the level table: empty when the level has no
  // parity stripes (or the layout is not one of its own).
  static QVariantList rowsFor(int level, uint32_t layout, int raidDisks, int stripes);

 signals:
  void changed();

 private:
  void refresh();

  QPointer<LiveSession> session_;
  std::vector<QMetaObject::Connection> conns_;
  int stripes_ = 6;
  QStringList members_;
  QVariantList rows_;
  QString caption_;
};

}  // namespace rs::gui
