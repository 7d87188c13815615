// The Tune page's rows, generated from the array's tunables registry (never
// a hand-kept list): one row per tunable with its type, range, unit, help
// and current value(s) (one per member for per-member tunables). Refreshed
// from TunableRegistry::list() snapshots; when the set of names is the same
// only the values change, so an editor the user is in is not rebuilt.
#pragma once
#include <QAbstractListModel>
#include <QStringList>
#include <QtQml/qqmlregistration.h>
#include <vector>

#include "telemetry/tunables.hpp"

namespace rs::gui {

class TunablesModel : public QAbstractListModel {
  Q_OBJECT
  QML_ELEMENT
  QML_UNCREATABLE("owned by a LiveSession")
  Q_PROPERTY(int count READ rowCount NOTIFY countChanged)
  // Bumped whenever a value changes: QML bindings that call value() name
  // it so they re-evaluate.
  Q_PROPERTY(int revision READ revision NOTIFY revisionChanged)
 public:
  enum Role {
    NameRole = Qt::UserRole + 1,
    TypeRole,       // "integer", "bytes", "boolean", "choice"
    MinRole,
    MaxRole,
    ChoicesRole,    // QStringList
    UnitRole,
    HelpRole,
    PerMemberRole,
    ValuesRole,     // QStringList: one value, or one per member
    RangeTextRole,
  };
  explicit TunablesModel(QObject* parent = nullptr) : QAbstractListModel(parent) {}

  int revision() const { return revision_; }
  int rowCount(const QModelIndex& parent = {}) const override { return parent.isValid() ? 0 : int(rows_.size()); }
  QVariant data(const QModelIndex& index, int role) const override;
  QHash<int, QByteArray> roleNames() const override;

  void refresh(std::vector<telemetry::TunableInfo> infos);
  const telemetry::TunableInfo* find(const QString& name) const;  // "rd1/x" finds x
  // Parses and range-checks `value` for `name` ("rdN/name" for a member's)
  // against the spec: "" when acceptable, else the registry's message.
  Q_INVOKABLE QString check(const QString& name, const QString& value) const;
  Q_INVOKABLE QString value(const QString& name) const;  // current value text, "" if unknown
  // Every settable address ("read_policy", "rd0/device_profile", ...) with
  // its type and choices: what a before/after run may change.
  Q_INVOKABLE QVariantList addresses() const;

 signals:
  void countChanged();
  void revisionChanged();

 private:
  std::vector<telemetry::TunableInfo> rows_;
  int revision_ = 0;
};

}  // namespace rs::gui
