// C++ tests of the controllers on real arrays of small image files: the
// live session (runs, telemetry, tunables applied while it runs, refusals
// that change nothing), the Arrays controller (create, refusals before
// anything is written, check as a task), the Benchmark controller (job file
// errors with line numbers, a before/after that writes fio JSON results),
// and the open array managed with no workload (one session, one assemble).
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <chrono>
#include <functional>
#include <thread>

#include "../common/result_helpers.hpp"
#include "../common/superblock_edit.hpp"
#include "array_list.hpp"
#include "arrays_controller.hpp"
#include "benchmark_controller.hpp"
#include "create_plan.hpp"
#include "device_picker.hpp"
#include "io/member_device.hpp"
#include "levels/levels.hpp"
#include "live_session.hpp"
#include "ondisk/superblock.hpp"
#include "raid/array.hpp"
#include "raid/member_superblock.hpp"
#include "stripe_map.hpp"

using namespace rs::gui;

namespace {

// What a member's superblock says (read without taking the member from the
// session that holds it): roles in use, and whether it is marked clean.
struct OnDisk {
  int active = 0;
  bool clean = false;
  uint64_t events = 0;
};
OnDisk onDisk(const QString& member) {
  std::string err;
  auto dev =
      rs::test::or_empty(rs::io::MemberDevice::open(member.toStdString(), rs::io::OpenMode::ReadOnly), &err);
  if (!dev) return {};
  auto sb = rs::raid::read_superblock(*dev);
  if (!sb) return {};
  OnDisk d;
  for (uint16_t role : sb->dev_roles) d.active += role < sb->raid_disks ? 1 : 0;
  d.clean = sb->resync_offset == rs::ondisk::kMaxSector;
  d.events = sb->events;
  return d;
}

}  // namespace

class ControllersTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void confirmationHoldsOnlyForItsPlan();
  void createRefusesBadInputAndWritesNothing();
  void createOpensTheArrayAndLearnsItsTunables();
  void liveRunAppliesTunablesWhileRunning();
  void checkRunsAsATask();
  void jobFileErrorsNameTheLine();
  void beforeAfterComparesAndKeepsResults();
  void failAddRepairAsTasks();
  void memberWithSuperblockIsRefused();
  void filesystemIsRefusedWithWipefs();
  void arrayManagedWithoutAWorkload();
  void tuningAndArraysRememberedAcrossRestarts();
  void rebuildHeaderAtEveryStep();
  void removeOnlyAFailedMember();
  void stripeMapOfTheOpenArray();
  void degradedStartsOnlyWhenAccepted();
  void cleanupTestCase();

 private:
  QString path(const QString& name) const { return dir_.path() + "/" + name; }
  // Creates as the wizard does: the members in the picker (new image files
  // of `size`), the plan's fields, the confirmation typed when it asks one.
  bool create(int level, const QString& layout, const QString& chunk, const QStringList& paths,
              const QString& size) {
    DevicePicker picker;
    picker.setNewFileSize(size);
    picker.addImageFiles(paths);
    if (!QTest::qWaitFor([&] { return !picker.scanning(); }, 20000)) return false;
    CreatePlan plan;
    plan.setPicker(&picker);
    plan.setLevel(level);
    plan.setMembers(paths);
    plan.setLayout(layout);
    plan.setChunk(chunk);
    if (!plan.overwrites().isEmpty()) plan.setConfirmation(CreatePlan::kConfirmWord);
    return arrays_->create(&plan, false);
  }
  QTemporaryDir dir_;
  LiveSession* session_ = nullptr;
  ArraysController* arrays_ = nullptr;
};

void ControllersTest::initTestCase() {
  QVERIFY(dir_.isValid());
  // The settings (remembered arrays, tunables, presets) in the test's folder, not the user's.
  qputenv("XDG_CONFIG_HOME", (dir_.path() + "/config").toLocal8Bit());
  qputenv("RAIDSCOPE_RESULTS_DIR", (dir_.path() + "/results").toLocal8Bit());
  qputenv("RAIDSCOPE_DEMO_DIR", (dir_.path() + "/demo").toLocal8Bit());
  session_ = new LiveSession(this);
  session_->setProfileScale(0.25);
  arrays_ = new ArraysController(this);
  arrays_->setSession(session_);
}

