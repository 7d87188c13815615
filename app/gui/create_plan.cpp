#include "create_plan.hpp"

#include <QFileInfo>

#include "fio/size_parse.hpp"
#include "levels/levels.hpp"

namespace rs::gui {

namespace {

const raid::LevelInfo* levelRow(int level) {
  return levels::builtin().find(level);
}

QString joinNames(const QStringList& paths) {
  QStringList names;
  for (const auto& p : paths) names << QFileInfo(p).fileName();
  return names.join(", ");
}

// The chunk a new chunked array gets when none is given (the level table's), as mdadm spells it.
QString defaultChunkText() {
  return QStringLiteral("%1K").arg(raid::kDefaultChunkBytes / 1024);
}

}  // namespace

QVariantList levelRows() {
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
                              {"defaultChunk", l.chunked ? defaultChunkText() : QString()},
                              {"layouts", layouts}});
  }
  return out;
}

CreatePlan::CreatePlan(QObject* parent) : QObject(parent) {
  last_print_ = fingerprint();
}

void CreatePlan::setPicker(DevicePicker* p) {
  if (picker_ == p) return;
  if (picker_) disconnect(picker_, nullptr, this, nullptr);
  picker_ = p;
  // What the picker says of a member changed (it became used, a new file's
  // size): a confirmation typed before no longer holds.
  if (p)
    connect(p, &DevicePicker::candidatesChanged, this, [this] {
      if (fingerprint() != last_print_) touched();
    });
  touched();
}

void CreatePlan::touched() {
  ++revision_;
  confirmation_.clear();
  confirmed_for_.clear();
  last_print_ = fingerprint();
  emit changed();
}

void CreatePlan::setLevel(int l) {
  if (l == level_) return;
  level_ = l;
  const raid::LevelInfo* row = levelRow(l);
  if (row && !row->has_layouts()) layout_.clear();
  if (row && !row->chunked) chunk_.clear();
  touched();
}

void CreatePlan::setMembers(const QStringList& m) {
  if (m == members_) return;
  members_ = m;
  touched();
}

void CreatePlan::setLayout(const QString& l) {
  if (l.trimmed() == layout_) return;
  layout_ = l.trimmed();
  touched();
}

void CreatePlan::setChunk(const QString& c) {
  if (c.trimmed() == chunk_) return;
  chunk_ = c.trimmed();
  touched();
}

void CreatePlan::setBitmap(const QString& b) {
  if (b == bitmap_) return;
  bitmap_ = b;
  touched();
}

void CreatePlan::toggleMember(const QString& path) {
  QStringList m = members_;
  if (m.contains(path))
    m.removeAll(path);
  else
    m << path;
  setMembers(m);
}

void CreatePlan::moveMember(const QString& path, int delta) {
  const qsizetype i = members_.indexOf(path), j = i + delta;
  if (i < 0 || j < 0 || j >= members_.size()) return;
  QStringList m = members_;
  m.move(i, j);
  setMembers(m);
}

void CreatePlan::clear() {
  members_.clear();
  layout_.clear();
  chunk_.clear();
  bitmap_ = QStringLiteral("automatic");
  touched();
}

QVariantMap CreatePlan::levelInfo() const {
  for (const auto& row : levelRows())
    if (row.toMap()["level"].toInt() == level_) return row.toMap();
  return {};
}

QString CreatePlan::fingerprint() const {
  QStringList parts = {QString::number(level_), layout_, chunk_, bitmap_,
                       picker_ ? picker_->newFileSize() : QString()};
  for (const auto& m : members_) {
    const QVariantMap c = picker_ ? picker_->candidate(m) : QVariantMap();
    parts << m << c["kind"].toString() << c["sizeText"].toString() << c["usable"].toString()
          << c["reason"].toString();
  }
  return parts.join('\x1f');
}

