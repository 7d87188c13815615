// bench_gui (a benchmark, not a test): the cost of the GUI during a run and
// the throughput it leaves the array. On one array, alternately: the CLI
// alone (raidscope-cli bench, telemetry at 20 Hz) and the same jobs run by
// the GUI's LiveSession with the window showing the live dashboard at
// 20 Hz. Prints per round and the medians: bandwidth of each and their
// ratio (goal >= 0.97), CPU of each process, of the GUI's own threads
// (every thread but the engine's: main, scene-graph render, X events, a
// software rasterizer's) and of the GUI thread alone, in % of one core
// (goal < 10), the GUI thread's CPU per 20 Hz refresh, and the load average.
// The GUI's jobs are given as a fio job file, so this program builds
// against older GUI code too (a before/after of a GUI change on one run).
//   bench_gui RAIDSCOPE_CLI SECONDS ROUNDS PROFILE SCALE PAGE NUMJOBS MEMBER...
#include <QtQml/qqmlextensionplugin.h>
#include <sys/resource.h>
#include <time.h>

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickStyle>
#include <QQuickWindow>
#include <QSGRendererInterface>
#include <QTimer>
#include <algorithm>
#include <atomic>
#include <cstdio>

#include "live_session.hpp"
#include "renderer_setup.hpp"

Q_IMPORT_QML_PLUGIN(RaidScopePlugin)

using namespace rs::gui;

