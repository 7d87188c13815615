// Members as the window names them: short (the file or device name, not
// the folder it is in) and distinct (two members are never shown under one
// name: where file names repeat, as much of the folder as tells them
// apart). "/tmp/a/m0.img", "/tmp/a/m1.img" -> "m0.img", "m1.img";
// "/x/a/disk.img", "/x/b/disk.img" -> "a/disk.img", "b/disk.img".
#pragma once
#include <QString>
#include <QStringList>
#include <string>
#include <vector>

namespace rs::gui {

QStringList distinctNames(const QStringList& paths);
std::vector<std::string> distinctNames(const std::vector<std::string>& paths);
// Each occurrence of a member path in `text` replaced by its short name
// (an event's "member /tmp/x/y/m1.img faulty" -> "member m1.img faulty").
QString withShortNames(QString text, const QStringList& paths, const QStringList& names);

}  // namespace rs::gui