// The typed confirmation holds for the exact plan it was typed for: any
// change to the members, a field, or what the picker says of a member
// withdraws it, and Create is refused until it is typed again.
void ControllersTest::confirmationHoldsOnlyForItsPlan() {
  for (const char* name : {"c0.img", "c1.img", "c2.img"}) {
    QFile f(path(name));
    QVERIFY(f.open(QIODevice::WriteOnly));
    QVERIFY(f.resize(16 << 20));
  }
  DevicePicker picker;
  picker.setNewFileSize("16M");
  picker.addImageFiles({path("c0.img"), path("c1.img"), path("c2.img"), path("cnew.img")});
  QTRY_VERIFY_WITH_TIMEOUT(!picker.scanning(), 20000);
  CreatePlan plan;
  plan.setPicker(&picker);
  plan.setLevel(1);
  plan.setMembers({path("c0.img"), path("c1.img")});
  QVERIFY(plan.problems().isEmpty());
  // Existing files are overwritten: named, and a confirmation is needed.
  QCOMPARE(plan.overwrites(), (QStringList{path("c0.img"), path("c1.img")}));
  QVERIFY(plan.confirmationPrompt().contains("c1.img"));
  QVERIFY(!plan.ready());
  QVERIFY(!arrays_->create(&plan, false));
  plan.setConfirmation("WRITE");
  QVERIFY(plan.ready());
  // c1 replaced by c2: the confirmation is gone, Create refused.
  plan.setMembers({path("c0.img"), path("c2.img")});
  QVERIFY(!plan.confirmed());
  QCOMPARE(plan.confirmation(), QString());
  QVERIFY(!arrays_->create(&plan, false));
  QCOMPARE(arrays_->status(), ArraysController::Error);
  QVERIFY2(arrays_->errorString().contains("c2.img"), qPrintable(arrays_->errorString()));
  // Typed again: it holds; then each other change withdraws it too.
  const auto withdraws = [&](const char* what, const std::function<void()>& change) {
    plan.setConfirmation("WRITE");
    QVERIFY2(plan.ready(), what);
    change();
    QVERIFY2(!plan.confirmed(), what);
  };
  withdraws("order", [&] { plan.moveMember(path("c2.img"), -1); });
  withdraws("a new file added", [&] { plan.toggleMember(path("cnew.img")); });
  withdraws("new file size", [&] {
    picker.setNewFileSize("32M");
    QTRY_VERIFY_WITH_TIMEOUT(!picker.scanning(), 20000);
  });
  withdraws("level", [&] { plan.setLevel(5); });
  withdraws("chunk", [&] { plan.setChunk("64K"); });
  withdraws("layout", [&] { plan.setLayout("left-symmetric"); });
  withdraws("bitmap", [&] { plan.setBitmap("none"); });
  // Only the word itself confirms.
  plan.setConfirmation("write");
  QVERIFY(!plan.confirmed());
  // Nothing was written to any of the files.
  for (const char* name : {"c0.img", "c1.img", "c2.img"}) QCOMPARE(onDisk(path(name)).active, 0);
  QVERIFY(!QFile::exists(path("cnew.img")));
}

void ControllersTest::createRefusesBadInputAndWritesNothing() {
  // One member is not a RAID1.
  QVERIFY(!create(1, {}, {}, {path("lone.img")}, "16M"));
  QCOMPARE(arrays_->status(), ArraysController::Error);
  QVERIFY2(arrays_->errorString().contains("2 to"), qPrintable(arrays_->errorString()));
  QVERIFY(!QFile::exists(path("lone.img")));
  // A bad chunk and a missing size are refused before anything is written.
  QVERIFY(!create(10, {}, "3000", {path("a.img"), path("b.img")}, "16M"));
  QVERIFY(arrays_->errorString().contains("power of two"));
  // A chunk or a layout on a level that has none is said, not ignored.
  QVERIFY(!create(1, {}, "512K", {path("a.img"), path("b.img")}, "16M"));
  QVERIFY2(arrays_->errorString().contains("no chunks"), qPrintable(arrays_->errorString()));
  QVERIFY(!create(1, "n2", {}, {path("a.img"), path("b.img")}, "16M"));
  QVERIFY2(arrays_->errorString().contains("no layouts"), qPrintable(arrays_->errorString()));
  QVERIFY(!create(1, {}, {}, {path("a.img"), path("b.img")}, ""));
  QVERIFY(!QFile::exists(path("a.img")) && !QFile::exists(path("b.img")));
  // A member another process (here: this one) holds: the engine's checks
  // refuse it and nothing is written, not even the other, new member.
  {
    QFile held(path("held.img"));
    QVERIFY(held.open(QIODevice::WriteOnly));
    QVERIFY(held.write(QByteArray(16 << 20, 'x')) == (16 << 20));
  }
  std::string err;
  auto holder = rs::test::or_empty(
      rs::io::MemberDevice::open(path("held.img").toStdString(), rs::io::OpenMode::ReadWrite), &err);
  QVERIFY2(holder, err.c_str());
  // Refused by the picker (it sees the holder) or by the engine's checks.
  if (create(1, {}, {}, {path("held.img"), path("fresh.img")}, "16M"))
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
  QVERIFY(create(1, {}, {}, {path("m0.img"), path("m1.img")}, "32M"));
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
  // Creating while the workload runs: refused, the workload goes on (it was stopped silently).
  QVERIFY(!create(1, {}, {}, {path("r0.img"), path("r1.img")}, "16M"));
  QVERIFY2(arrays_->errorString().contains("stop it first"), qPrintable(arrays_->errorString()));
  QVERIFY(session_->running());
  QVERIFY(!QFile::exists(path("r0.img")));
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
  QVERIFY(!bench.runJobFile("[j]\nrw=sideways\n", 1, false));
  QCOMPARE(bench.status(), BenchmarkController::Error);
  QCOMPARE(bench.results().size(), 0);
  // An unknown option: refused before anything runs; no result written.
  QVERIFY(!bench.runJobFile("[j]\nrw=read\nfrobnicate=1\n", 1, false));
  QVERIFY2(bench.errorString().contains("frobnicate"), qPrintable(bench.errorString()));
  QCOMPARE(session_->status(), LiveSession::Stopped);
  QVERIFY(QDir(dir_.path() + "/results").entryList({"*.json"}).isEmpty());
}

