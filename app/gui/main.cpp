// raidscope: the desktop GUI. For now a single window describing the array
// given on the command line (the QML pages come with the GUI milestone).
#include <QApplication>
#include <QLabel>
#include <QPixmap>
#include <QString>
#include <QStringList>
#include <QTimer>

#include "levels/levels.hpp"
#include "raid/array.hpp"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName("RaidScope");
  std::vector<std::string> members;
  QString screenshot;  // --screenshot=PATH: save the window once shown, then quit (tests)
  for (const QString& a : app.arguments().mid(1)) {
    if (a.startsWith("--screenshot="))
      screenshot = a.mid(13);
    else if (!a.startsWith("--"))
      members.push_back(a.toStdString());
  }

  QString text = "<h2>RaidScope</h2>";
  if (members.empty()) {
    text += "<p>No array given. Start it as <tt>raidscope MEMBER...</tt></p>";
  } else {
    rs::raid::AssembleOptions o;
    o.read_only = true;
    auto made = rs::raid::Array::assemble(rs::levels::builtin(), members, o);
    if (!made) {
      text += "<p><b>Cannot assemble:</b> " + QString::fromStdString(made.error().message).toHtmlEscaped() + "</p>";
    } else {
      auto& array = *made;
      const auto& g = array->shape();
      text += QString("<p>raid%1, %2 members, %3 MiB, state: %4</p><ul>")
                  .arg(g.level)
                  .arg(g.raid_disks)
                  .arg(array->size_bytes() >> 20)
                  .arg(QString::fromStdString(array->state_text()).toHtmlEscaped());
      const auto table = array->table();
      for (int i = 0; i < g.raid_disks; ++i)
        text += QString("<li>%1: %2 (%3)</li>")
                    .arg(i)
                    .arg(QString::fromStdString((*table)[i].name).toHtmlEscaped())
                    .arg(rs::raid::member_state_name((*table)[i].state));
      text += "</ul>";
    }
  }
  QLabel label(text);
  label.setMargin(24);
  label.setMinimumSize(520, 260);
  label.setWindowTitle("RaidScope");
  label.show();
  if (!screenshot.isEmpty())
    QTimer::singleShot(500, [&] { QApplication::exit(label.grab().save(screenshot) ? 0 : 1); });
  return app.exec();
}
