// The live chart card (qml/ChartCard.qml with its ChartFeed) in a real
// window: resized and fed while it scrolls, as the dashboard does under
// load. QML must report no binding loop, and a resize must not throw the
// time axis back to [0, window] while the chart has scrolled past it.
//
// The loop it guards against: the plot size was notified with the same
// signal as the window, so a new plot width re-evaluated the time axis'
// `max: window` binding, which laid the chart out again and changed the
// plot width inside its own binding ("Binding loop detected for property
// plotWidth" / "... max" in the journey under load).
#include <QtQml/qqmlextensionplugin.h>

#include <QApplication>
#include <QQmlComponent>
#include <QQmlEngine>
#include <QQuickItem>
#include <QQuickWindow>
#include <QValueAxis>
#include <QtTest>

#include "chart_feed.hpp"
#include "telemetry/sample.hpp"
#include "telemetry_model.hpp"

Q_IMPORT_QML_PLUGIN(RaidScopePlugin)

using namespace rs::gui;

namespace {

QStringList g_loops;  // every "Binding loop" message QML printed
QtMessageHandler g_previous = nullptr;

void recordLoops(QtMsgType type, const QMessageLogContext& ctx, const QString& msg) {
  if (msg.contains("Binding loop")) g_loops << msg;
  if (g_previous) g_previous(type, ctx, msg);
}

// One 50 ms sample at time `i` * 50 ms with a read bandwidth of `mbs` MB/s
// and the two members' reads in it.
void addSample(TelemetryModel& model, int i, double mbs, uint64_t readsA = 0, uint64_t readsB = 0) {
  rs::telemetry::Sample s;
  s.members.resize(2);
  s.members[0].name = "a.img";
  s.members[1].name = "b.img";
  s.members[0].reads = readsA;
  s.members[1].reads = readsB;
  s.interval_ns = 50'000'000;
  s.t_ns = uint64_t(i) * 50'000'000;
  s.array.read_bw_bytes = mbs * 1e6;
  model.addSample(s);
}

// The QML `source` made and shown in a window; null (and `error` says
// why) when it did not load or was not exposed.
std::unique_ptr<QObject> showWindow(QQmlEngine& engine, const char* source, const char* url, QString& error) {
  engine.addImportPath("qrc:/qt/qml");
  QQmlComponent component(&engine);
  component.setData(source, QUrl(url));
  std::unique_ptr<QObject> root(component.create());
  auto* window = qobject_cast<QQuickWindow*>(root.get());
  if (!window) {
    error = component.errorString();
    return nullptr;
  }
  if (!QTest::qWaitForWindowExposed(window)) {
    error = "the window was not exposed";
    return nullptr;
  }
  return root;
}

// Records while it lives; the previous handler is back however the test ends.
struct LoopRecorder {
  LoopRecorder() { g_previous = qInstallMessageHandler(recordLoops); }
  ~LoopRecorder() { qInstallMessageHandler(g_previous); }
};

}  // namespace

class ChartCardTest : public QObject {
  Q_OBJECT
 private slots:
  void resizedWhileScrollingWithoutBindingLoops();
  void emptyPlotSaysWhy();
};

