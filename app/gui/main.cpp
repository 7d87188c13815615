// raidscope: the desktop app. Parses the command line, sets up Fusion on
// the system palette, loads the RaidScope QML module's Main.qml and, for
// --screenshot, saves the window after --after seconds and exits.
#include <QtQml/qqmlextensionplugin.h>

#include <QApplication>
#include <QCursor>
#include <QIcon>
#include <QPalette>
#include <QQmlApplicationEngine>
#include <QQmlContext>
#include <QQuickStyle>
#include <QQuickWindow>
#include <QScreen>
#include <QTimer>
#include <cstdio>

#include "app_options.hpp"
#include "palette.hpp"
#include "renderer_setup.hpp"

Q_IMPORT_QML_PLUGIN(RaidScopePlugin)

int main(int argc, char** argv) {
  // The command line first: bad usage and --help need no display.
  QStringList args;
  for (int i = 1; i < argc; ++i) args << QString::fromLocal8Bit(argv[i]);
  rs::gui::AppOptions opt;
  QString error;
  if (!rs::gui::parseAppOptions(args, opt, &error)) {
    std::fprintf(stderr, "raidscope: %s\n%s", qPrintable(error), qPrintable(rs::gui::appUsage()));
    return 2;
  }
  if (opt.help) {
    std::fputs(qPrintable(rs::gui::appUsage()), stdout);
    return 0;
  }
  // A QApplication (not QGuiApplication): the palette and fonts of a
  // widgets desktop, which Fusion follows.
  QApplication app(argc, argv);
  QApplication::setApplicationName("RaidScope");
  QApplication::setOrganizationName("RaidScope");
  QApplication::setApplicationDisplayName("RaidScope");
  // The desktop's colours unless the user picked a scheme (in the window, or
  // --color-scheme for this start).
  rs::gui::ColorScheme::applyAtStart(opt.color_scheme);
  QQuickStyle::setStyle("Fusion");
  rs::gui::chooseRenderer();

  QQmlApplicationEngine engine;
  engine.addImportPath("qrc:/qt/qml");
  engine.setInitialProperties({{"startPage", opt.page},
                               {"startDemo", opt.demo},
                               {"startMembers", opt.members},
                               {"refreshHz", opt.refresh_hz},
                               {"profileScale", opt.profile_scale},
                               {"startWorkload", opt.start},
                               {"width", opt.size.width()},
                               {"height", opt.size.height()}});
  engine.load(QUrl("qrc:/qt/qml/RaidScope/Main.qml"));
  if (engine.rootObjects().isEmpty()) return 1;
  auto* window = qobject_cast<QQuickWindow*>(engine.rootObjects().first());
  if (!opt.screenshot.isEmpty() && window) {
    // The pointer out of the way: a tooltip under it would be in the picture.
    QCursor::setPos(window->screen()->geometry().bottomRight());
    QTimer::singleShot(int(opt.after_s * 1000), window, [window, &opt] {
      const bool ok = window->grabWindow().save(opt.screenshot);
      if (!ok) std::fprintf(stderr, "raidscope: cannot write %s\n", qPrintable(opt.screenshot));
      QMetaObject::invokeMethod(window, "shutdown");
      QApplication::exit(ok ? 0 : 1);
    });
  }
  return app.exec();
}
