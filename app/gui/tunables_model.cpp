#include "tunables_model.hpp"

#include <QVariantMap>

#include "workload/job_checks.hpp"

namespace rs::gui {

namespace {

// "rd1/write_mostly" -> member 1, "write_mostly"; "x" -> -1, "x".
std::pair<int, QString> splitMember(const QString& name) {
  if (name.startsWith("rd")) {
    const int slash = name.indexOf('/');
    bool ok = false;
    const int m = slash > 2 ? name.mid(2, slash - 2).toInt(&ok) : -1;
    if (ok && m >= 0) return {m, name.mid(slash + 1)};
  }
  return {-1, name};
}

QStringList toList(const std::vector<std::string>& v) {
  QStringList out;
  for (const auto& s : v) out << QString::fromStdString(s);
  return out;
}

}  // namespace

QHash<int, QByteArray> TunablesModel::roleNames() const {
  return {{NameRole, "name"},          {TypeRole, "type"},           {MinRole, "minimum"},
          {MaxRole, "maximum"},        {ChoicesRole, "choices"},     {UnitRole, "unit"},
          {HelpRole, "help"},          {PerMemberRole, "perMember"}, {ValuesRole, "values"},
          {RangeTextRole, "rangeText"}};
}

QVariant TunablesModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= int(rows_.size())) return {};
  const auto& r = rows_[size_t(index.row())];
  switch (role) {
    case NameRole:
      return QString::fromStdString(r.spec.name);
    case TypeRole:
      return QString::fromLatin1(telemetry::tunable_type_name(r.spec.type));
    case MinRole:
      return double(r.spec.min);
    case MaxRole:
      return double(r.spec.max);
    case ChoicesRole:
      return toList(r.spec.choices);
    case UnitRole:
      return QString::fromStdString(r.spec.unit.empty() && r.spec.type == telemetry::TunableType::bytes
                                        ? std::string("bytes")
                                        : r.spec.unit);
    case HelpRole:
      return QString::fromStdString(r.spec.help);
    case PerMemberRole:
      return r.spec.per_member;
    case ValuesRole:
      return toList(r.values);
    case RangeTextRole:
      // Sizes as people write them ("0..64MiB"), not 67108864.
      if (r.spec.type == telemetry::TunableType::bytes && r.spec.max > r.spec.min) {
        auto size = [](double v) { return v == 0 ? std::string("0") : workload::format_size(uint64_t(v)); };
        return QString::fromStdString(size(double(r.spec.min)) + ".." + size(double(r.spec.max)));
      }
      return QString::fromStdString(r.range_text);
  }
  return {};
}

void TunablesModel::refresh(std::vector<telemetry::TunableInfo> infos) {
  bool sameNames = infos.size() == rows_.size();
  for (size_t i = 0; sameNames && i < infos.size(); ++i)
    sameNames = infos[i].spec.name == rows_[i].spec.name && infos[i].values.size() == rows_[i].values.size();
  if (!sameNames) {
    beginResetModel();
    rows_ = std::move(infos);
    endResetModel();
    emit countChanged();
    ++revision_;
    emit revisionChanged();
    return;
  }
  bool changed = false;
  for (size_t i = 0; i < infos.size(); ++i) {
    if (infos[i].values == rows_[i].values) continue;
    rows_[i].values = std::move(infos[i].values);
    emit dataChanged(index(int(i)), index(int(i)), {ValuesRole});
    changed = true;
  }
  if (changed) {
    ++revision_;
    emit revisionChanged();
  }
}

const telemetry::TunableInfo* TunablesModel::find(const QString& name) const {
  const QString base = splitMember(name).second;
  for (const auto& r : rows_)
    if (QString::fromStdString(r.spec.name) == base) return &r;
  return nullptr;
}

QString TunablesModel::check(const QString& name, const QString& value) const {
  const auto [member, base] = splitMember(name);
  const auto* info = find(name);
  if (!info) return name + ": no such tunable";
  if (info->spec.per_member && (member < 0 || member >= int(info->values.size())))
    return name + ": give the member as rdN/" + base + " (rd0.." +
           QString::number(int(info->values.size()) - 1) + ")";
  if (!info->spec.per_member && member >= 0) return name + ": " + base + " is not a per-member setting";
  auto parsed =
      telemetry::TunableRegistry::parse(info->spec, value.trimmed().toStdString(), name.toStdString());
  return parsed ? QString() : QString::fromStdString(parsed.error().message);
}

QString TunablesModel::value(const QString& name) const {
  const auto [member, base] = splitMember(name);
  const auto* info = find(name);
  if (!info || info->values.empty()) return {};
  const size_t i = member < 0 ? 0 : size_t(member);
  return i < info->values.size() ? QString::fromStdString(info->values[i]) : QString();
}

QVariantList TunablesModel::addresses() const {
  QVariantList out;
  for (const auto& r : rows_) {
    const QString name = QString::fromStdString(r.spec.name);
    const int n = r.spec.per_member ? int(r.values.size()) : 1;
    for (int m = 0; m < n; ++m)
      out.push_back(
          QVariantMap{{"address", r.spec.per_member ? "rd" + QString::number(m) + "/" + name : name},
                      {"type", QString::fromLatin1(telemetry::tunable_type_name(r.spec.type))},
                      {"choices", toList(r.spec.choices)}});
  }
  return out;
}

}  // namespace rs::gui
