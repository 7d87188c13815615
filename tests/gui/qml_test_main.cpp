// Qt Quick Test runner for the QML components (tests/gui/qml/tst_*.qml):
// the RaidScope module is linked in statically and found under qrc.
#include <QQmlEngine>
#include <QtQml/qqmlextensionplugin.h>
#include <QtQuickTest>

Q_IMPORT_QML_PLUGIN(RaidScopePlugin)

class Setup : public QObject {
  Q_OBJECT
 public slots:
  void qmlEngineAvailable(QQmlEngine* engine) { engine->addImportPath("qrc:/qt/qml"); }
};

QUICK_TEST_MAIN_WITH_SETUP(raidscope_qml, Setup)
#include "qml_test_main.moc"
