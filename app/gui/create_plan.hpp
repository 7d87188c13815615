// The create wizard's plan: the level, the members picked (in order), the
// layout, chunk and bitmap, and the size of new image files; what is wrong
// with it (problems), what it will write (summary), and the destructive
// write's confirmation. The confirmation names the exact existing devices
// and files that will be overwritten, and holds only for the plan it was
// typed for: any change (a member added, removed or reordered, the level,
// layout, chunk, bitmap or size, or what the picker says of a member)
// withdraws it, and Create is disabled until it is typed again.
#pragma once
#include <QtQml/qqmlregistration.h>

#include <QObject>
#include <QPointer>
#include <QStringList>
#include <QVariantMap>
#include <vector>

#include "device_picker.hpp"
#include "raid/array.hpp"

namespace rs::gui {

// The level table as QML reads it: [{level, name, min, max, chunked,
// defaultLayout, layouts}], one row per level this build offers.
QVariantList levelRows();

class CreatePlan : public QObject {
  Q_OBJECT
  QML_ELEMENT
  Q_PROPERTY(rs::gui::DevicePicker* picker READ picker WRITE setPicker NOTIFY changed)
  Q_PROPERTY(int level READ level WRITE setLevel NOTIFY changed)
  Q_PROPERTY(QStringList members READ members WRITE setMembers NOTIFY changed)
  Q_PROPERTY(QString layout READ layout WRITE setLayout NOTIFY changed)  // "": the level's default
  Q_PROPERTY(QString chunk READ chunk WRITE setChunk NOTIFY changed)     // "": the level table's default chunk
  Q_PROPERTY(QString bitmap READ bitmap WRITE setBitmap NOTIFY changed)  // "automatic", "internal", "none"
  // The level's row of the level table: {level, name, min, max, chunked,
  // defaultLayout, layouts}.
  Q_PROPERTY(QVariantMap levelInfo READ levelInfo NOTIFY changed)
  Q_PROPERTY(QStringList problems READ problems NOTIFY changed)
  Q_PROPERTY(QString summary READ summary NOTIFY changed)
  // The existing devices and files the create overwrites (what the
  // confirmation names); none: no confirmation is needed.
  Q_PROPERTY(QStringList overwrites READ overwrites NOTIFY changed)
  Q_PROPERTY(QString confirmationPrompt READ confirmationPrompt NOTIFY changed)
  Q_PROPERTY(QString confirmation READ confirmation WRITE setConfirmation NOTIFY changed)
  Q_PROPERTY(bool confirmed READ confirmed NOTIFY changed)
  Q_PROPERTY(bool ready READ ready NOTIFY changed)  // no problem and confirmed
  Q_PROPERTY(int revision READ revision NOTIFY changed)

 public:
  static constexpr const char* kConfirmWord = "WRITE";
  explicit CreatePlan(QObject* parent = nullptr);

  DevicePicker* picker() const { return picker_; }
  void setPicker(DevicePicker* p);
  int level() const { return level_; }
  void setLevel(int l);
  QStringList members() const { return members_; }
  void setMembers(const QStringList& m);
  QString layout() const { return layout_; }
  void setLayout(const QString& l);
  QString chunk() const { return chunk_; }
  void setChunk(const QString& c);
  QString bitmap() const { return bitmap_; }
  void setBitmap(const QString& b);
  QVariantMap levelInfo() const;
  QStringList problems() const;
  QString summary() const;
  QStringList overwrites() const;
  QString confirmationPrompt() const;
  QString confirmation() const { return confirmation_; }
  void setConfirmation(const QString& text);
  bool confirmed() const;
  bool ready() const { return problems().isEmpty() && confirmed(); }
  int revision() const { return revision_; }

  Q_INVOKABLE void toggleMember(const QString& path);
  Q_INVOKABLE void moveMember(const QString& path, int delta);
  Q_INVOKABLE void clear();

  // The create options and member paths of the plan (problems() empty).
  raid::CreateOptions options() const;
  std::vector<std::string> paths() const;

 signals:
  void changed();

 private:
  // What the confirmation holds for: every field and what the picker says
  // of each member.
  QString fingerprint() const;
  void touched();  // the plan changed: a new revision, the confirmation withdrawn

  QPointer<DevicePicker> picker_;
  int level_ = 1;
  QStringList members_;
  QString layout_, chunk_, bitmap_ = QStringLiteral("automatic");
  QString confirmation_, confirmed_for_;  // the text typed, and the plan it was typed for
  QString last_print_;                    // the fingerprint when last seen (a picker rescan may change it)
  int revision_ = 0;
};

}  // namespace rs::gui
