// The journey: the real window (Main.qml) driven by object names with
// simulated clicks and keys, under Xvfb. Create a RAID1 of two new image
// files on the Arrays page, emulate two SATA SSDs on the Tune page (and see
// an out-of-range value refused), run md-legacy vs md-rr before/after on
// the Benchmark page (md-rr spreads the reads), see a job file's unknown option
// reported by line, start a live read and change the policy on the Tune
// page while it runs: the share chart moves from one-sided to balanced.
// Screenshots of every page go to $RAIDSCOPE_ARTIFACTS (checked not blank;
// the dashboard's two moments checked to differ).
#include <QtQml/qqmlextensionplugin.h>

#include <QApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QImage>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickStyle>
#include <QQuickWindow>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTimer>
#include <QWidget>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "arrays_controller.hpp"
#include "benchmark_controller.hpp"
#include "device_picker.hpp"
#include "history_model.hpp"
#include "levels/levels.hpp"
#include "live_session.hpp"
#include "raid/array.hpp"
#include "renderer_setup.hpp"

Q_IMPORT_QML_PLUGIN(RaidScopePlugin)

using namespace rs::gui;

namespace {

QQuickItem* findItem(QQuickItem* root, const QString& name) {
  if (!root) return nullptr;
  if (root->objectName() == name && root->isVisible()) return root;
  for (QQuickItem* c : root->childItems())
    if (QQuickItem* f = findItem(c, name)) return f;
  return nullptr;
}

QQuickItem* findItemByClass(QQuickItem* root, const char* cls) {
  if (!root) return nullptr;
  if (QByteArray(root->metaObject()->className()).contains(cls)) return root;
  for (QQuickItem* c : root->childItems())
    if (QQuickItem* f = findItemByClass(c, cls)) return f;
  return nullptr;
}

// Distinct colours in a sample grid of the image: a blank or single-colour
// render has a handful.
int distinctColours(const QImage& img) {
  std::set<QRgb> seen;
  for (int y = 0; y < img.height(); y += 4)
    for (int x = 0; x < img.width(); x += 4) seen.insert(img.pixel(x, y));
  return int(seen.size());
}

// The first 64 KiB of a member (its md superblock and the data start).
QByteArray fileHead(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.read(64 << 10) : QByteArray();
}

// WCAG's contrast ratio of two colours (1 alike .. 21 black on white).
double contrast(QRgb a, QRgb b) {
  auto lum = [](QRgb c) {
    auto ch = [](int v) {
      const double x = v / 255.0;
      return x <= 0.03928 ? x / 12.92 : std::pow((x + 0.055) / 1.055, 2.4);
    };
    return 0.2126 * ch(qRed(c)) + 0.7152 * ch(qGreen(c)) + 0.0722 * ch(qBlue(c));
  };
  const double la = lum(a), lb = lum(b);
  return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

double fractionDiffering(const QImage& a, const QImage& b) {
  if (a.size() != b.size()) return 1;
  int diff = 0, all = 0;
  for (int y = 0; y < a.height(); y += 2)
    for (int x = 0; x < a.width(); x += 2, ++all) diff += a.pixel(x, y) != b.pixel(x, y);
  return double(diff) / all;
}

}  // namespace

class JourneyTest : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase();
  void createArray();
  void tuneProfilesAndRefuseOutOfRange();
  void beforeAfterRatio();
  void jobFileWithUnknownOption();
  void policyChangeMovesTheShares();
  void memberInUseIsRefused();
  void failAddRepairFromTheArraysPage();
  void startADegradedArrayOnPurpose();
  void historyKeptAcrossRestarts();
  void everyPageAtTwoSizesAndSchemes();
  void quitWithCtrlQ();
  void cleanupTestCase();