void ChartCardTest::resizedWhileScrollingWithoutBindingLoops() {
  const LoopRecorder recorder;
  QQmlEngine engine;
  QString error;
  const auto root = showWindow(engine,
                               "import QtQuick\nimport RaidScope\n"
                               "Window { width: 520; height: 300; visible: true\n"
                               "  ChartCard { objectName: 'card'; anchors.fill: parent; metric: 'bandwidth'; "
                               "unit: 'MB/s'; window: 60 } }",
                               "qrc:/chart_card_test.qml", error);
  QVERIFY2(root, qPrintable(error));
  auto* window = qobject_cast<QQuickWindow*>(root.get());
  auto* card = window->findChild<QQuickItem*>("card");
  QVERIFY(card);
  auto* feed = card->property("feed").value<ChartFeed*>();
  QVERIFY(feed);
  auto* axisX = qobject_cast<QValueAxis*>(feed->axisX());
  QVERIFY(axisX);

  TelemetryModel model;
  card->setProperty("model", QVariant::fromValue(&model));
  // 90 s of samples: past the 60 s window, so the chart has scrolled to
  // [30, 90]. Figures that grow by decades widen the value axis' labels,
  // which narrows the plot while it is fed.
  int i = 1;
  for (; i <= 1800; ++i) addSample(model, i, i < 600 ? 5 : i < 1200 ? 500 : 50000);
  QTRY_COMPARE(axisX->max(), 90.0);
  QCOMPARE(axisX->min(), 30.0);

  // Every range the time axis is given from here on: none may go back
  // (towards [0, 60]) while the run is past its first 90 s.
  QStringList backToStart;
  QObject::connect(axisX, &QValueAxis::rangeChanged, [&](qreal lo, qreal hi) {
    if (lo < 30 || hi < 90) backToStart << QString("[%1, %2]").arg(lo).arg(hi);
  });
  // The window resized step by step while samples keep coming, as a user
  // dragging its edge during a run.
  for (int w = 520; w >= 300; w -= 20) {
    window->setWidth(w);
    addSample(model, i++, 50000 + w);
    QTest::qWait(20);
  }
  for (int w = 300; w <= 700; w += 40) {
    window->setWidth(w);
    window->setHeight(200 + w / 4);
    addSample(model, i++, w % 80 ? 9 : 900000);
    QTest::qWait(20);
  }
  QTest::qWait(100);

  QVERIFY2(g_loops.isEmpty(), qPrintable(g_loops.join('\n')));
  QVERIFY2(backToStart.isEmpty(), qPrintable("the time axis went back to " + backToStart.join(", ")));
  // Still scrolled: the last sample is at i-1, and the axis ends there.
  const double newest = (i - 1) * 0.05;
  QCOMPARE(axisX->max(), newest);
  QCOMPARE(axisX->min(), newest - 60);
  // The feed was told the plot's final size (the marks and columns use it).
  auto* view = card->findChild<QQuickItem*>("chartView");
  QVERIFY(view);
  const QRectF plot = view->property("plotArea").toRectF();
  QCOMPARE(feed->plotWidth(), plot.width());
  QCOMPARE(feed->plotHeight(), plot.height());
}

// An open array with no workload sends samples of nothing: bandwidth is a
// zero line, but a read share has no value without reads. That card must
// say so, not "Waiting for data…" as if samples had not come.
void ChartCardTest::emptyPlotSaysWhy() {
  QQmlEngine engine;
  QString error;
  const auto root =
      showWindow(engine,
                 "import QtQuick\nimport QtQuick.Layouts\nimport RaidScope\n"
                 "Window { width: 700; height: 300; visible: true\n"
                 "  RowLayout { anchors.fill: parent\n"
                 "    ChartCard { objectName: 'share'; Layout.fillWidth: true; Layout.fillHeight: true;"
                 "      metric: 'share'; unit: '%'; fixedMax: 100; emptyText: 'No reads in this window' }\n"
                 "    ChartCard { objectName: 'bandwidth'; Layout.fillWidth: true; Layout.fillHeight: true;"
                 "      metric: 'bandwidth'; unit: 'MB/s' } } }",
                 "qrc:/chart_card_empty_test.qml", error);
  QVERIFY2(root, qPrintable(error));
  auto* window = qobject_cast<QQuickWindow*>(root.get());
  auto* share = window->findChild<QQuickItem*>("share");
  auto* bandwidth = window->findChild<QQuickItem*>("bandwidth");
  QVERIFY(share && bandwidth);
  auto* shareLabel = share->findChild<QQuickItem*>("emptyLabel");
  auto* bandwidthLabel = bandwidth->findChild<QQuickItem*>("emptyLabel");
  QVERIFY(shareLabel && bandwidthLabel);

  TelemetryModel model;
  share->setProperty("model", QVariant::fromValue(&model));
  bandwidth->setProperty("model", QVariant::fromValue(&model));
  // No sample yet: both wait.
  QCOMPARE(shareLabel->property("text").toString(), QString("Waiting for data…"));
  QVERIFY(shareLabel->isVisible());
  QVERIFY(bandwidthLabel->isVisible());

  // Two seconds of an idle array: no reads, no writes.
  for (int i = 1; i <= 40; ++i) addSample(model, i, 0);
  QTRY_VERIFY(!bandwidthLabel->isVisible());  // a zero line is data
  QVERIFY(shareLabel->isVisible());
  QCOMPARE(shareLabel->property("text").toString(), QString("No reads in this window"));

  // Reads arrive: the share has values and the label goes.
  for (int i = 41; i <= 60; ++i) addSample(model, i, 1, 10, 30);
  QTRY_VERIFY(!shareLabel->isVisible());
}

int main(int argc, char** argv) {
  QApplication app(argc, argv);  // Qt Charts' ChartView draws through the graphics scene
  ChartCardTest test;
  return QTest::qExec(&test, argc, argv);
}
#include "test_chart_card.moc"
