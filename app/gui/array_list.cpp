#include "array_list.hpp"

#include <QVariantMap>
#include <map>

#include "array_memory.hpp"
#include "discovery/block_devices.hpp"
#include "member_names.hpp"

namespace rs::gui {

namespace {

// Discovery's arrays: devices carrying an md superblock, by array UUID.
QVariantList scanFound() {
  struct Found {
    QString name, level;
    QStringList members;
  };
  std::map<QString, Found> byKey;
  for (const auto& d : discovery::scan_block_devices()) {
    if (!d.md || d.md->damaged || d.md->array_uuid.empty()) continue;
    Found& f = byKey[QString::fromStdString(d.md->array_uuid)];
    f.name = QString::fromStdString(d.md->array_name);
    f.level = QString::fromStdString(d.md->level);
    f.members << QString::fromStdString(d.node);
  }
  QVariantList out;
  for (const auto& [key, f] : byKey)
    out.push_back(QVariantMap{{"key", key}, {"name", f.name}, {"level", f.level}, {"members", f.members}});
  return out;
}

QVariantMap row(const QString& key, const QString& name, const QString& level, const QString& state,
                const QStringList& members) {
  return {{"key", key},     {"name", name},       {"level", level},
          {"state", state}, {"members", members}, {"names", distinctNames(members)},
          {"open", false},  {"known", false},     {"found", false}};
}

}  // namespace

ArrayList::ArrayList(QObject* parent) : QObject(parent) {}

ArrayList::~ArrayList() {
  joinWorker();
}

void ArrayList::joinWorker() {
  if (worker_.joinable()) worker_.join();
}

void ArrayList::setSession(LiveSession* s) {
  if (session_ == s) return;
  if (session_) disconnect(session_, nullptr, this, nullptr);
  session_ = s;
  // The open array changes (opened, created, a member replaced): its row too.
  if (s) connect(s, &LiveSession::membersChanged, this, &ArrayList::arraysChanged);
  emit arraysChanged();
}

QVariantList ArrayList::arrays() const {
  QVariantList out;
  std::map<QString, qsizetype> at;  // key -> index in out
  const QString openKey = session_ ? session_->arrayKey() : QString();
  if (session_ && !session_->members().isEmpty()) {
    QVariantMap r = row(openKey, {}, {}, session_->arrayText(), session_->members());
    r["open"] = true;
    out.push_back(r);
    if (!openKey.isEmpty()) at[openKey] = 0;
  }
  for (const auto& k : memory::knownArrays()) {
    if (at.count(k.key)) {
      QVariantMap r = out[at[k.key]].toMap();
      r["known"] = true, r["name"] = k.name;
      out[at[k.key]] = r;
      continue;
    }
    QVariantMap r =
        row(k.key, k.name, k.state.section(' ', 0, 0), tr("when last seen: %1").arg(k.state), k.members);
    r["known"] = true;
    at[k.key] = out.size();
    out.push_back(r);
  }
  for (const auto& f : found_) {
    const QVariantMap m = f.toMap();
    const QString key = m["key"].toString();
    if (at.count(key)) {
      QVariantMap r = out[at[key]].toMap();
      r["found"] = true;
      out[at[key]] = r;
      continue;
    }
    QVariantMap r = row(key, m["name"].toString(), m["level"].toString(),
                        tr("not open: %1 member devices found").arg(m["members"].toStringList().size()),
                        m["members"].toStringList());
    r["found"] = true;
    at[key] = out.size();
    out.push_back(r);
  }
  return out;
}

void ArrayList::refresh() {
  if (scanning_) return;
  joinWorker();
  scanning_ = true;
  emit arraysChanged();
  worker_ = std::thread([this] {
    QVariantList found = scanFound();
    QMetaObject::invokeMethod(
        this,
        [this, found] {
          found_ = found;
          scanning_ = false;
          emit arraysChanged();
        },
        Qt::QueuedConnection);
  });
}

void ArrayList::forget(const QString& key) {
  memory::forgetArray(key);
  emit arraysChanged();
}

}  // namespace rs::gui