void ControllersTest::beforeAfterComparesAndKeepsResults() {
  BenchmarkController bench;
  bench.setSession(session_);
  // A value the registry refuses: nothing runs.
  QVERIFY(
      !bench.runBeforeAfter("SEQ1M_Q8T1_read", "read_policy", "md-legacy", "md-nope", 2, 1, false, false));
  QVERIFY2(bench.errorString().contains("md-nope"), qPrintable(bench.errorString()));
  QCOMPARE(session_->status(), LiveSession::Stopped);
  QSignalSpy saved(&bench, &BenchmarkController::resultSaved);
  QVERIFY(bench.runBeforeAfter("SEQ1M_Q8T1_read", "read_policy", "md-legacy", "md-rr", 2, 1, false, false));
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
  qInfo("before/after: %.0f -> %.0f MB/s (%.2fx), shares %.0f/%.0f -> %.0f/%.0f",
        a["bandwidth"].toDouble() / 1e6, b["bandwidth"].toDouble() / 1e6, c["ratio"].toDouble(),
        sa[0].toDouble(), sa[1].toDouble(), sb[0].toDouble(), sb[1].toDouble());
  // The fio JSON of each run is kept.
  QDir results(dir_.path() + "/results");
  QTRY_COMPARE_WITH_TIMEOUT(saved.count(), 2, 5000);
  QCOMPARE(results.entryList({"*.json"}).size(), 2);
  // Each a result document with the run's fio JSON in it.
  for (const QString& name : results.entryList({"*.json"})) {
    QFile f(results.filePath(name));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const auto doc = QJsonDocument::fromJson(f.readAll());
    QVERIFY2(doc.isObject() && doc.object()["fio"].toObject().contains("jobs"),
             qPrintable(name + ": " + QStringList(doc.object().keys()).join(",")));
  }

  // Export: refused without a known suffix (nothing written), then the two
  // runs as CSV through the report code, each with its measured bandwidth.
  QVERIFY(!bench.exportReport(path("report.txt")));
  QVERIFY2(bench.exportMessage().contains(".html"), qPrintable(bench.exportMessage()));
  QVERIFY(!QFile::exists(path("report.txt")));
  QVERIFY(!bench.exportReport(path("no-such-dir/report.csv")));
  QVERIFY(bench.exportReport(path("report.csv")));
  QTRY_VERIFY_WITH_TIMEOUT(bench.exportOk(), 10000);
  QFile csv(path("report.csv"));
  QVERIFY(csv.open(QIODevice::ReadOnly));
  const QStringList rows = QString::fromUtf8(csv.readAll()).split("\r\n", Qt::SkipEmptyParts);
  QCOMPARE(rows.size(), 3);  // header, before, after
  const QStringList header = rows[0].split(',');
  const int bwColumn = int(header.indexOf("bw_bytes"));
  QVERIFY(bwColumn > 0);
  // Cells as RFC 4180 writes them: a cell with a comma (the job's
  // description) is quoted.
  auto cellsOf = [](const QString& line) {
    QStringList out{QString()};
    bool quoted = false;
    for (qsizetype i = 0; i < line.size(); ++i) {
      const QChar c = line[i];
      if (c == '"' && quoted && i + 1 < line.size() && line[i + 1] == '"')
        out.back() += '"', ++i;
      else if (c == '"')
        quoted = !quoted;
      else if (c == ',' && !quoted)
        out << QString();
      else
        out.back() += c;
    }
    return out;
  };
  for (const auto& [row, run] : {std::pair{1, a}, std::pair{2, b}}) {
    const QStringList cells = cellsOf(rows[row]);
    QVERIFY2(cells[1] == run["label"].toString(), qPrintable(rows[row]));
    QCOMPARE(cells[bwColumn].toDouble(), run["bandwidth"].toDouble());
  }
}

