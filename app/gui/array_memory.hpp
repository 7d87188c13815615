// What the app remembers of the arrays it opened, across restarts: their
// members and their state when last seen (the Arrays page lists them with
// the arrays discovery finds), and the tunables the user set on each,
// applied again when the array is opened again. Kept in the settings file
// (app_settings.hpp), keyed by the array's UUID from its superblocks.
#pragma once
#include <QDateTime>
#include <QString>
#include <QStringList>
#include <string>
#include <utility>
#include <vector>

namespace rs::gui::memory {

using Tunables = std::vector<std::pair<std::string, std::string>>;

struct KnownArray {
  QString key;    // the array's UUID
  QString name;   // its name in the superblocks ("host:name"), "" when none
  QString state;  // "raid5 of 4 members, 381 MiB, clean" when last seen
  QStringList members;
  QDateTime seen;
};

// The UUID the first readable member's md superblock records; "" when
// none has one. Reads the members (not on the GUI thread).
QString arrayKey(const std::vector<std::string>& members);
// The array's name in its superblocks ("host:name"), "" when none.
QString arrayName(const std::vector<std::string>& members);

void rememberArray(const KnownArray& array);
std::vector<KnownArray> knownArrays();  // most recently seen first
void forgetArray(const QString& key);

Tunables tunables(const QString& key);
void saveTunables(const QString& key, const Tunables& values);

}  // namespace rs::gui::memory
