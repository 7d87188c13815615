// C++ tests of the controllers on real arrays of small image files: the
// live session (runs, telemetry, tunables applied while it runs, refusals
// that change nothing), the Arrays controller (create, refusals before
// anything is written, check as a task), the Benchmark controller (job file
// errors with line numbers, a before/after that writes fio JSON results).
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "arrays_controller.hpp"
#include "benchmark_controller.hpp"
#include "io/member_device.hpp"
#include "live_session.hpp"

using namespace rs::gui;

class ControllersTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void createRefusesBadInputAndWritesNothing();
  void createOpensTheArrayAndLearnsItsTunables();
  void liveRunAppliesTunablesWhileRunning();
  void checkRunsAsATask();
  void jobFileErrorsNameTheLine();
  void beforeAfterComparesAndKeepsResults();
  void cleanupTestCase();

 private:
  QString path(const QString& name) const { return dir_.path() + "/" + name; }
  QTemporaryDir dir_;
  LiveSession* session_ = nullptr;
  ArraysController* arrays_ = nullptr;
};

void ControllersTest::initTestCase() {
  QVERIFY(dir_.isValid());
  qputenv("RAIDSCOPE_RESULTS_DIR", (dir_.path() + "/results").toLocal8Bit());
  qputenv("RAIDSCOPE_DEMO_DIR", (dir_.path() + "/demo").toLocal8Bit());
  session_ = new LiveSession(this);
  session_->setProfileScale(0.25);
  arrays_ = new ArraysController(this);
  arrays_->setSession(session_);
}

void ControllersTest::createRefusesBadInputAndWritesNothing() {
  // One member is not a RAID1.
  QVERIFY(!arrays_->create(1, {}, "512K", {path("lone.img")}, "16M", {}));
  QCOMPARE(arrays_->status(), ArraysController::Error);
  QVERIFY2(arrays_->errorString().contains("2 to"), qPrintable(arrays_->errorString()));
  QVERIFY(!QFile::exists(path("lone.img")));
  // A bad chunk and a missing size are refused before anything is written.
  QVERIFY(!arrays_->create(1, {}, "3000", {path("a.img"), path("b.img")}, "16M", {}));
  QVERIFY(arrays_->errorString().contains("power of two"));
  QVERIFY(!arrays_->create(1, {}, "512K", {path("a.img"), path("b.img")}, "", {}));
  QVERIFY(!QFile::exists(path("a.img")) && !QFile::exists(path("b.img")));
  // A member another process (here: this one) holds: the engine's checks
  // refuse it and nothing is written, not even the other, new member.
  {
    QFile held(path("held.img"));
    QVERIFY(held.open(QIODevice::WriteOnly));
    QVERIFY(held.write(QByteArray(16 << 20, 'x')) == (16 << 20));
  }
  std::string err;
  auto holder = rs::io::MemberDevice::open(path("held.img").toStdString(), rs::io::OpenMode::ReadWrite, &err);
  QVERIFY2(holder, err.c_str());
  QVERIFY(arrays_->create(1, {}, "512K", {path("held.img"), path("fresh.img")}, "16M", {}));
  QTRY_VERIFY_WITH_TIMEOUT(arrays_->status() != ArraysController::Working, 20000);
  QCOMPARE(arrays_->status(), ArraysController::Error);
  QVERIFY2(!arrays_->errorString().isEmpty(), "a message names the problem");
  QVERIFY(!QFile::exists(path("fresh.img")));
  holder.reset();
  QFile back(path("held.img"));
  QVERIFY(back.open(QIODevice::ReadOnly));
  QCOMPARE(back.readAll(), QByteArray(16 << 20, 'x'));
}

void ControllersTest::createOpensTheArrayAndLearnsItsTunables() {
  QSignalSpy created(arrays_, &ArraysController::created);
  QVERIFY(arrays_->create(1, {}, "512K", {path("m0.img"), path("m1.img")}, "32M", {}));
  QTRY_VERIFY_WITH_TIMEOUT(created.count() == 1, 30000);
  QCOMPARE(session_->members(), (QStringList{path("m0.img"), path("m1.img")}));
  // Opening reads the registry (no run): the Tune page has rows at once.
  QTRY_VERIFY_WITH_TIMEOUT(session_->status() == LiveSession::Idle, 30000);
  QVERIFY(session_->tunables()->rowCount() > 0);
  QCOMPARE(session_->tunables()->value("read_policy"), QString("md-legacy"));
  QVERIFY(!session_->tunables()->value("rd1/device_profile").isEmpty());
}

