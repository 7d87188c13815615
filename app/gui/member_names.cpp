#include "member_names.hpp"

#include <algorithm>

namespace rs::gui {

QStringList distinctNames(const QStringList& paths) {
  // Path components, last first; "" (a missing member) stays "".
  std::vector<QStringList> parts;
  for (const QString& p : paths) {
    QStringList c = p.split('/', Qt::SkipEmptyParts);
    std::reverse(c.begin(), c.end());
    parts.push_back(c);
  }
  std::vector<int> depth(size_t(paths.size()), 1);
  auto nameOf = [&](size_t i) {
    QStringList c = parts[i].mid(0, depth[i]);
    std::reverse(c.begin(), c.end());
    return c.join('/');
  };
  // Deepen every name that another shares until none is shared (or a path
  // has no more components).
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < parts.size(); ++i)
      for (size_t j = i + 1; j < parts.size(); ++j) {
        if (parts[i].isEmpty() || nameOf(i) != nameOf(j)) continue;
        for (size_t k : {i, j})
          if (depth[k] < parts[k].size()) ++depth[k], changed = true;
      }
  }
  QStringList out;
  for (size_t i = 0; i < parts.size(); ++i) out << nameOf(i);
  return out;
}

std::vector<std::string> distinctNames(const std::vector<std::string>& paths) {
  QStringList in;
  for (const auto& p : paths) in << QString::fromStdString(p);
  std::vector<std::string> out;
  for (const auto& n : distinctNames(in)) out.push_back(n.toStdString());
  return out;
}

QString withShortNames(QString text, const QStringList& paths, const QStringList& names) {
  // Longest first: "/a/m1.img" must not be replaced inside "/a/m1.img.bak".
  std::vector<qsizetype> order;
  for (qsizetype i = 0; i < paths.size(); ++i) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return paths[a].size() > paths[b].size(); });
  for (auto i : order)
    if (!paths[i].isEmpty() && i < names.size()) text.replace(paths[i], names[i]);
  return text;
}

}  // namespace rs::gui