 private:
  QQuickItem* item(const QString& name) {
    QQuickItem* i = findItem(window_->contentItem(), name);
    if (!i) i = findItem(window_->contentItem()->parentItem(), name);  // header/footer
    return i;
  }
  // QTest::keyClicks has no QWindow overload: one key event per character.
  void typeKeys(const QString& text) {
    for (QChar ch : text) QTest::keyClick(window_, ch.toLatin1());
  }
  // How far apart two items stand vertically (scene pixels), -1 if one is missing.
  double pitch(const QString& upper, const QString& lower) {
    QQuickItem* a = item(upper);
    QQuickItem* b = item(lower);
    if (!a || !b) return -1;
    return b->mapToScene(QPointF(0, b->height() / 2)).y() - a->mapToScene(QPointF(0, a->height() / 2)).y();
  }
  // A visible item's property; a test failure (not a crash) when the item is missing.
  QVariant prop(const QString& name, const char* property) {
    QQuickItem* i = item(name);
    if (!i) {
      QTest::qFail(qPrintable("no visible item " + name), __FILE__, __LINE__);
      return {};
    }
    return i->property(property);
  }
  // A QML object that is not an item (a Dialog), by its objectName.
  QObject* object(const QString& name) { return engine_->rootObjects().first()->findChild<QObject*>(name); }
  // Adds image files in the wizard's picker and waits for it to describe them.
  void addImages(const QStringList& paths) {
    typeInto("imagePathField", paths.join(","));
    click("addImageButton");
    auto* picker = prop("createWizard", "picker").value<QObject*>();
    QTRY_VERIFY_WITH_TIMEOUT(!picker->property("scanning").toBool(), 20000);
    QTest::qWait(200);  // laid out
  }
  QPoint centre(QQuickItem* i) { return i->mapToScene(QPointF(i->width() / 2, i->height() / 2)).toPoint(); }
  // Scrolls the page that holds `i` until it is inside the window: a click
  // beside the window reaches nothing (the Arrays page's wizard went below
  // the window's edge when other programs' loop devices lengthened the
  // picker's list).
  void scrollIntoView(QQuickItem* i) {
    const QRectF r = i->mapRectToScene(QRectF(0, 0, i->width(), i->height()));
    if (r.top() >= 0 && r.bottom() <= window_->height()) return;
    for (QQuickItem* p = i->parentItem(); p; p = p->parentItem()) {
      if (!QByteArray(p->metaObject()->className()).contains("Flickable")) continue;
      auto* content = p->property("contentItem").value<QQuickItem*>();
      if (!content) return;
      const double y = i->mapToItem(content, QPointF(0, 0)).y();
      const double most = std::max(0.0, p->property("contentHeight").toDouble() - p->height());
      p->setProperty("contentY", std::clamp(y - p->height() / 2, 0.0, most));
      QTest::qWait(100);
      return;
    }
  }
  void click(const QString& name) {
    QQuickItem* i = item(name);
    QVERIFY2(i, qPrintable("no visible item " + name));
    QVERIFY2(i->isEnabled(), qPrintable(name + " is disabled"));
    scrollIntoView(i);
    QTest::mouseClick(window_, Qt::LeftButton, {}, centre(i));
  }
  // Clicks a text field and replaces its text by typing.
  void typeInto(const QString& name, const QString& text) {
    // A click can land beside a field the layout moved a moment before (a
    // summary above it grew): clicked again until it has the focus, as a
    // person would, so keys never go elsewhere unnoticed.
    QQuickItem* field = item(name);
    QVERIFY2(field, qPrintable("no visible item " + name));
    for (int i = 0; i < 5 && !field->hasActiveFocus(); ++i) {
      click(name);
      if (!field->hasActiveFocus()) QTest::qWait(200);
    }
    QVERIFY2(field->hasActiveFocus(), qPrintable(name + " does not take the focus"));
    QTest::keyClick(window_, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClick(window_, Qt::Key_Delete);
    const QStringList lines = text.split('\n');
    for (int i = 0; i < lines.size(); ++i) {
      if (i) QTest::keyClick(window_, Qt::Key_Return);
      typeKeys(lines[i]);
    }
  }
  // Focuses a combo box and steps it with the arrow keys to `text`.
  void chooseInCombo(const QString& name, const QString& text) {
    QQuickItem* c = item(name);
    QVERIFY2(c, qPrintable("no combo " + name));
    c->forceActiveFocus(Qt::TabFocusReason);
    QTest::keyClick(window_, Qt::Key_Home);
    for (int i = 0; i < 20 && c->property("currentText").toString() != text; ++i)
      QTest::keyClick(window_, Qt::Key_Down);
    QCOMPARE(c->property("currentText").toString(), text);
  }
  void showPage(const QString& key) {
    click("nav_" + key);
    QTest::qWait(300);
  }
  // Popups showing (tooltips, open lists), by their text: the overlay's
  // visible popup items. A screenshot is of the page, so none may show.
  QStringList visiblePopups() {
    QStringList out;
    std::function<void(QQuickItem*)> walk = [&](QQuickItem* i) {
      if (!i || !i->isVisible()) return;
      if (QByteArray(i->metaObject()->className()).startsWith("QQuickPopupItem")) {
        QString text;
        std::function<void(QQuickItem*)> textOf = [&](QQuickItem* c) {
          if (text.isEmpty()) text = c->property("text").toString();
          for (QQuickItem* k : c->childItems()) textOf(k);
        };
        textOf(i);
        out << (text.isEmpty() ? QString("(a popup)") : text);
        return;
      }
      for (QQuickItem* c : i->childItems()) walk(c);
    };
    walk(window_->contentItem());  // the root item: the page and the overlay popups sit in
    return out;
  }
  // The pointer moved off every control (onto the sidebar's empty foot)
  // before a shot: what the last click left hovered must not show its
  // tooltip over the page (it covered the preset selector in the
  // before/after shot).
  QImage shot(const QString& file) {
    QTest::mouseMove(window_, QPoint(12, window_->height() - 12));
    QDeadlineTimer deadline(3000);
    while (!visiblePopups().isEmpty() && !deadline.hasExpired()) QTest::qWait(50);
    QTest::qWait(200);
    const QStringList popups = visiblePopups();
    if (!popups.isEmpty())
      QTest::qFail(qPrintable(file + ": shown over the page: " + popups.join(" | ")), __FILE__, __LINE__);
    QImage img = window_->grabWindow();
    img.save(artifacts_ + "/" + file);
    return img;
  }
  // Mean distance of member 0's share from 50 % over the last `seconds`.
  double imbalance(double seconds) {
    const auto& lines = session_->telemetry()->lines("share");
    if (lines.empty() || lines[0].points.empty()) return -1;
    const double from = lines[0].points.back().x() - seconds;
    double sum = 0;
    int n = 0;
    for (const auto& p : lines[0].points)
      if (p.x() >= from) sum += std::abs(p.y() - 50), ++n;
    return n ? sum / n : -1;
  }

  QTemporaryDir dir_;
  QString artifacts_;
  QQmlApplicationEngine* engine_ = nullptr;
  QQuickWindow* window_ = nullptr;
  LiveSession* session_ = nullptr;
};

void JourneyTest::initTestCase() {
  QVERIFY(dir_.isValid());
  qputenv("XDG_CONFIG_HOME", (dir_.path() + "/config").toLocal8Bit());  // not the user's settings
  qputenv("RAIDSCOPE_RESULTS_DIR", (dir_.path() + "/results").toLocal8Bit());
  qputenv("RAIDSCOPE_DEMO_DIR", (dir_.path() + "/demo").toLocal8Bit());
  artifacts_ = qEnvironmentVariable("RAIDSCOPE_ARTIFACTS", dir_.path() + "/shots");
  QDir().mkpath(artifacts_);
  QQuickStyle::setStyle("Fusion");
  rs::gui::chooseRenderer();
  engine_ = new QQmlApplicationEngine(this);
  engine_->addImportPath("qrc:/qt/qml");
  // No demo: the journey starts from an empty window. Emulated disks are
  // slowed to a quarter so the host disk never is the limit.
  engine_->setInitialProperties({{"startDemo", false}, {"profileScale", 0.25}});
  engine_->load(QUrl("qrc:/qt/qml/RaidScope/Main.qml"));
  QVERIFY(!engine_->rootObjects().isEmpty());
  window_ = qobject_cast<QQuickWindow*>(engine_->rootObjects().first());
  QVERIFY(window_);
  QVERIFY(QTest::qWaitForWindowExposed(window_));
  session_ = window_->property("session").value<LiveSession*>();
  QVERIFY(session_);
  QCOMPARE(session_->members().size(), 0);
}

void JourneyTest::createArray() {
  showPage("arrays");
  {
    // With no array open, Check is disabled and must look it: its text
    // lighter than enabled text (Main.qml's palette.buttonText binding set
    // the disabled group too: every disabled button read as enabled).
    const QImage img = window_->grabWindow();
    auto darkest = [&](const QString& name) {
      QQuickItem* i = item(name);
      const QRectF r = i->mapRectToScene(QRectF(0, 0, i->width(), i->height()));
      int lowest = 255;
      for (int y = int(r.top()) + 3; y < int(r.bottom()) - 3; ++y)
        for (int x = int(r.left()) + 3; x < int(r.right()) - 3; ++x)
          lowest = std::min(lowest, qGray(img.pixel(x, y)));
      return lowest;
    };
    QVERIFY(!item("checkButton")->isEnabled() && item("openButton") && item("nav_tune"));
    const int disabled = darkest("checkButton"), enabled = darkest("nav_tune");
    QVERIFY2(disabled > enabled + 60,
             qPrintable(QString("darkest grey: disabled %1, enabled %2").arg(disabled).arg(enabled)));
  }
  typeInto("sizeField", "64M");
  QTest::keyClick(window_, Qt::Key_Return);
  const QString j0 = dir_.path() + "/j0.img", j1 = dir_.path() + "/j1.img";
  addImages({j0, j1});
  click("pick_" + j0);
  click("pick_" + j1);
  // Two new files: nothing existing is overwritten, no confirmation asked.
  QVERIFY2(prop("planSummary", "text").toString().contains("Nothing existing is overwritten"),
           qPrintable(prop("planSummary", "text").toString()));
  shot("journey-arrays-candidates.png");
  click("createButton");
  QTRY_COMPARE_WITH_TIMEOUT(session_->members().size(), 2, 30000);
  QTRY_VERIFY_WITH_TIMEOUT(session_->status() == LiveSession::Idle && session_->tunables()->rowCount() > 0,
                           30000);
  QVERIFY(QFile::exists(j0) && QFile::exists(j1));
  // The header is the new array at once (it named the array open before until a run stopped).
  const QRegularExpression created(R"(^raid1 of 2 members, \d+ MiB, clean: j0\.img, j1\.img$)");
  QTRY_VERIFY2_WITH_TIMEOUT(created.match(prop("arrayText", "text").toString()).hasMatch(),
                            qPrintable(prop("arrayText", "text").toString()), 5000);
  // Its members are listed with no workload (the dashboard said "Nothing is running").
  QTRY_VERIFY_WITH_TIMEOUT(
      item("arrayMember_1") && item("arrayMember_1")->property("text").toString() == "j1.img", 10000);
  // The window's title is the array; the window system adds the app's name once.
  QVERIFY2(!window_->title().contains("RaidScope"), qPrintable(window_->title()));

  // The confirmation is for the exact targets: existing files x0, x1
  // picked and WRITE typed enables Create; x1 swapped for x2 withdraws it.
  QStringList xs;
  for (const char* n : {"x0.img", "x1.img", "x2.img"}) {
    xs << dir_.path() + "/" + n;
    QFile f(xs.back());
    QVERIFY(f.open(QIODevice::WriteOnly) && f.resize(64 << 20));
  }
  addImages(xs);
  click("pick_" + xs[0]);
  click("pick_" + xs[1]);
  QVERIFY(!item("createButton")->isEnabled());
  QVERIFY(prop("confirmPrompt", "text").toString().contains("x1.img"));
  // The picker rescans after files are added (seconds on a loaded
  // machine), and a rescan that changes what it says of a member withdraws
  // the confirmation, as it must: typed again then.
  auto* confirmPicker = prop("createWizard", "picker").value<QObject*>();
  // What the picker said of the two members each time it changed (for the
  // failure message: what withdrew the confirmation).
  QStringList said;
  auto* typedPicker = qobject_cast<rs::gui::DevicePicker*>(confirmPicker);
  QVERIFY(typedPicker);
  const auto note = connect(typedPicker, &rs::gui::DevicePicker::candidatesChanged, this, [&] {
    if (typedPicker->scanning()) return;
    QString line;
    for (int i : {0, 1}) {
      const QVariantMap c = typedPicker->candidate(xs[i]);
      line += QString("x%1: %2 %3 usable=%4 '%5'; ")
                  .arg(i)
                  .arg(c["kind"].toString(), c["sizeText"].toString(), c["usable"].toString(),
                       c["reason"].toString());
    }
    if (said.isEmpty() || said.back() != line) said << line;
  });
  QTRY_VERIFY_WITH_TIMEOUT(!confirmPicker->property("scanning").toBool(), 30000);
  typeInto("confirmField", "WRITE");
  // Other programs' loop devices coming and going (the CI machine runs
  // other tests beside this one) start rescans too: each time one ends,
  // typed again if it withdrew it.
  for (int i = 0; i < 6 && !QTest::qWaitFor([&] { return item("createButton")->isEnabled(); }, 5000); ++i) {
    QTRY_VERIFY_WITH_TIMEOUT(!confirmPicker->property("scanning").toBool(), 30000);
    if (prop("confirmField", "text").toString().isEmpty()) typeInto("confirmField", "WRITE");
  }
  disconnect(note);
  QVERIFY2(item("createButton")->isEnabled(),
           qPrintable("confirmation '" + prop("confirmField", "text").toString() + "'; " +
                      prop("planSummary", "text").toString() + "; the picker said: " + said.join(" | ")));
  click("pick_" + xs[1]);
  click("pick_" + xs[2]);
  QCOMPARE(prop("confirmField", "text").toString(), QString());
  QVERIFY2(!item("createButton")->isEnabled(), "Create stays enabled for a target list not confirmed");
  QVERIFY(prop("confirmPrompt", "text").toString().contains("x2.img"));
  shot("journey-arrays-confirm-withdrawn.png");
  click("pick_" + xs[0]);
  click("pick_" + xs[2]);
}

void JourneyTest::tuneProfilesAndRefuseOutOfRange() {
  showPage("tune");
  chooseInCombo("editor_rd0/device_profile", "ssd-sata");
  chooseInCombo("editor_rd1/device_profile", "ssd-sata");
  QCOMPARE(session_->overrides().size(), size_t(2));
  // 999 typed into rot_round_down's spin box (1..64): refused, shown, not set.
  QQuickItem* spin = item("editor_rot_round_down");
  QVERIFY(spin);
  QQuickItem* text = spin->property("contentItem").value<QQuickItem*>();
  QVERIFY(text);
  text->forceActiveFocus();
  QTest::keyClick(window_, Qt::Key_A, Qt::ControlModifier);
  typeKeys("999");
  QTest::keyClick(window_, Qt::Key_Return);
  QQuickItem* err = item("error_rot_round_down");
  QVERIFY2(err, "the refusal is shown under the editor");
  QVERIFY2(err->property("text").toString().contains("1..64"), qPrintable(err->property("text").toString()));
  QCOMPARE(session_->tunables()->value("rot_round_down"), QString("8"));
  for (const auto& kv : session_->overrides()) QVERIFY(kv.first != "rot_round_down");
  shot("journey-tune-refused.png");
}

void JourneyTest::beforeAfterRatio() {
  showPage("benchmark");
  chooseInCombo("changeBox", "read_policy");
  // "to" starts on another value than "from": a before/after of one value
  // twice is never what is meant.
  QTRY_VERIFY(prop("afterBox", "currentText").toString() != prop("beforeBox", "currentText").toString());
  chooseInCombo("beforeBox", "md-legacy");
  chooseInCombo("afterBox", "md-rr");
  QQuickItem* secs = item("secondsBox");
  secs->property("contentItem").value<QQuickItem*>()->forceActiveFocus();
  QTest::keyClick(window_, Qt::Key_A, Qt::ControlModifier);
  typeKeys("5");
  QTest::keyClick(window_, Qt::Key_Return);
  QCOMPARE(secs->property("value").toInt(), 5);
  QQuickItem* repeats = item("repeatsBox");
  repeats->property("contentItem").value<QQuickItem*>()->forceActiveFocus();
  QTest::keyClick(window_, Qt::Key_A, Qt::ControlModifier);
  typeKeys("2");
  QTest::keyClick(window_, Qt::Key_Return);
  QCOMPARE(repeats->property("value").toInt(), 2);
  click("runBeforeAfterButton");
  auto* bench = prop("benchmarkPage", "controller").value<BenchmarkController*>();
  QVERIFY(bench);
  QTRY_VERIFY_WITH_TIMEOUT(bench->running(), 5000);
  QTest::qWait(4000);
  shot("journey-benchmark-running.png");
  QTRY_VERIFY_WITH_TIMEOUT(!bench->running(), 90000);
  QCOMPARE(bench->status(), BenchmarkController::Done);
  // Medians of two runs a side, with their spread and a verdict that says
  // whether the difference is beyond the noise.
  QCOMPARE(bench->comparison()["runs"].toInt(), 2);
  QVERIFY2(!prop("verdictLabel", "text").toString().isEmpty(), "no verdict shown");
  const double ratio = bench->comparison()["ratio"].toDouble();
  qInfo("before/after md-legacy -> md-rr on two emulated ssd-sata: %.0f -> %.0f MB/s, %.2fx",
        bench->comparison()["before"].toMap()["bandwidth"].toDouble() / 1e6,
        bench->comparison()["after"].toMap()["bandwidth"].toDouble() / 1e6, ratio);
  // What the policy change does, asserted as behaviour: md-rr spreads the
  // stream over both mirrors (md-legacy's lean to one is asserted on the
  // dashboard below). The bandwidth ratio only has to point the right way:
  // its size depends on how loaded the machine is (1.4 to 2.0 seen here).
  const QVariantList sharesAfter = bench->comparison()["after"].toMap()["shares"].toList();
  QCOMPARE(sharesAfter.size(), 2);
  QVERIFY2(std::min(sharesAfter[0].toDouble(), sharesAfter[1].toDouble()) >= 30,
           "md-rr spreads the reads over both mirrors");
  QVERIFY2(ratio > 1.1, qPrintable(QString::number(ratio)));
  QQuickItem* label = item("ratioLabel");
  QVERIFY(label && label->property("text").toString().contains(QString::number(ratio, 'f', 2)));
  shot("journey-benchmark-result.png");

  // Choose… opens the save dialog (a modal one: closed by a timer here,
  // nothing chosen, nothing written; the test types the path instead).
  bool dialogSeen = false;
  QTimer::singleShot(1500, [&] {
    if (QWidget* w = QApplication::activeModalWidget()) {
      dialogSeen = w->inherits("QFileDialog");
      w->grab().save(artifacts_ + "/journey-export-dialog.png");
      w->close();
    }
  });
  click("exportBrowseButton");
  QTRY_VERIFY_WITH_TIMEOUT(dialogSeen, 5000);
  QVERIFY(!QFile::exists(dir_.path() + "/before-after.html"));
  // Export: the path typed where the file dialog would put it, then Export.
  // The HTML report names both runs and shows each one's bandwidth.
  const QString html = dir_.path() + "/before-after.html";
  typeInto("exportPathField", html);
  click("exportButton");
  QTRY_VERIFY_WITH_TIMEOUT(bench->exportOk(), 10000);
  QVERIFY2(prop("exportMessage", "text").toString().contains(html), "the message says where it went");
  QFile f(html);
  QVERIFY(f.open(QIODevice::ReadOnly));
  const QString report = QString::fromUtf8(f.readAll());
  for (const char* run : {"before", "after"}) {
    const QVariantMap r = bench->comparison()[run].toMap();
    QVERIFY2(report.contains(r["label"].toString()), qPrintable(r["label"].toString()));
  }
  // The report names the job (the preset, its block size and depth), not "gui".
  for (const char* what : {"SEQ1M Q8T1 read", "bs 1M", "iodepth 8"}) QVERIFY2(report.contains(what), what);
  // Export again to the same name: the first report is kept, the second goes beside it.
  typeInto("exportPathField", html);
  click("exportButton");
  QTRY_VERIFY_WITH_TIMEOUT(bench->exportOk() && bench->exportedPath() != html, 10000);
  QCOMPARE(bench->exportedPath(), dir_.path() + "/before-after-2.html");
  QVERIFY(prop("exportMessage", "text").toString().contains("before-after-2.html"));
  QFile first(html);
  QVERIFY(first.open(QIODevice::ReadOnly));
  QCOMPARE(QString::fromUtf8(first.readAll()), report);
  // PDF, drawn by app/report.
  const QString pdf = dir_.path() + "/before-after.pdf";
  typeInto("exportPathField", pdf);
  QTest::keyClick(window_, Qt::Key_Return);
  QTRY_VERIFY_WITH_TIMEOUT(bench->exportOk() && bench->exportMessage().contains(pdf), 20000);
  QFile p(pdf);
  QVERIFY(p.open(QIODevice::ReadOnly));
  QVERIFY(p.read(5) == "%PDF-" && p.size() > 2000);
  // A name without a known suffix: refused, said, nothing written.
  typeInto("exportPathField", dir_.path() + "/before-after.doc");
  click("exportButton");
  QVERIFY(!bench->exportOk());
  QVERIFY(prop("exportMessage", "text").toString().contains(".html"));
  QVERIFY(!QFile::exists(dir_.path() + "/before-after.doc"));
}

void JourneyTest::jobFileWithUnknownOption() {
  QQuickItem* editor = item("jobFileEditor");
  QVERIFY(editor);
  click("jobFileEditor");
  QTest::keyClick(window_, Qt::Key_End, Qt::ControlModifier);
  typeKeys("frobnicate=1");
  QQuickItem* status = item("jobFileStatus");
  const QString text = status->property("text").toString();
  // The default text has 11 lines; the option typed at the end is on line 11.
  QVERIFY2(text.startsWith("Line 11:") && text.contains("frobnicate") && !text.contains("job file:"),
           qPrintable(text));
  QVERIFY(!item("runJobFileButton")->isEnabled());
  // Nothing ran: no result written, the members untouched.
  const QStringList results = QDir(dir_.path() + "/results").entryList(QDir::Files);
  const QByteArray head = fileHead(dir_.path() + "/j0.img");
  QTest::mouseClick(window_, Qt::LeftButton, {}, centre(item("runJobFileButton")));
  QTest::qWait(500);
  QCOMPARE(QDir(dir_.path() + "/results").entryList(QDir::Files), results);
  QCOMPARE(fileHead(dir_.path() + "/j0.img"), head);
  QCOMPARE(session_->status(), LiveSession::Stopped);
  shot("journey-jobfile-error.png");
}

void JourneyTest::policyChangeMovesTheShares() {
  // Live sequential read with md-legacy (the array's default), then md-rr
  // chosen on the Tune page while it goes on.
  QCOMPARE(session_->tunables()->value("read_policy"), QString("md-legacy"));
  click("startStopButton");
  QTRY_VERIFY_WITH_TIMEOUT(session_->running() && session_->telemetry()->elapsed() > 3, 30000);
  showPage("dashboard");
  const QImage first = shot("journey-dashboard-legacy.png");
  const double before = imbalance(2);
  showPage("tune");
  chooseInCombo("editor_read_policy", "md-rr");
  QTRY_COMPARE_WITH_TIMEOUT(session_->tunables()->value("read_policy"), QString("md-rr"), 5000);
  const double changedAt = session_->telemetry()->elapsed();
  QTRY_VERIFY_WITH_TIMEOUT(session_->telemetry()->elapsed() > changedAt + 3, 10000);
  shot("journey-tune-md-rr.png");
  const double after = imbalance(2);
  qInfo("share of member 0 off 50 %%: %.1f points with md-legacy, %.1f with md-rr", before, after);
  // md-legacy hands a sequential read to one member at a time (the smoothed
  // share swings); md-rr alternates every request (flat at 50 %).
  QVERIFY2(before > 5 && after < before / 3, qPrintable(QString("%1 -> %2").arg(before).arg(after)));
  showPage("dashboard");
  const QImage second = shot("journey-dashboard-md-rr.png");
  QVERIFY2(distinctColours(first) > 30 && distinctColours(second) > 30, "the dashboard is not blank");
  // The Tune page lists members as the Members card does: every
  // per-member row the same height and spacing, in every card (a switch's
  // rows stood 33 px apart, a text field's 29, the Members card's 25).
  const double memberPitch = pitch("memberName_0", "memberName_1");
  QVERIFY2(memberPitch > 0, "the Members card lists both members");
  showPage("tune");
  for (const char* name : {"write_mostly", "io_opt", "rotational", "device_profile"}) {
    const double p = pitch(QString("editorRow_rd0/%1").arg(name), QString("editorRow_rd1/%1").arg(name));
    QVERIFY2(
        p == memberPitch,
        qPrintable(QString("%1: rows %2 px apart, the Members card's %3").arg(name).arg(p).arg(memberPitch)));
  }
  showPage("dashboard");
  const double moved = fractionDiffering(first, second);
  qInfo("dashboard pixels changed between the two moments: %.1f %%", 100 * moved);
  QVERIFY(moved > 0.01);
  // The change is a mark on the time axis.
  bool marked = false;
  for (const auto& m : session_->telemetry()->marks()) marked |= m.label == "read_policy=md-rr";
  QVERIFY(marked);

  // A slider while the read goes on: min_contig_read one step down (a
  // power of two), applied to the running array through the registry.
  showPage("tune");
  const QString was = session_->tunables()->value("min_contig_read");
  QQuickItem* slider = item("slider_min_contig_read");
  QVERIFY(slider);
  slider->forceActiveFocus();
  QTest::keyClick(window_, Qt::Key_Left);
  const QString now = QString::number(was.toLongLong() / 2);
  QTRY_COMPARE_WITH_TIMEOUT(session_->tunables()->value("min_contig_read"), now, 5000);
  QTRY_VERIFY_WITH_TIMEOUT(
      [&] {
        for (const auto& m : session_->telemetry()->marks())
          if (m.label == "min_contig_read=" + now) return true;
        return false;
      }(),
      5000);
  shot("journey-tune-slider.png");
}

void JourneyTest::memberInUseIsRefused() {
  // While the workload holds j0.img, creating another array on it is refused.
  showPage("arrays");
  const QString fresh = dir_.path() + "/k1.img";
  const QString j0 = dir_.path() + "/j0.img";
  addImages({j0, fresh});
  const QByteArray head = fileHead(j0);  // where a new superblock would go
  // j0.img is greyed with the reason: the workload holds it.
  auto* picker = prop("createWizard", "picker").value<rs::gui::DevicePicker*>();
  const QVariantMap c = picker->candidate(j0);
  QVERIFY(!c["usable"].toBool());
  QVERIFY2(!c["reason"].toString().isEmpty(), "no reason given");
  QVERIFY(!item("pick_" + j0)->isEnabled());
  click("pick_" + fresh);
  QVERIFY(!item("createButton")->isEnabled());  // one member is no RAID1
  QVERIFY(!QFile::exists(fresh));
  QVERIFY2(fileHead(dir_.path() + "/j0.img") == head, "the member in use is untouched");
  QVERIFY(session_->running());  // the live run goes on
  shot("journey-arrays-in-use.png");
  click("pick_" + fresh);
  for (const char* page : {"dashboard", "tune", "arrays", "benchmark"}) {
    showPage(page);
    const QImage img = shot(QString("journey-page-%1.png").arg(page));
    QVERIFY2(distinctColours(img) > 20, page);
  }
  click("startStopButton");
  QTRY_COMPARE_WITH_TIMEOUT(session_->status(), LiveSession::Stopped, 20000);
  // After Stop the tiles are greyed and say so rather than look live.
  showPage("dashboard");
  QTRY_COMPARE_WITH_TIMEOUT(prop("tileBandwidth", "stale").toBool(), true, 5000);
  QCOMPARE(findItem(item("tileBandwidth"), "statWindow")->property("text").toString(), QString("stopped"));
  shot("journey-dashboard-stopped.png");
}

void JourneyTest::failAddRepairFromTheArraysPage() {
  showPage("arrays");
  auto* arrays = prop("arraysPage", "controller").value<ArraysController*>();
  QVERIFY(arrays);
  const QString j0 = dir_.path() + "/j0.img", j2 = dir_.path() + "/j2.img";
  // Fail member 1 from its row: a confirmation names it and what the array becomes.
  click("failMember_1");
  QObject* dialog = object("failDialog");
  QVERIFY(dialog);
  QTRY_VERIFY(dialog->property("visible").toBool());
  const QString ask = prop("failDialogText", "text").toString();
  QVERIFY2(ask.contains("j1.img") && ask.contains("degraded") && ask.contains("j0.img"), qPrintable(ask));
  QTest::qWait(300);
  window_->grabWindow().save(artifacts_ +
                             "/journey-arrays-fail-confirm.png");  // the dialog is the point here
  QVERIFY(QMetaObject::invokeMethod(dialog, "accept"));
  QTRY_VERIFY(!dialog->property("visible").toBool());
  QTRY_VERIFY_WITH_TIMEOUT(arrays->status() == ArraysController::Done, 20000);
  QTRY_COMPARE_WITH_TIMEOUT(prop("memberState_1", "text").toString(), QString("faulty"), 5000);
  // The header says what the array now is, at once.
  auto header = [&] { return prop("arrayText", "text").toString(); };
  QTRY_VERIFY2_WITH_TIMEOUT(header().contains(", degraded: j0.img, j1.img"), qPrintable(header()), 5000);
  QTRY_VERIFY_WITH_TIMEOUT(item("memberAlert"), 5000);  // the red banner, on every page
  // md's --remove of the failed member, from its row: a confirmation names
  // it and what the array stays; its slot is then empty for the add.
  click("removeMember_1");
  QObject* removeDialog = object("removeDialog");
  QVERIFY(removeDialog);
  QTRY_VERIFY(removeDialog->property("visible").toBool());
  const QString askRemove = prop("removeDialogText", "text").toString();
  QVERIFY2(askRemove.contains("j1.img") && askRemove.contains("degraded") && askRemove.contains("j0.img"),
           qPrintable(askRemove));
  QTest::qWait(300);
  window_->grabWindow().save(artifacts_ + "/journey-arrays-remove-confirm.png");
  QVERIFY(QMetaObject::invokeMethod(removeDialog, "accept"));
  QTRY_VERIFY(!removeDialog->property("visible").toBool());
  QTRY_VERIFY_WITH_TIMEOUT(arrays->status() == ArraysController::Done, 20000);
  QTRY_COMPARE_WITH_TIMEOUT(prop("memberState_1", "text").toString(), QString("missing"), 5000);
  QTRY_VERIFY2_WITH_TIMEOUT(header().endsWith(", degraded: j0.img"), qPrintable(header()), 5000);
  // A new image file (the size field still says 64M) rebuilt in its place.
  typeInto("addPathField", j2);
  click("addButton");
  QTRY_VERIFY_WITH_TIMEOUT(arrays->status() != ArraysController::Working, 60000);
  QVERIFY2(arrays->status() == ArraysController::Done, qPrintable(arrays->errorString()));
  QCOMPARE(session_->members(), (QStringList{j0, j2}));
  QCOMPARE(prop("addPathField", "text").toString(), QString());  // a member now: not offered again
  QTRY_COMPARE_WITH_TIMEOUT(prop("memberState_1", "text").toString(), QString("active sync"), 10000);
  const QRegularExpression rebuilt(R"(^raid1 of 2 members, \d+ MiB, clean: j0\.img, j2\.img$)");
  QVERIFY2(rebuilt.match(header()).hasMatch(), qPrintable(header()));
  // Whole again: the red banner is gone, a quiet note says what happened.
  QTRY_VERIFY_WITH_TIMEOUT(!item("memberAlert") && item("memberNote"), 5000);
  QVERIFY2(prop("memberNoteText", "text").toString().contains("j1.img"),
           qPrintable(prop("memberNoteText", "text").toString()));
  // Repair on the rebuilt array, as a task with its progress bar.
  click("repairButton");
  QTRY_VERIFY_WITH_TIMEOUT(arrays->status() != ArraysController::Working, 60000);
  QVERIFY2(arrays->status() == ArraysController::Done, qPrintable(arrays->errorString()));
  // The result is the mismatch count, not a bare "finished".
  QVERIFY2(prop("arraysMessage", "text").toString().contains("no mismatch"),
           qPrintable(prop("arraysMessage", "text").toString()));
  QVERIFY2(rebuilt.match(header()).hasMatch(), qPrintable(header()));
  shot("journey-arrays-repaired.png");
}

void JourneyTest::startADegradedArrayOnPurpose() {
  // A RAID1 whose second disk is gone (unplugged): opened from the member
  // that is there, refused with what is missing, started degraded only
  // through a confirmation that says what that means.
  const QString d0 = dir_.path() + "/d0.img", d1 = dir_.path() + "/d1.img";
  {
    rs::raid::CreateOptions o;
    o.level = 1;
    o.raid_disks = 2;
    o.create_files_bytes = 32ull << 20;
    auto made = rs::raid::Array::create(rs::levels::builtin(), o, {d0.toStdString(), d1.toStdString()});
    QVERIFY2(made, made ? "" : made.error().message.c_str());
    QVERIFY((*made)->close());
  }
  QVERIFY(QFile::remove(d1));
  showPage("arrays");
  typeInto("openPathsField", d0);
  click("openButton");
  QTRY_VERIFY_WITH_TIMEOUT(item("openAnywayButton"), 20000);
  const QString refused = prop("statusLine", "text").toString();
  QVERIFY2(refused.contains("missing") && !refused.contains("--run"), qPrintable(refused));
  auto header = [&] { return prop("arrayText", "text").toString(); };
  // Nothing changed: the header still shows the array that is open.
  QTRY_VERIFY2_WITH_TIMEOUT(header().contains("clean: j0.img, j2.img"), qPrintable(header()), 5000);
  shot("journey-open-degraded-refused.png");
  click("openAnywayButton");
  QObject* dialog = object("openAnywayDialog");
  QVERIFY(dialog);
  QTRY_VERIFY(dialog->property("visible").toBool());
  QVERIFY2(prop("openAnywayText", "text").toString().contains("degraded"),
           qPrintable(prop("openAnywayText", "text").toString()));
  QTest::qWait(300);
  window_->grabWindow().save(artifacts_ + "/journey-open-degraded-confirm.png");  // the dialog is the point
  QVERIFY(QMetaObject::invokeMethod(dialog, "accept"));
  QTRY_VERIFY2_WITH_TIMEOUT(header().contains("degraded") && header().contains("d0.img"),
                            qPrintable(header()), 20000);
  QVERIFY(!item("openAnywayButton"));
  QTRY_COMPARE_WITH_TIMEOUT(session_->status(), LiveSession::Idle, 10000);
  shot("journey-open-degraded.png");
  // Back to the journey's array.
  typeInto("openPathsField", dir_.path() + "/j0.img," + dir_.path() + "/j2.img");
  click("openButton");
  QTRY_VERIFY2_WITH_TIMEOUT(header().contains("clean: j0.img, j2.img"), qPrintable(header()), 20000);
}

void JourneyTest::historyKeptAcrossRestarts() {
  // The runs of the before/after are listed from the folder, by a fresh
  // model as after a restart, and two of them compare and export.
  showPage("history");
  auto* history = prop("historyPage", "history").value<rs::gui::HistoryModel*>();
  QVERIFY(history);
  QTRY_VERIFY_WITH_TIMEOUT(history->runs().size() >= 4 && !history->loading(), 10000);
  rs::gui::HistoryModel restarted;
  restarted.refresh();
  QTRY_VERIFY_WITH_TIMEOUT(!restarted.loading() && restarted.runs().size() == history->runs().size(), 10000);
  for (const char* row : {"historyRow_0", "historyRow_1"})
    QTest::mouseClick(window_, Qt::LeftButton, {}, centre(findItem(item(row), "historyPick")));
  QCOMPARE(history->selected().size(), 2);
  QTRY_VERIFY(!history->comparison().isEmpty());
  QTRY_VERIFY(!prop("historyVerdict", "text").toString().isEmpty());
  shot("journey-history.png");
  // Export from the page, twice to the same name: the Report field and the
  // message below it name the same file each time (the second is written
  // under the next free name, and the field must say which).
  const QString out = dir_.path() + "/history.html";
  typeInto("historyExportPath", out);
  const QRegularExpression written(R"(written to (\S+))");
  for (int round = 1; round <= 2; ++round) {
    click("historyExportButton");
    QTRY_VERIFY_WITH_TIMEOUT(history->exportOk() && !history->exportMessage().isEmpty(), 10000);
    const QString message = prop("historyExportMessage", "text").toString();
    const QString field = prop("historyExportPath", "text").toString();
    const QString named = written.match(message).captured(1);
    QVERIFY2(!named.isEmpty() && QFile::exists(named), qPrintable(message));
    QVERIFY2(field == named,
             qPrintable(
                 QString("round %1: the field shows %2, the message names %3").arg(round).arg(field, named)));
  }
  QVERIFY(QFile::exists(out));
  shot("journey-history-exported.png");
}

void JourneyTest::everyPageAtTwoSizesAndSchemes() {
  // Each page at 1280x800 and 1000x650, light and dark, kept for a look;
  // the dashboard's charts are Qt Charts views.
  showPage("dashboard");
  QVERIFY(findItemByClass(item("dashboardPage"), "DeclarativeChart"));
  auto* schemeBox = item("schemeBox");
  QVERIFY(schemeBox);
  for (const QString scheme : {"light", "dark"}) {
    chooseInCombo("schemeBox", scheme == "light" ? "Light" : "Dark");
    for (const QSize size : {QSize(1280, 800), QSize(1000, 650)}) {
      window_->resize(size);
      QTest::qWait(300);
      for (const char* page : {"dashboard", "tune", "arrays", "benchmark", "history"}) {
        showPage(page);
        const QImage img = shot(
            QString("journey-%1-%2x%3-%4.png").arg(page).arg(size.width()).arg(size.height()).arg(scheme));
        QVERIFY2(distinctColours(img) > 20, page);
        if (scheme == "dark") QVERIFY2(qGray(img.pixel(img.width() - 5, img.height() - 5)) < 100, "not dark");
        // A text field's border against its fill: at least WCAG's 3:1 for
        // a control's edge (Fusion's dark border was 1.03:1, unseen).
        if (scheme == "dark" && QString(page) == "arrays" && size.width() == 1280) {
          QQuickItem* f = item("addPathField");
          QVERIFY(f);
          const QRect r = f->mapRectToScene(QRectF(0, 0, f->width(), f->height())).toRect();
          const QRgb fill = img.pixel(r.left() + 3, r.top() + 3);  // inside the border, above the text
          double edge = 1;
          for (int x = r.left() - 1; x <= r.left() + 2; ++x)
            edge = std::max(edge, contrast(img.pixel(x, r.center().y()), fill));
          QVERIFY2(edge >= 3.0, qPrintable(QString("dark: field border %1:1 against its fill").arg(edge)));
        }
      }
    }
  }
  chooseInCombo("schemeBox", "Desktop's");
  window_->resize(1280, 860);
}

void JourneyTest::quitWithCtrlQ() {
  QVERIFY(window_->isVisible());
  QTest::keyClick(window_, Qt::Key_Q, Qt::ControlModifier);
  QTRY_VERIFY_WITH_TIMEOUT(!window_->isVisible(), 5000);
}

void JourneyTest::cleanupTestCase() {
  if (session_) session_->stop();
  delete engine_;
}

QTEST_MAIN(JourneyTest)
#include "test_journey.moc"
