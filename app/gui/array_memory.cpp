#include "array_memory.hpp"

#include <algorithm>

#include "app_settings.hpp"
#include "discovery/md_member.hpp"
#include "io/member_device.hpp"

namespace rs::gui::memory {

namespace {

std::optional<discovery::MdMembership> firstMembership(const std::vector<std::string>& members) {
  for (const auto& path : members) {
    if (path.empty()) continue;
    // A second, lock-free open for reading (a session may hold the member).
    auto dev = io::MemberDevice::open(path, io::OpenMode::ReadOnly);
    if (!dev) continue;
    auto m = discovery::read_md_membership(path, (*dev)->size_bytes());
    if (m && *m && !(*m)->damaged && !(*m)->array_uuid.empty()) return *m;
  }
  return std::nullopt;
}

}  // namespace

QString arrayKey(const std::vector<std::string>& members) {
  auto m = firstMembership(members);
  return m ? QString::fromStdString(m->array_uuid) : QString();
}

QString arrayName(const std::vector<std::string>& members) {
  auto m = firstMembership(members);
  return m ? QString::fromStdString(m->array_name) : QString();
}

void rememberArray(const KnownArray& a) {
  if (a.key.isEmpty()) return;
  auto s = appSettings();
  s->beginGroup("arrays/" + a.key);
  s->setValue("name", a.name);
  s->setValue("state", a.state);
  s->setValue("members", a.members);
  s->setValue("seen", a.seen.isValid() ? a.seen : QDateTime::currentDateTimeUtc());
  s->endGroup();
}

std::vector<KnownArray> knownArrays() {
  auto s = appSettings();
  s->beginGroup("arrays");
  std::vector<KnownArray> out;
  for (const QString& key : s->childGroups()) {
    s->beginGroup(key);
    KnownArray a{key, s->value("name").toString(), s->value("state").toString(),
                 s->value("members").toStringList(), s->value("seen").toDateTime()};
    s->endGroup();
    if (!a.members.isEmpty()) out.push_back(a);
  }
  std::sort(out.begin(), out.end(), [](const KnownArray& a, const KnownArray& b) { return a.seen > b.seen; });
  return out;
}

void forgetArray(const QString& key) {
  if (!key.isEmpty()) appSettings()->remove("arrays/" + key);
}

Tunables tunables(const QString& key) {
  Tunables out;
  if (key.isEmpty()) return out;
  const QStringList list = appSettings()->value("arrays/" + key + "/tunables").toStringList();
  for (const QString& kv : list) {
    const qsizetype eq = kv.indexOf('=');
    if (eq > 0) out.emplace_back(kv.left(eq).toStdString(), kv.mid(eq + 1).toStdString());
  }
  return out;
}

void saveTunables(const QString& key, const Tunables& values) {
  if (key.isEmpty()) return;
  QStringList list;
  for (const auto& [name, value] : values) list << QString::fromStdString(name + "=" + value);
  appSettings()->setValue("arrays/" + key + "/tunables", list);
}

}  // namespace rs::gui::memory