void ControllersTest::failAddRepairAsTasks() {
  const QStringList before = session_->members();
  QCOMPARE(before.size(), 2);
  // The header: the array as the last run left it (md's words for its state).
  const QRegularExpression clean01(R"(^raid1 of 2 members, \d+ MiB, clean: m0\.img, m1\.img$)");
  QVERIFY2(clean01.match(session_->arrayText()).hasMatch(), qPrintable(session_->arrayText()));
  // Fail member 1 while a read runs (the task runs on the live array):
  // recorded in the superblocks (the array assembles degraded), and the
  // header says degraded at once, not at the next run.
  session_->start("seqread");
  QTRY_VERIFY_WITH_TIMEOUT(session_->running() && session_->telemetry()->sampleCount() > 2, 30000);
  QVERIFY(arrays_->failMember(1));
  QTRY_VERIFY_WITH_TIMEOUT(arrays_->status() != ArraysController::Working, 20000);
  QCOMPARE(arrays_->status(), ArraysController::Done);
  QTRY_VERIFY2_WITH_TIMEOUT(session_->arrayText().contains(", degraded: m0.img, m1.img"),
                            qPrintable(session_->arrayText()), 5000);
  QVERIFY(session_->running());
  session_->stop();
  QTRY_COMPARE_WITH_TIMEOUT(session_->status(), LiveSession::Stopped, 20000);
  // The array stays open with the run gone: md's clean mark once nothing writes.
  QTRY_VERIFY2_WITH_TIMEOUT(
      QRegularExpression(R"(^raid1 of 2 members, \d+ MiB, clean, degraded: m0\.img, m1\.img$)")
          .match(session_->arrayText())
          .hasMatch(),
      qPrintable(session_->arrayText()), 5000);
  // Recorded in the superblocks: one role in use, marked clean.
  QTRY_VERIFY_WITH_TIMEOUT(onDisk(before[0]).clean, 5000);
  QCOMPARE(onDisk(before[0]).active, 1);
  // A new image file added in its place: rebuilt as a task, then the
  // session's array is the survivor and the new member.
  QVERIFY(!arrays_->addMember(path("m2.img"), ""));  // no size for a new file
  QVERIFY(arrays_->errorString().contains("size"));
  QVERIFY(!QFile::exists(path("m2.img")));
  QVERIFY(arrays_->addMember(path("m2.img"), "32M"));
  QTRY_VERIFY_WITH_TIMEOUT(arrays_->status() != ArraysController::Working, 60000);
  QVERIFY2(arrays_->status() == ArraysController::Done, qPrintable(arrays_->errorString()));
  QCOMPARE(arrays_->progress(), 1.0);
  QCOMPARE(session_->members(), (QStringList{before[0], path("m2.img")}));
  // The header: the rebuilt array as it is, not a bare member count.
  const QRegularExpression clean02(R"(^raid1 of 2 members, \d+ MiB, clean: m0\.img, m2\.img$)");
  QTRY_VERIFY2_WITH_TIMEOUT(clean02.match(session_->arrayText()).hasMatch(),
                            qPrintable(session_->arrayText()), 5000);
  QTRY_VERIFY_WITH_TIMEOUT(onDisk(before[0]).clean && onDisk(path("m2.img")).clean, 5000);
  QCOMPARE(onDisk(path("m2.img")).active, 2);
  // Repair on the rebuilt array: a task that finds the copies equal.
  QVERIFY(arrays_->check(true));
  QTRY_VERIFY_WITH_TIMEOUT(arrays_->status() != ArraysController::Working, 60000);
  QVERIFY2(arrays_->status() == ArraysController::Done, qPrintable(arrays_->errorString()));
  QVERIFY2(arrays_->message().contains("Repair"), qPrintable(arrays_->message()));
  // Its result is md's mismatch count, said (the message read "Repair finished").
  QCOMPARE(arrays_->mismatches(), 0.0);
  QVERIFY2(arrays_->message().contains("no mismatch"), qPrintable(arrays_->message()));
  QVERIFY2(clean02.match(session_->arrayText()).hasMatch(), qPrintable(session_->arrayText()));
}

void ControllersTest::memberWithSuperblockIsRefused() {
  // m1.img was failed out of the array above and still carries its md
  // superblock: the candidate list says so, and creating on it is refused
  // with nothing written to it or to the new file beside it.
  const QString old = path("m1.img");
  QFile f(old);
  QVERIFY(f.open(QIODevice::ReadOnly));
  const QByteArray content = f.readAll();
  f.close();
  DevicePicker picker;
  picker.addImageFiles({old});
  QTRY_VERIFY_WITH_TIMEOUT(!picker.scanning(), 10000);
  const QString note = picker.candidate(old)["reason"].toString();
  QVERIFY2(note.contains("md", Qt::CaseInsensitive), qPrintable(note));
  QVERIFY(!picker.candidate(old)["usable"].toBool());
  QVERIFY(!create(1, {}, {}, {old, path("new.img")}, "32M"));
  QCOMPARE(arrays_->status(), ArraysController::Error);
  QVERIFY2(arrays_->errorString().contains("m1.img"), qPrintable(arrays_->errorString()));
  // The window offers no --force: its message says how to free the member instead.
  QVERIFY2(!arrays_->errorString().contains("--force"), qPrintable(arrays_->errorString()));
  QVERIFY2(arrays_->errorString().contains("zero-superblock"), qPrintable(arrays_->errorString()));
  QVERIFY(!QFile::exists(path("new.img")));
  QVERIFY(f.open(QIODevice::ReadOnly));
  QVERIFY2(f.readAll() == content, "the refused member is untouched");
}

void ControllersTest::filesystemIsRefusedWithWipefs() {
  // An image file holding an ext4 filesystem: refused, and the way out the
  // message gives is wipefs (mdadm --zero-superblock leaves a filesystem).
  if (QStandardPaths::findExecutable("mkfs.ext4", {"/usr/sbin", "/sbin", "/usr/bin"}).isEmpty())
    QSKIP("mkfs.ext4 is not installed");
  const QString fs = path("ext4.img");
  {
    QFile f(fs);
    QVERIFY(f.open(QIODevice::WriteOnly));
    QVERIFY(f.resize(32 << 20));
  }
  QProcess mkfs;
  mkfs.start(QStandardPaths::findExecutable("mkfs.ext4", {"/usr/sbin", "/sbin", "/usr/bin"}),
             {"-q", "-F", fs});
  QVERIFY(mkfs.waitForFinished(30000));
  QCOMPARE(mkfs.exitCode(), 0);
  QVERIFY(!create(1, {}, {}, {fs, path("beside.img")}, "32M"));
  QCOMPARE(arrays_->status(), ArraysController::Error);
  const QString e = arrays_->errorString();
  QVERIFY2(e.contains("ext4"), qPrintable(e));
  QVERIFY2(e.contains("wipefs"), qPrintable(e));
  QVERIFY2(!e.contains("zero-superblock"), qPrintable(e));
  QVERIFY(!QFile::exists(path("beside.img")));
}

