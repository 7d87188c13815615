// Qt Quick Test runner for the QML components (tests/gui/qml/tst_*.qml):
// the RaidScope module is linked in statically and found under qrc. A
// QApplication, not the QGuiApplication quick_test_main makes by itself:
// Qt Charts' ChartView (in ChartCard) draws with Qt's graphics scene.
#include <QtQml/qqmlextensionplugin.h>

#include <QApplication>
#include <QQmlEngine>
#include <QtQuickTest>

Q_IMPORT_QML_PLUGIN(RaidScopePlugin)

class Setup : public QObject {
  Q_OBJECT
 public slots:
  void qmlEngineAvailable(QQmlEngine* engine) { engine->addImportPath("qrc:/qt/qml"); }
};

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  Setup setup;
  return quick_test_main_with_setup(argc, argv, "raidscope_qml", QUICK_TEST_SOURCE_DIR, &setup);
}
#include "qml_test_main.moc"
