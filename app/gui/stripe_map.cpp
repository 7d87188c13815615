#include "stripe_map.hpp"

#include <algorithm>

#include "layout/stripe_roles.hpp"
#include "levels/levels.hpp"
#include "member_names.hpp"

namespace rs::gui {

StripeMap::StripeMap(QObject* parent) : QObject(parent) {}

void StripeMap::setSession(LiveSession* s) {
  if (session_ == s) return;
  for (auto& c : conns_) disconnect(c);
  conns_.clear();
  session_ = s;
  // The header's change is the array's (another array, a member replaced);
  // the status's, an open or a close finished.
  if (s) {
    conns_.push_back(connect(s, &LiveSession::membersChanged, this, &StripeMap::refresh));
    conns_.push_back(connect(s, &LiveSession::statusChanged, this, &StripeMap::refresh));
  }
  refresh();
}

void StripeMap::setStripes(int n) {
  n = std::clamp(n, 1, 64);
  if (n == stripes_) return;
  stripes_ = n;
  refresh();
}

QVariantList StripeMap::rowsFor(int level, uint32_t layout, int raidDisks, int stripes) {
  const raid::LevelInfo* info = levels::builtin().find(level);
  if (!info || !info->stripe_roles) return {};
  QVariantList rows;
  for (int stripe = 0; stripe < stripes; ++stripe) {
    const std::vector<int64_t> roles = info->stripe_roles(layout, raidDisks, uint64_t(stripe));
    if (roles.empty()) return {};
    QStringList cells;
    for (int64_t r : roles)
      cells << (r == layout::kStripeP   ? QStringLiteral("P")
                : r == layout::kStripeQ ? QStringLiteral("Q")
                                        : QStringLiteral("D%1").arg(r));
    rows.push_back(cells);
  }
  return rows;
}

void StripeMap::refresh() {
  QVariantList rows;
  QStringList members;
  QString caption;
  if (auto array = session_ ? session_->arraySession() : nullptr) {
    const session::SessionStatus st = array->status();
    const raid::LevelInfo* info = nullptr;
    for (const auto& l : levels::builtin().levels)
      if (st.level == l.name) info = &l;
    if (info) {
      rows = rowsFor(info->level, st.layout, st.raid_disks, stripes_);
      QStringList paths;
      for (const auto& m : st.members) paths << QString::fromStdString(m.path);
      members = distinctNames(paths);
      caption =
          tr("%1, %2, %3 KiB chunks")
              .arg(QString::fromLatin1(info->name), QString::fromStdString(info->layout_name(st.layout)))
              .arg(st.chunk_sectors / 2);
    }
  }
  if (rows == rows_ && members == members_ && caption == caption_) return;
  rows_ = rows;
  members_ = members;
  caption_ = caption;
  emit changed();
}

}  // namespace rs::gui