void ControllersTest::arrayManagedWithoutAWorkload() {
  // An array made elsewhere, opened in the window: one assemble, and every
  // action after it (tunables, fail, add, check, then a run) on that session.
  rs::raid::CreateOptions o;
  o.level = 1;
  o.raid_disks = 2;
  o.create_files_bytes = 32ull << 20;
  {
    auto made = rs::raid::Array::create(rs::levels::builtin(), o,
                                        {path("n0.img").toStdString(), path("n1.img").toStdString()});
    QVERIFY2(made, made ? "" : made.error().message.c_str());
    QVERIFY((*made)->close());
  }
  const uint64_t assembles = rs::raid::Array::assemble_count();
  session_->openArray({path("n0.img"), path("n1.img")});
  QTRY_VERIFY_WITH_TIMEOUT(session_->status() == LiveSession::Idle && session_->tunables()->rowCount() > 0,
                           30000);
  QCOMPARE(rs::raid::Array::assemble_count(), assembles + 1);
  QVERIFY(!session_->running());

  // Telemetry with no workload: the dashboard lists the members from the session's sampler.
  QTRY_VERIFY_WITH_TIMEOUT(session_->telemetry()->sampleCount() > 2, 10000);
  QCOMPARE(session_->telemetry()->members().size(), 2);
  // A tunable changes the open array at once.
  QCOMPARE(session_->setTunable("read_policy", "md-rr"), QString());
  QTRY_COMPARE_WITH_TIMEOUT(session_->tunables()->value("read_policy"), QString("md-rr"), 5000);
  auto array = session_->arraySession();
  QVERIFY(array);
  QCOMPARE(QString::fromStdString(*array->tunable("read_policy")), QString("md-rr"));

  // Fail member 1: the header and the dashboard's member list say so.
  QVERIFY(arrays_->failMember(1));
  QTRY_VERIFY_WITH_TIMEOUT(arrays_->status() != ArraysController::Working, 20000);
  QVERIFY2(arrays_->status() == ArraysController::Done, qPrintable(arrays_->errorString()));
  QTRY_VERIFY2_WITH_TIMEOUT(session_->arrayText().contains("degraded"), qPrintable(session_->arrayText()),
                            5000);
  // A member's state as the dashboard lists it ("" while it lists fewer).
  auto shown = [this](int i) {
    const QVariantList m = session_->telemetry()->members();
    return i < m.size() ? m[i].toMap()["state"].toString() : QString();
  };
  QTRY_COMPARE_WITH_TIMEOUT(shown(1), QString("faulty"), 5000);
  QCOMPARE(onDisk(path("n0.img")).active, 1);

  // Add a new member: rebuilt, then both in sync on the dashboard (the
  // rebuild's progress rows: TelemetryModel's test, as a rebuild of these
  // small files is over before a sample can be relied on to catch it).
  QVERIFY(arrays_->addMember(path("n2.img"), "32M"));
  QTRY_VERIFY_WITH_TIMEOUT(arrays_->status() != ArraysController::Working, 60000);
  QVERIFY2(arrays_->status() == ArraysController::Done, qPrintable(arrays_->errorString()));
  QCOMPARE(session_->members(), (QStringList{path("n0.img"), path("n2.img")}));
  QTRY_COMPARE_WITH_TIMEOUT(shown(1), QString("active sync"), 5000);
  QCOMPARE(onDisk(path("n2.img")).active, 2);

  // Check: a task on the same session, no mismatch.
  QVERIFY(arrays_->check(false));
  QTRY_VERIFY_WITH_TIMEOUT(arrays_->status() != ArraysController::Working, 60000);
  QVERIFY2(arrays_->status() == ArraysController::Done, qPrintable(arrays_->errorString()));
  const auto tasks = array->tasks();
  QVERIFY(!tasks.empty());
  QCOMPARE(QString::fromStdString(tasks.back().kind), QString("check"));
  QVERIFY(tasks.back().finished && tasks.back().result.ok());
  QCOMPARE(tasks.back().mismatches, uint64_t(0));
  QVERIFY(!session_->running());

  // Then a run on the same session: the tunable set before it holds, and
  // nothing was assembled a second time.
  session_->start("seqread");
  QTRY_VERIFY_WITH_TIMEOUT(session_->running() && session_->telemetry()->readBandwidth() > 0, 30000);
  QCOMPARE(session_->tunables()->value("read_policy"), QString("md-rr"));
  QCOMPARE(session_->arraySession(), array);
  bool gui = false, bench = false;
  for (const auto& c : array->clients()) {
    gui |= c.kind == rs::session::ClientKind::gui;
    bench |= c.kind == rs::session::ClientKind::bench;
  }
  QVERIFY(gui && bench);
  session_->stop();
  QTRY_COMPARE_WITH_TIMEOUT(session_->status(), LiveSession::Stopped, 20000);
  QCOMPARE(rs::raid::Array::assemble_count(), assembles + 1);
}