namespace {

double cpuSeconds(const rusage& r) {
  return double(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
         double(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
}

// CPU seconds of this process's GUI side: the main thread and every thread
// Qt started for it (scene-graph render loop, X event reader, a software
// OpenGL's rasterizer threads, image-conversion pool...), i.e. every thread
// but the engine's. The engine's threads inherit this program's name (the
// run thread, samplers) or take a "raidsco..." context name.
double threadSeconds(const QString& tid) {
  QFile stat("/proc/self/task/" + tid + "/stat");
  if (!stat.open(QIODevice::ReadOnly)) return 0;
  const QString line = QString::fromLatin1(stat.readAll());
  const QStringList f = line.mid(line.lastIndexOf(')') + 2).split(' ');
  const long tick = sysconf(_SC_CLK_TCK);
  return f.size() > 12 ? (f[11].toDouble() + f[12].toDouble()) / double(tick) : 0;  // utime, stime
}

// The GUI thread alone (the main thread: QML, bindings, the charts' data).
double mainThreadSeconds() {
  return threadSeconds(QString::number(getpid()));
}

double guiThreadSeconds() {
  double total = 0;
  const QString self = QString::number(getpid());
  QFile own("/proc/self/comm");
  const QString ownName =
      own.open(QIODevice::ReadOnly) ? QString::fromLatin1(own.readAll()).trimmed() : QString();
  for (const QString& tid : QDir("/proc/self/task").entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
    QFile comm("/proc/self/task/" + tid + "/comm");
    if (!comm.open(QIODevice::ReadOnly)) continue;
    const QString name = QString::fromLatin1(comm.readAll()).trimmed();
    if (tid != self && (name == ownName || name.startsWith("raidsco"))) continue;  // an engine thread
    total += threadSeconds(tid);
  }
  return total;
}

QString loadAverage() {
  QFile f("/proc/loadavg");
  return f.open(QIODevice::ReadOnly) ? QString::fromLatin1(f.readAll()).section(' ', 0, 2) : QString("?");
}

// The scene graph in use: "software" or the graphics API (OpenGL under
// Xvfb is Mesa's llvmpipe, a CPU rasterizer).
QString rendererName(QQuickWindow* w) {
  const auto api = w->rendererInterface()->graphicsApi();
  return api == QSGRendererInterface::Software ? QStringLiteral("Qt Quick software")
         : api == QSGRendererInterface::OpenGL ? QStringLiteral("OpenGL")
                                               : QStringLiteral("other (%1)").arg(int(api));
}

// Items in the window's tree (each a scene-graph node or more that the
// software renderer visits every frame).
int itemCount(QQuickItem* item) {
  int n = 1;
  for (QQuickItem* c : item->childItems()) n += itemCount(c);
  return n;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Runs the event loop until `done` (checked every 20 ms; no busy polling,
// which would count as GUI CPU).
void waitUntil(const std::function<bool()>& done) {
  if (done()) return;
  QEventLoop loop;
  QTimer poll;
  QObject::connect(&poll, &QTimer::timeout, [&] {
    if (done()) loop.quit();
  });
  poll.start(20);
  loop.exec();
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  const QStringList a = app.arguments();
  if (a.size() < 10) {
    std::fprintf(
        stderr,
        "usage: bench_gui RAIDSCOPE_CLI SECONDS ROUNDS PROFILE SCALE PAGE NUMJOBS MEMBER MEMBER...\n");
    return 2;
  }
  const QString cli = a[1];
  const int seconds = a[2].toInt(), rounds = a[3].toInt();
  const QString profile = a[4], scale = a[5], page = a[6];
  const int numjobs = a[7].toInt();
  const QStringList members = a.mid(8);
  const QStringList job = {"--rw=read",
                           "--bs=1M",
                           "--iodepth=16",
                           "--ioengine=io_uring",
                           "--direct=1",
                           "--time_based",
                           "--runtime=" + QString::number(seconds),
                           "--numjobs=" + QString::number(numjobs)};
  QString jobFile = "[global]\n";
  for (const QString& o : job) jobFile += o.mid(2) + "\n";
  jobFile += "[bench]\n";

  QQuickStyle::setStyle("Fusion");
  const QString renderer = rs::gui::chooseRenderer();
  QQmlApplicationEngine engine;
  engine.addImportPath("qrc:/qt/qml");
  engine.setInitialProperties({{"startDemo", false},
                               {"startPage", page},
                               {"startMembers", members},
                               {"refreshHz", 20},
                               {"profileScale", scale.toDouble()}});
  engine.load(QUrl("qrc:/qt/qml/RaidScope/Main.qml"));
  if (engine.rootObjects().isEmpty()) return 1;
  auto* window = qobject_cast<QQuickWindow*>(engine.rootObjects().first());
  auto* session = window->property("session").value<LiveSession*>();
  // The GUI holds the array it shows: it lets go while the CLI runs (one
  // owner per member) and opens it again, with the emulated disks, after.
  bool mirror = false;
  auto openInGui = [&]() -> bool {
    session->openArray(members);
    waitUntil([&] { return !session->busy(); });
    if (session->status() != LiveSession::Idle) {
      std::fprintf(stderr, "bench_gui: cannot open the array: %s\n", qPrintable(session->errorString()));
      return false;
    }
    for (int i = 0; i < members.size(); ++i)
      if (QString e = session->setTunable(QString("rd%1/device_profile").arg(i), profile); !e.isEmpty()) {
        std::fprintf(stderr, "bench_gui: %s\n", qPrintable(e));
        return false;
      }
    mirror = session->setTunable("read_policy", "md-rr").isEmpty();  // RAID5 has no read policy
    return true;
  };
  waitUntil([&] { return !session->busy(); });
  if (!openInGui()) return 1;

  std::printf(
      "bench_gui: %s; %lld members emulated as %s (scale %s)%s, seq read 1M QD16, %d job(s), %d s per run, "
      "telemetry 20 Hz both\n",
      qPrintable(session->arrayText()), qlonglong(members.size()), qPrintable(profile), qPrintable(scale),
      mirror ? ", md-rr" : "", numjobs, seconds);
  std::printf("renderer: %s; load average before: %s\n", qPrintable(rendererName(window) + " — " + renderer),
              qPrintable(loadAverage()));
  // Frames the scene graph rendered (the render loop's thread may not be
  // this one).
  std::atomic<int> frames{0};
  QObject::connect(
      window, &QQuickWindow::afterRendering, window, [&] { ++frames; }, Qt::DirectConnection);
  std::printf("%-6s %10s %10s %7s %9s %9s %12s %12s %14s %8s %6s\n", "round", "CLI MB/s", "GUI MB/s", "ratio",
              "CLI cpu%", "GUI cpu%", "GUI thr cpu%", "main thr cpu%", "main ms/refresh", "frames/s",
              "items");
  std::vector<double> ratios, cliCpu, guiCpu, guiThr, mainThr, perTick, fps;
  for (int r = 1; r <= rounds; ++r) {
    // The CLI alone.
    session->openArray({});
    rusage c0{}, c1{};
    getrusage(RUSAGE_CHILDREN, &c0);
    QProcess p;
    QStringList args = {"bench",
                        "--array=" + members.join(","),
                        "--profile-scale=" + scale,
                        "--telemetry-ms=50",
                        "--telemetry=/dev/null",
                        "--output-format=json"};
    if (mirror) args << "--policy=md-rr";
    for (int i = 0; i < members.size(); ++i) args << QString("--member-profile=%1=%2").arg(i).arg(profile);
    args += job;
    args << "--name=cli";
    QElapsedTimer wall;
    wall.start();
    p.start(cli, args);
    p.waitForFinished(-1);
    const double cliWall = double(wall.elapsed()) / 1000;
    getrusage(RUSAGE_CHILDREN, &c1);
    const auto doc = QJsonDocument::fromJson(p.readAllStandardOutput());
    double cliBw = 0;
    for (const auto& j : doc["jobs"].toArray())
      cliBw += j.toObject()["read"].toObject()["bw_bytes"].toDouble();
    if (p.exitCode() != 0 || cliBw <= 0) {
      std::fprintf(stderr, "bench_gui: the CLI run failed: %s\n", p.readAllStandardError().constData());
      return 1;
    }
    // The same job in the GUI, dashboard showing.
    if (!openInGui()) return 1;
    RunRequest req;
    req.label = "bench";
    req.job_file = jobFile.toStdString();
    double guiBw = 0;
    bool done = false;
    rusage g0{}, g1{};
    getrusage(RUSAGE_SELF, &g0);
    const double t0 = guiThreadSeconds(), m0 = mainThreadSeconds();
    const int f0 = frames;
    wall.restart();
    session->beginRun(req, [&](const RunReport& rep) {
      for (const auto& j : rep.results.jobs) guiBw += double(j.read.bw_bytes());
      done = true;
    });
    waitUntil([&] { return done; });
    const double guiWall = double(wall.elapsed()) / 1000;
    getrusage(RUSAGE_SELF, &g1);
    const double thr = 100 * (guiThreadSeconds() - t0) / guiWall;
    const double mainSeconds = mainThreadSeconds() - m0;
    const double mainPct = 100 * mainSeconds / guiWall;
    const double msPerRefresh = 1000 * mainSeconds / (guiWall * 20);
    const double cc = 100 * (cpuSeconds(c1) - cpuSeconds(c0)) / cliWall;
    const double gc = 100 * (cpuSeconds(g1) - cpuSeconds(g0)) / guiWall;
    const double framesPerSecond = (frames - f0) / guiWall;
    std::printf("%-6d %10.1f %10.1f %7.3f %9.1f %9.1f %12.1f %12.1f %14.2f %8.1f %6d\n", r, cliBw / 1e6,
                guiBw / 1e6, guiBw / cliBw, cc, gc, thr, mainPct, msPerRefresh, framesPerSecond,
                itemCount(window->contentItem()));
    fps.push_back(framesPerSecond);
    ratios.push_back(guiBw / cliBw);
    cliCpu.push_back(cc);
    guiCpu.push_back(gc);
    guiThr.push_back(thr);
    mainThr.push_back(mainPct);
    perTick.push_back(msPerRefresh);
  }
  std::printf("load average after: %s\n", qPrintable(loadAverage()));
  std::printf(
      "median: GUI/CLI throughput %.3f (goal >= 0.97); GUI thread %.1f %% of a core at 20 Hz (goal < 10), "
      "%.2f ms per refresh; GUI threads %.1f %%; process CPU GUI %.1f %% vs CLI %.1f %%; %.1f frames/s\n",
      median(ratios), median(mainThr), median(perTick), median(guiThr), median(guiCpu), median(cliCpu),
      median(fps));
  QTimer::singleShot(0, &app, &QCoreApplication::quit);
  return 0;
}
