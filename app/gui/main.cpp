// raidscope: the desktop app. Parses the command line, sets up Fusion on
// the system palette, loads the RaidScope QML module's Main.qml and, for
// --screenshot, saves the window after --after seconds and exits.
#include <QApplication>
#include <QIcon>
#include <QPalette>
#include <QQmlApplicationEngine>
#include <QQmlContext>
#include <QQuickStyle>
#include <QQuickWindow>
#include <QTimer>
#include <QtQml/qqmlextensionplugin.h>
#include <cstdio>

#include "app_options.hpp"
#include "palette.hpp"

Q_IMPORT_QML_PLUGIN(RaidScopePlugin)

int main(int argc, char** argv) {
  // Qt Charts-free, but QApplication all the same: the Fusion palette and
  // fonts of a widgets desktop.
  QApplication app(argc, argv);
  QApplication::setApplicationName("RaidScope");
  QApplication::setOrganizationName("RaidScope");
  QApplication::setApplicationDisplayName("RaidScope");
  rs::gui::AppOptions opt;
  QString error;
  if (!rs::gui::parseAppOptions(app.arguments().mid(1), opt, &error)) {
    std::fprintf(stderr, "raidscope: %s\n%s", qPrintable(error), qPrintable(rs::gui::appUsage()));
    return 2;
  }
  if (opt.help) {
    std::fputs(qPrintable(rs::gui::appUsage()), stdout);
    return 0;
  }
  if (!opt.color_scheme.isEmpty()) QApplication::setPalette(rs::gui::schemePalette(opt.color_scheme == "dark"));
  QQuickStyle::setStyle("Fusion");

  QQmlApplicationEngine engine;
  engine.addImportPath("qrc:/qt/qml");
  engine.setInitialProperties({{"startPage", opt.page},
                               {"startDemo", opt.demo},
                               {"startMembers", opt.members},
                               {"refreshHz", opt.refresh_hz},
                               {"profileScale", opt.profile_scale},
                               {"width", opt.size.width()},
                               {"height", opt.size.height()}});
  engine.load(QUrl("qrc:/qt/qml/RaidScope/Main.qml"));
  if (engine.rootObjects().isEmpty()) return 1;
  auto* window = qobject_cast<QQuickWindow*>(engine.rootObjects().first());
  if (!opt.screenshot.isEmpty() && window) {
    QTimer::singleShot(int(opt.after_s * 1000), window, [window, &opt] {
      const bool ok = window->grabWindow().save(opt.screenshot);
      if (!ok) std::fprintf(stderr, "raidscope: cannot write %s\n", qPrintable(opt.screenshot));
      QMetaObject::invokeMethod(window, "shutdown");
      QApplication::exit(ok ? 0 : 1);
    });
  }
  return app.exec();
}