// Fail -> add -> rebuild -> healthy with no workload, the rebuild slowed
// (held to 24 MB/s) so samples land during it. At every telemetry update the header is checked against what
// the dashboard shows: degraded while a member is faulty; while the rebuild
// runs it names the new member (not the one it replaces) and says
// recovering; healthy at the end. The red banner raised by the failure
// gives way to a quiet note once every member is in sync.
void ControllersTest::rebuildHeaderAtEveryStep() {
  rs::raid::CreateOptions o;
  o.level = 1;
  o.raid_disks = 2;
  o.create_files_bytes = 64ull << 20;
  auto made = rs::raid::Array::create(rs::levels::builtin(), o,
                                      {path("r0.img").toStdString(), path("r1.img").toStdString()});
  QVERIFY2(made, made ? "" : made.error().message.c_str());
  // The rebuild held to 24 MB/s (about 2.8 s for 64 MiB) by the array's
  // piece hook, on the task's thread: samples land during it however fast
  // the host disk is.
  auto started = std::make_shared<std::chrono::steady_clock::time_point>();
  (*made)->set_piece_hook([started](const std::string& kind, uint64_t done) {
    if (kind != "rebuild") return;
    const auto now = std::chrono::steady_clock::now();
    if (done == 0 || *started == std::chrono::steady_clock::time_point{}) *started = now;
    const auto due = *started + std::chrono::microseconds(done / 24);  // 24 bytes per microsecond
    if (due > now) std::this_thread::sleep_until(due);
  });
  auto adopted = rs::session::ArraySession::adopt(std::move(*made), session_->sessionOptions());
  QVERIFY2(adopted, adopted ? "" : adopted.error().message.c_str());
  session_->useArray({path("r0.img"), path("r1.img")}, *adopted);
  QTRY_VERIFY_WITH_TIMEOUT(session_->status() == LiveSession::Idle && session_->tunables()->rowCount() > 0,
                           30000);
  auto header = [this] { return session_->arrayText(); };
  const QRegularExpression healthy0(R"(^raid1 of 2 members, \d+ MiB, clean: r0\.img, r1\.img$)");
  QTRY_VERIFY2_WITH_TIMEOUT(healthy0.match(header()).hasMatch(), qPrintable(header()), 5000);

  // Every update from here on: what the dashboard shows and the header then.
  struct Seen {
    QString header, states, alert;
    bool rebuilding;
  };
  std::vector<Seen> seen;
  auto conn = connect(session_->telemetry(), &TelemetryModel::updated, this, [&] {
    QStringList states;
    for (const auto& m : session_->telemetry()->members()) states << m.toMap()["state"].toString();
    bool rebuilding = false;
    for (const auto& t : session_->telemetry()->tasks())
      rebuilding |= t.toMap()["kind"].toString() == "rebuild";
    seen.push_back({header(), states.join(','), session_->telemetry()->memberAlert(), rebuilding});
  });

  QVERIFY(arrays_->failMember(1));
  QTRY_VERIFY_WITH_TIMEOUT(arrays_->status() != ArraysController::Working, 20000);
  QVERIFY2(arrays_->status() == ArraysController::Done, qPrintable(arrays_->errorString()));
  const QRegularExpression failed(R"(^raid1 of 2 members, \d+ MiB, clean, degraded: r0\.img, r1\.img$)");
  QTRY_VERIFY2_WITH_TIMEOUT(failed.match(header()).hasMatch(), qPrintable(header()), 5000);
  QTRY_VERIFY_WITH_TIMEOUT(session_->telemetry()->memberAlert().contains("r1.img"), 5000);
  const size_t addedAt = seen.size();

  QVERIFY(arrays_->addMember(path("r2.img"), "64M"));
  QTRY_VERIFY_WITH_TIMEOUT(arrays_->status() != ArraysController::Working, 120000);
  QVERIFY2(arrays_->status() == ArraysController::Done, qPrintable(arrays_->errorString()));
  const QRegularExpression healthy(R"(^raid1 of 2 members, \d+ MiB, clean: r0\.img, r2\.img$)");
  QTRY_VERIFY2_WITH_TIMEOUT(healthy.match(header()).hasMatch(), qPrintable(header()), 5000);
  // A few updates after the end, for the banner.
  const size_t endedAt = seen.size();
  QTRY_VERIFY_WITH_TIMEOUT(seen.size() > endedAt + 3, 5000);
  disconnect(conn);

  // Each update judged by what the dashboard showed at it: the header may
  // be newer than the samples (it is read at the update), never older.
  const QRegularExpression during(
      R"(^raid1 of 2 members, \d+ MiB, (clean|active), degraded, recovering: r0\.img, r2\.img$)");
  int rebuildingUpdates = 0;
  for (size_t i = addedAt; i < seen.size(); ++i) {
    const Seen& x = seen[i];
    const QString at = QString("update %1: header '%2', members %3").arg(i).arg(x.header, x.states);
    // (The sample that sees the rebuild's end may still list its task with
    // both members in sync: healthy, judged as such below.)
    if (x.states.contains("recovering")) {
      QVERIFY2(during.match(x.header).hasMatch() || healthy.match(x.header).hasMatch(), qPrintable(at));
      if (x.rebuilding && during.match(x.header).hasMatch()) ++rebuildingUpdates;
      QVERIFY2(!x.alert.isEmpty(), qPrintable(at + ": the banner went while still degraded"));
    } else if (x.states == "active sync,active sync") {
      QVERIFY2(healthy.match(x.header).hasMatch(), qPrintable(at));
    } else {
      QVERIFY2(x.states == "active sync,faulty", qPrintable(at));
      QVERIFY2(!healthy0.match(x.header).hasMatch(), qPrintable(at));
    }
  }
  qInfo("%d of %d updates saw the rebuild", rebuildingUpdates, int(seen.size() - addedAt));
  QVERIFY2(rebuildingUpdates >= 3, qPrintable(QString("%1 updates saw the rebuild").arg(rebuildingUpdates)));
  // Healthy again: no red banner, a quiet note naming the member that failed.
  QCOMPARE(session_->telemetry()->memberAlert(), QString());
  QVERIFY2(session_->telemetry()->memberNote().contains("r1.img"),
           qPrintable(session_->telemetry()->memberNote()));
  QVERIFY(!session_->running());
}