QStringList CreatePlan::problems() const {
  QStringList out;
  const raid::LevelInfo* info = levelRow(level_);
  if (!info) return {tr("RAID level %1 is not offered by this build").arg(level_)};
  if (members_.isEmpty()) return {tr("Pick the members")};
  if (Status st = info->check_members(int(members_.size())); !st)
    out << QString::fromStdString(st.error().message);
  for (const auto& m : members_) {
    const QVariantMap c = picker_ ? picker_->candidate(m) : QVariantMap();
    if (c.isEmpty())
      out << tr("%1: not described yet").arg(m);
    else if (!c["usable"].toBool())
      out << tr("%1: %2").arg(m, c["reason"].toString());
  }
  if (!chunk_.isEmpty()) {
    const auto c = fio::parse_size(chunk_.toStdString());
    const std::string why = c.ok() ? raid::LevelInfo::chunk_problem(c->value) : c.error().message;
    if (!info->chunked)
      out << tr("%1 has no chunks").arg(QString::fromLatin1(info->name));
    else if (!why.empty())
      out << tr("Chunk %1: %2").arg(chunk_, QString::fromStdString(why));
  }
  if (!layout_.isEmpty())
    if (auto w = info->parse_layout(layout_.toStdString(), int(members_.size())); !w)
      out << QString::fromStdString(w.error().message);
  return out;
}

QStringList CreatePlan::overwrites() const {
  QStringList out;
  for (const auto& m : members_) {
    const QVariantMap c = picker_ ? picker_->candidate(m) : QVariantMap();
    if (c.isEmpty() || c["kind"].toString() != tr("new image file")) out << m;
  }
  return out;
}

QString CreatePlan::confirmationPrompt() const {
  const QStringList w = overwrites();
  if (w.isEmpty()) return {};
  return tr("Creating writes the array's superblocks and data over %1, destroying what %2. Type %3 to "
            "confirm.")
      .arg(w.join(", "), w.size() == 1 ? tr("it holds") : tr("they hold"), QString::fromLatin1(kConfirmWord));
}

void CreatePlan::setConfirmation(const QString& text) {
  if (text == confirmation_ && confirmed_for_ == fingerprint()) return;
  confirmation_ = text;
  confirmed_for_ = fingerprint();
  emit changed();
}

bool CreatePlan::confirmed() const {
  if (overwrites().isEmpty()) return true;
  return confirmation_.trimmed() == QLatin1String(kConfirmWord) && confirmed_for_ == fingerprint();
}

QString CreatePlan::summary() const {
  const raid::LevelInfo* info = levelRow(level_);
  if (!info || members_.isEmpty()) return {};
  QString s = tr("%1 of %2 members: %3")
                  .arg(QString::fromLatin1(info->name))
                  .arg(members_.size())
                  .arg(joinNames(members_));
  if (info->has_layouts())
    s += tr("; layout %1")
             .arg(layout_.isEmpty() ? QString::fromStdString(info->layout_name(info->default_layout))
                                    : layout_);
  if (info->chunked) s += tr("; chunk %1").arg(chunk_.isEmpty() ? defaultChunkText() : chunk_);
  s += tr("; bitmap %1").arg(bitmap_ == "automatic" ? tr("automatic (internal above 100 GiB)") : bitmap_);
  const QStringList w = overwrites();
  const qsizetype fresh = members_.size() - w.size();
  if (fresh > 0 && picker_) s += tr("; %1 new image file(s) of %2").arg(fresh).arg(picker_->newFileSize());
  s += w.isEmpty() ? tr(". Nothing existing is overwritten.") : tr(". Overwrites: %1.").arg(w.join(", "));
  return s;
}

raid::CreateOptions CreatePlan::options() const {
  raid::CreateOptions o;
  o.level = level_;
  o.raid_disks = int(members_.size());
  o.name = "raidscope";
  if (const raid::LevelInfo* info = levelRow(level_)) {
    if (!layout_.isEmpty())
      if (auto w = info->parse_layout(layout_.toStdString(), o.raid_disks)) o.layout = *w;
    if (!chunk_.isEmpty() && info->chunked)
      if (auto c = fio::parse_size(chunk_.toStdString()); c.ok()) o.chunk_bytes = uint32_t(c->value);
  }
  o.bitmap = bitmap_ == "internal" ? raid::BitmapMode::internal
             : bitmap_ == "none"   ? raid::BitmapMode::none
                                   : raid::BitmapMode::automatic;
  if (picker_ && overwrites().size() < members_.size())
    if (auto sz = fio::parse_size(picker_->newFileSize().toStdString()); sz.ok())
      o.create_files_bytes = sz->value;
  return o;
}

std::vector<std::string> CreatePlan::paths() const {
  std::vector<std::string> out;
  for (const auto& m : members_) out.push_back(m.toStdString());
  return out;
}

}  // namespace rs::gui