void ControllersTest::liveRunAppliesTunablesWhileRunning() {
  QCOMPARE(session_->setTunable("rd0/device_profile", "ssd-sata"), QString());
  QCOMPARE(session_->setTunable("rd1/device_profile", "ssd-sata"), QString());
  session_->start("seqread");
  QTRY_VERIFY_WITH_TIMEOUT(session_->running() && session_->telemetry()->sampleCount() > 5, 30000);
  QCOMPARE(session_->telemetry()->members().size(), 2);
  QTRY_COMPARE_WITH_TIMEOUT(session_->tunables()->value("rd0/device_profile"), QString("ssd-sata"), 5000);
  // Out of range: refused with the range, not remembered, not applied.
  const QString bad = session_->setTunable("rot_round_down", "999");
  QVERIFY2(bad.contains("1..64"), qPrintable(bad));
  for (const auto& kv : session_->overrides()) QVERIFY(kv.first != "rot_round_down");
  QCOMPARE(session_->tunables()->value("rot_round_down"), QString("8"));
  // A policy change applies to the running array and marks the time axis.
  QCOMPARE(session_->setTunable("read_policy", "md-rr"), QString());
  QTRY_COMPARE_WITH_TIMEOUT(session_->tunables()->value("read_policy"), QString("md-rr"), 5000);
  QTRY_VERIFY_WITH_TIMEOUT(
      [&] {
        for (const auto& m : session_->telemetry()->marks())
          if (m.label == "read_policy=md-rr") return true;
        return false;
      }(),
      5000);
  session_->stop();
  QTRY_COMPARE_WITH_TIMEOUT(session_->status(), LiveSession::Stopped, 20000);
  // Remembered for the next run.
  QCOMPARE(session_->tunables()->value("read_policy"), QString("md-rr"));
}

void ControllersTest::checkRunsAsATask() {
  QVERIFY(arrays_->check(false));
  QTRY_VERIFY_WITH_TIMEOUT(arrays_->status() != ArraysController::Working, 60000);
  QCOMPARE(arrays_->status(), ArraysController::Done);
  QCOMPARE(arrays_->progress(), 1.0);
}

void ControllersTest::jobFileErrorsNameTheLine() {
  BenchmarkController bench;
  bench.setSession(session_);
  QVariantMap r = bench.checkJobFile("[global]\nrw=read\n\n[j]\nbs=4k\nno_such_option=1\n");
  QVERIFY(!r["ok"].toBool());
  QCOMPARE(r["line"].toInt(), 6);
  QVERIFY2(r["error"].toString().contains("no_such_option"), qPrintable(r["error"].toString()));
  QVERIFY(!r["message"].toString().startsWith("job file"));
  r = bench.checkJobFile("[j]\nrw=read\nbs=4k\n");
  QVERIFY(r["ok"].toBool());
  QCOMPARE(r["jobs"].toInt(), 1);
  QVERIFY(!bench.runJobFile("[j]\nrw=sideways\n", 1));
  QCOMPARE(bench.status(), BenchmarkController::Error);
  QCOMPARE(bench.results().size(), 0);
}

void ControllersTest::beforeAfterComparesAndKeepsResults() {
  BenchmarkController bench;
  bench.setSession(session_);
  // A value the registry refuses: nothing runs.
  QVERIFY(!bench.runBeforeAfter("SEQ1M_Q8T1", "read_policy", "md-legacy", "md-nope", 2));
  QVERIFY(bench.errorString().contains("md-nope"));
  QCOMPARE(session_->status(), LiveSession::Stopped);
  QVERIFY(bench.runBeforeAfter("SEQ1M_Q8T1", "read_policy", "md-legacy", "md-rr", 2));
  QTRY_VERIFY_WITH_TIMEOUT(!bench.running(), 60000);
  QCOMPARE(bench.status(), BenchmarkController::Done);
  const QVariantMap c = bench.comparison();
  const QVariantMap a = c["before"].toMap(), b = c["after"].toMap();
  QCOMPARE(a["label"].toString(), QString("read_policy=md-legacy"));
  QCOMPARE(b["label"].toString(), QString("read_policy=md-rr"));
  QVERIFY(a["bandwidth"].toDouble() > 0 && b["bandwidth"].toDouble() > 0);
  QCOMPARE(c["ratio"].toDouble(), b["bandwidth"].toDouble() / a["bandwidth"].toDouble());
  // md-rr spreads a sequential read over both (identical) members, md-legacy keeps it on one.
  const QVariantList sa = a["shares"].toList(), sb = b["shares"].toList();
  QCOMPARE(sb.size(), 2);
  QVERIFY2(std::abs(sb[0].toDouble() - 50) < 15, qPrintable(QString::number(sb[0].toDouble())));
  qInfo("before/after: %.0f -> %.0f MB/s (%.2fx), shares %.0f/%.0f -> %.0f/%.0f", a["bandwidth"].toDouble() / 1e6,
        b["bandwidth"].toDouble() / 1e6, c["ratio"].toDouble(), sa[0].toDouble(), sa[1].toDouble(), sb[0].toDouble(),
        sb[1].toDouble());
  // The fio JSON of each run is kept.
  QDir results(dir_.path() + "/results");
  QTRY_COMPARE_WITH_TIMEOUT(results.entryList({"*.json"}).size(), 2, 5000);
  QFile f(results.filePath(results.entryList({"*.json"}).first()));
  QVERIFY(f.open(QIODevice::ReadOnly));
  const auto doc = QJsonDocument::fromJson(f.readAll());
  QVERIFY(doc.isObject() && doc.object().contains("jobs"));
}

void ControllersTest::cleanupTestCase() {
  delete arrays_;
  delete session_;
}

QTEST_GUILESS_MAIN(ControllersTest)
#include "test_controllers.moc"