// md's --remove from the Arrays page: refused (nothing changes) for a
// working member; a failed one leaves its slot (missing, its device let
// go, the superblocks updated) after a confirmation naming it; an add then
// fills the slot.
void ControllersTest::removeOnlyAFailedMember() {
  QCOMPARE(session_->members(), (QStringList{path("r0.img"), path("r2.img")}));
  auto array = session_->arraySession();
  QVERIFY(array);
  QVERIFY(arrays_->removeMember(1));
  QTRY_VERIFY_WITH_TIMEOUT(arrays_->status() != ArraysController::Working, 20000);
  QCOMPARE(arrays_->status(), ArraysController::Error);
  QVERIFY2(arrays_->errorString().contains("only a failed member"), qPrintable(arrays_->errorString()));
  QCOMPARE(QString::fromStdString(array->status().members[1].state), QString("active sync"));

  QVERIFY(arrays_->failMember(1));
  QTRY_VERIFY_WITH_TIMEOUT(arrays_->status() != ArraysController::Working, 20000);
  QVERIFY2(arrays_->status() == ArraysController::Done, qPrintable(arrays_->errorString()));
  const QString ask = arrays_->describeRemove(1);
  QVERIFY2(ask.contains("r2.img") && ask.contains("faulty") && ask.contains("1 of them working: r0.img"),
           qPrintable(ask));
  const uint64_t eventsBefore = onDisk(path("r0.img")).events;
  QVERIFY(arrays_->removeMember(1));
  QTRY_VERIFY_WITH_TIMEOUT(arrays_->status() != ArraysController::Working, 20000);
  QVERIFY2(arrays_->status() == ArraysController::Done, qPrintable(arrays_->errorString()));
  const auto st = array->status();
  QCOMPARE(QString::fromStdString(st.members[1].state), QString("missing"));
  QCOMPARE(QString::fromStdString(st.members[1].path), QString());
  QTRY_VERIFY2_WITH_TIMEOUT(session_->arrayText().endsWith("degraded: r0.img"),
                            qPrintable(session_->arrayText()), 5000);
  QCOMPARE(onDisk(path("r0.img")).active, 1);
  QVERIFY(onDisk(path("r0.img")).events > eventsBefore);  // md updates the superblocks on a hot remove
  // The slot is free for an add.
  QVERIFY(arrays_->addMember(path("r3.img"), "64M"));
  QTRY_VERIFY_WITH_TIMEOUT(arrays_->status() != ArraysController::Working, 120000);
  QVERIFY2(arrays_->status() == ArraysController::Done, qPrintable(arrays_->errorString()));
  QCOMPARE(session_->members(), (QStringList{path("r0.img"), path("r3.img")}));
  session_->openArray({});
  QTRY_VERIFY_WITH_TIMEOUT(!session_->arraySession() && !session_->busy(), 20000);
}

// The Arrays page's stripe map follows the open array: a RAID6 of five
// members created left-symmetric shows Q, D0, D1, D2, P on its first
// stripe (md's layout by hand: P on the last member, Q after it on member
// 0, the data after Q); a RAID1 has no map.
void ControllersTest::stripeMapOfTheOpenArray() {
  rs::raid::CreateOptions o;
  o.level = 6;
  o.raid_disks = 5;
  o.create_files_bytes = 16ull << 20;
  std::vector<std::string> ps;
  QStringList members;
  for (int i = 0; i < 5; ++i) {
    members << path(QString("s%1.img").arg(i));
    ps.push_back(members.back().toStdString());
  }
  {
    auto made = rs::raid::Array::create(rs::levels::builtin(), o, ps);
    QVERIFY2(made, made ? "" : made.error().message.c_str());
    QVERIFY((*made)->close());
  }
  StripeMap map;
  map.setSession(session_);
  map.setStripes(2);
  QVERIFY(!map.available());
  session_->openArray(members);
  QTRY_VERIFY_WITH_TIMEOUT(map.available(), 30000);
  QCOMPARE(map.rows()[0].toStringList(), (QStringList{"Q", "D0", "D1", "D2", "P"}));
  QCOMPARE(map.rows()[1].toStringList(), (QStringList{"D3", "D4", "D5", "P", "Q"}));
  QCOMPARE(map.members(), (QStringList{"s0.img", "s1.img", "s2.img", "s3.img", "s4.img"}));
  QVERIFY2(map.caption().startsWith("raid6, left-symmetric, 512 KiB"), qPrintable(map.caption()));
  session_->openArray({});
  QTRY_VERIFY_WITH_TIMEOUT(!session_->arraySession() && !session_->busy(), 20000);
  QTRY_VERIFY_WITH_TIMEOUT(!map.available(), 5000);
}

// A restart: the first session closes its array, a new one (another
// window's) opens the same array and finds the tunable set before, and the
// Arrays page's list knows the array with no discovery.
void ControllersTest::tuningAndArraysRememberedAcrossRestarts() {
  const QStringList members{path("n0.img"), path("n2.img")};
  QCOMPARE(session_->members(), members);
  const QString key = session_->arrayKey();
  QVERIFY(!key.isEmpty());
  session_->openArray({});
  QTRY_VERIFY_WITH_TIMEOUT(!session_->arraySession() && !session_->busy(), 20000);
  LiveSession restarted;
  restarted.openArray(members);
  QTRY_VERIFY_WITH_TIMEOUT(restarted.status() == LiveSession::Idle && restarted.tunables()->rowCount() > 0,
                           30000);
  QTRY_COMPARE_WITH_TIMEOUT(restarted.tunables()->value("read_policy"), QString("md-rr"), 5000);
  QCOMPARE(restarted.arrayKey(), key);
  ArrayList list;
  list.setSession(&restarted);
  bool known = false;
  for (const auto& row : list.arrays()) {
    const QVariantMap r = row.toMap();
    if (r["key"].toString() == key) known = r["known"].toBool() && r["members"].toStringList() == members;
  }
  QVERIFY2(known, "the array is remembered with its members");
  restarted.openArray({});
  QTRY_VERIFY_WITH_TIMEOUT(!restarted.arraySession() && !restarted.busy(), 20000);
}

// A member missing: the open is refused with nothing written, the window
// offers to start it degraded, and only that (accepted) starts it; a dirty
// degraded RAID5 asks a second, separate time, for its own risk.
void ControllersTest::degradedStartsOnlyWhenAccepted() {
  session_->openArray({});
  QTRY_VERIFY_WITH_TIMEOUT(!session_->busy(), 20000);
  // A RAID5 of three new image files, closed clean.
  const auto make = [&](const QString& stem) {
    rs::raid::CreateOptions o;
    o.level = 5;
    o.raid_disks = 3;
    o.create_files_bytes = 16ull << 20;
    QStringList all;
    std::vector<std::string> ps;
    for (int i = 0; i < 3; ++i) {
      all << path(stem + QString::number(i) + ".img");
      ps.push_back(all.back().toStdString());
    }
    auto made = rs::raid::Array::create(rs::levels::builtin(), o, ps);
    if (!made || !(*made)->close()) return QStringList{};
    return all;
  };
  const auto refusedWith = [&](const QString& consent) {
    QTRY_VERIFY_WITH_TIMEOUT(session_->status() == LiveSession::Error, 20000);
    QCOMPARE(session_->openConsent(), consent);
    QVERIFY2(!session_->errorString().contains("--"), qPrintable(session_->errorString()));  // no CLI flag
    QVERIFY(!session_->openConsentText().isEmpty());
    QVERIFY(!session_->arraySession());
  };
  const auto closeIt = [&] {
    session_->openArray({});
    QTRY_VERIFY_WITH_TIMEOUT(!session_->busy() && !session_->arraySession(), 20000);
  };

  // A member missing: refused, nothing written; accepted: it runs degraded.
  const QStringList a = make("dg");
  QCOMPARE(a.size(), 3);
  const uint64_t events = onDisk(a[0]).events;
  session_->openArray({a[0], a[1]});
  refusedWith("degraded");
  QVERIFY2(session_->errorString().contains("missing"), qPrintable(session_->errorString()));
  QCOMPARE(onDisk(a[0]).events, events);
  QVERIFY(onDisk(a[0]).clean);
  session_->openAnyway();
  QTRY_VERIFY_WITH_TIMEOUT(session_->status() == LiveSession::Idle, 20000);
  QCOMPARE(session_->openConsent(), QString());
  QVERIFY(session_->arraySession());
  QVERIFY2(session_->arrayText().contains("degraded"), qPrintable(session_->arrayText()));
  closeIt();

  // A crash before the resync finished (every superblock says active), and a
  // member gone: accepting "degraded" is not enough, its own risk is asked.
  const QStringList b = make("dd");
  QCOMPARE(b.size(), 3);
  for (const auto& p : b) {
    const rs::Status edited =
        rs::test::edit_superblock(p.toStdString(), [](rs::ondisk::Superblock& sb) { sb.resync_offset = 0; });
    QVERIFY2(edited.ok(), edited.ok() ? "" : edited.error().message.c_str());
  }
  session_->openArray({b[0], b[1]});
  refusedWith("degraded");
  session_->openAnyway();
  refusedWith("dirty-degraded");
  QVERIFY2(session_->errorString().contains("dirty"), qPrintable(session_->errorString()));
  QVERIFY2(session_->openConsentText().contains("may be wrong"), qPrintable(session_->openConsentText()));
  // Opened again: what was accepted held for that one open only.
  session_->openArray({b[0], b[1]});
  refusedWith("degraded");
  session_->openAnyway();
  refusedWith("dirty-degraded");
  QCOMPARE(onDisk(b[0]).events, onDisk(b[2]).events);  // nothing written by the refusals
  session_->openAnyway();
  QTRY_VERIFY_WITH_TIMEOUT(session_->status() == LiveSession::Idle, 20000);
  QVERIFY(session_->arraySession());
  closeIt();

  // Closed after a refusal: nothing is left to accept, and "start
  // anyway" no longer opens the refused members.
  session_->openArray({b[0], b[1]});
  refusedWith("degraded");
  closeIt();
  QCOMPARE(session_->openConsent(), QString());
  session_->openAnyway();
  QTest::qWait(300);
  QVERIFY(!session_->busy());
  QVERIFY(!session_->arraySession());
}

void ControllersTest::cleanupTestCase() {
  delete arrays_;
  delete session_;
}

QTEST_GUILESS_MAIN(ControllersTest)
#include "test_controllers.moc"
