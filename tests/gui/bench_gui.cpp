// bench_gui (a benchmark, not a test): the cost of the GUI during a run and
// the throughput it leaves the array. On one array, alternately: the CLI
// alone (raidscope-cli bench, telemetry at 20 Hz) and the same job run by
// the GUI's LiveSession with the window showing the live dashboard at
// 20 Hz. Prints per round and the medians: bandwidth of each and their
// ratio (goal >= 0.97), CPU of each process and of the GUI's own threads
// (every thread but the engine's: main, scene-graph render, X events, a
// software rasterizer's) in % of one core (goal < 10), and the load average.
//   bench_gui RAIDSCOPE_CLI MEMBER0 MEMBER1 [SECONDS=10] [ROUNDS=3] [PROFILE=ssd-sata] [SCALE=0.5] [PAGE=dashboard]
#include <sys/resource.h>
#include <time.h>

#include <QApplication>
#include <QDir>
#include <QEventLoop>
#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QQmlApplicationEngine>
#include <QQuickStyle>
#include <QQuickWindow>
#include <QSGRendererInterface>
#include <QTimer>
#include <QtQml/qqmlextensionplugin.h>
#include <algorithm>
#include <cstdio>

#include "live_session.hpp"
#include "renderer_setup.hpp"

Q_IMPORT_QML_PLUGIN(RaidScopePlugin)

using namespace rs::gui;

namespace {

double cpuSeconds(const rusage& r) {
  return double(r.ru_utime.tv_sec + r.ru_stime.tv_sec) + double(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
}

// CPU seconds of this process's GUI side: the main thread and every thread
// Qt started for it (scene-graph render loop, X event reader, a software
// OpenGL's rasterizer threads, image-conversion pool...), i.e. every thread
// but the engine's. The engine's threads inherit this program's name (the
// run thread, samplers) or take a "raidsco..." context name.
double guiThreadSeconds() {
  const long tick = sysconf(_SC_CLK_TCK);
  double total = 0;
  const QString self = QString::number(getpid());
  QFile own("/proc/self/comm");
  const QString ownName = own.open(QIODevice::ReadOnly) ? QString::fromLatin1(own.readAll()).trimmed() : QString();
  for (const QString& tid : QDir("/proc/self/task").entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
    QFile comm("/proc/self/task/" + tid + "/comm");
    if (!comm.open(QIODevice::ReadOnly)) continue;
    const QString name = QString::fromLatin1(comm.readAll()).trimmed();
    if (tid != self && (name == ownName || name.startsWith("raidsco"))) continue;  // an engine thread
    QFile stat("/proc/self/task/" + tid + "/stat");
    if (!stat.open(QIODevice::ReadOnly)) continue;
    const QString line = QString::fromLatin1(stat.readAll());
    const QStringList f = line.mid(line.lastIndexOf(')') + 2).split(' ');
    if (f.size() > 12) total += (f[11].toDouble() + f[12].toDouble()) / double(tick);  // utime, stime
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
  if (a.size() < 4) {
    std::fprintf(stderr, "usage: bench_gui RAIDSCOPE_CLI MEMBER0 MEMBER1 [SECONDS] [ROUNDS] [PROFILE] [SCALE]\n");
    return 2;
  }
  const QString cli = a[1], m0 = a[2], m1 = a[3];
  const int seconds = a.size() > 4 ? a[4].toInt() : 10;
  const int rounds = a.size() > 5 ? a[5].toInt() : 3;
  const QString profile = a.size() > 6 ? a[6] : "ssd-sata";
  const QString scale = a.size() > 7 ? a[7] : "0.5";
  const QString page = a.size() > 8 ? a[8] : "dashboard";
  const QStringList job = {"--rw=read", "--bs=1M", "--iodepth=16", "--ioengine=io_uring", "--direct=1", "--time_based",
                           "--runtime=" + QString::number(seconds)};

  QQuickStyle::setStyle("Fusion");
  const QString renderer = rs::gui::chooseRenderer();
  QQmlApplicationEngine engine;
  engine.addImportPath("qrc:/qt/qml");
  engine.setInitialProperties({{"startDemo", false},
                               {"startPage", page},
                               {"startMembers", QStringList{m0, m1}},
                               {"refreshHz", 20},
                               {"profileScale", scale.toDouble()}});
  engine.load(QUrl("qrc:/qt/qml/RaidScope/Main.qml"));
  if (engine.rootObjects().isEmpty()) return 1;
  auto* window = qobject_cast<QQuickWindow*>(engine.rootObjects().first());
  auto* session = window->property("session").value<LiveSession*>();
  waitUntil([&] { return !session->busy(); });
  if (session->status() != LiveSession::Idle) {
    std::fprintf(stderr, "bench_gui: cannot open the array: %s\n", qPrintable(session->errorString()));
    return 1;
  }
  for (const char* m : {"rd0/device_profile", "rd1/device_profile"})
    if (QString e = session->setTunable(m, profile); !e.isEmpty()) {
      std::fprintf(stderr, "bench_gui: %s\n", qPrintable(e));
      return 1;
    }
  session->setTunable("read_policy", "md-rr");

  std::printf("bench_gui: RAID1 %s + %s emulated as %s (scale %s), md-rr, seq read 1M QD16, %d s per run, "
              "telemetry 20 Hz both\n",
              qPrintable(m0), qPrintable(m1), qPrintable(profile), qPrintable(scale), seconds);
  std::printf("renderer: %s; load average before: %s\n", qPrintable(rendererName(window) + " — " + renderer), qPrintable(loadAverage()));
  std::printf("%-6s %12s %12s %7s %10s %10s %12s\n", "round", "CLI MB/s", "GUI MB/s", "ratio", "CLI cpu%",
              "GUI cpu%", "GUI thr cpu%");
  std::vector<double> ratios, cliCpu, guiCpu, guiThr;
  for (int r = 1; r <= rounds; ++r) {
    // The CLI alone.
    rusage c0{}, c1{};
    getrusage(RUSAGE_CHILDREN, &c0);
    QProcess p;
    QStringList args = {"bench", "--array=" + m0 + "," + m1, "--policy=md-rr",
                        "--member-profile=0=" + profile, "--member-profile=1=" + profile, "--profile-scale=" + scale,
                        "--name=cli", "--status-interval=50", "--telemetry=/dev/null", "--output-format=json"};
    args += job;
    QElapsedTimer wall;
    wall.start();
    p.start(cli, args);
    p.waitForFinished(-1);
    const double cliWall = double(wall.elapsed()) / 1000;
    getrusage(RUSAGE_CHILDREN, &c1);
    const auto doc = QJsonDocument::fromJson(p.readAllStandardOutput());
    const double cliBw = doc["jobs"][0]["read"]["bw_bytes"].toDouble();
    if (p.exitCode() != 0 || cliBw <= 0) {
      std::fprintf(stderr, "bench_gui: the CLI run failed: %s\n", p.readAllStandardError().constData());
      return 1;
    }
    // The same job in the GUI, dashboard showing.
    RunRequest req;
    req.label = "bench";
    for (const auto& j : job) req.job_args.push_back(j.toStdString());
    double guiBw = 0;
    bool done = false;
    rusage g0{}, g1{};
    getrusage(RUSAGE_SELF, &g0);
    const double t0 = guiThreadSeconds();
    wall.restart();
    session->beginRun(req, [&](const RunReport& rep) {
      for (const auto& j : rep.results.jobs) guiBw += double(j.read.bw_bytes());
      done = true;
    });
    waitUntil([&] { return done; });
    const double guiWall = double(wall.elapsed()) / 1000;
    getrusage(RUSAGE_SELF, &g1);
    const double thr = 100 * (guiThreadSeconds() - t0) / guiWall;
    const double cc = 100 * (cpuSeconds(c1) - cpuSeconds(c0)) / cliWall;
    const double gc = 100 * (cpuSeconds(g1) - cpuSeconds(g0)) / guiWall;
    std::printf("%-6d %12.1f %12.1f %7.3f %10.1f %10.1f %12.1f\n", r, cliBw / 1e6, guiBw / 1e6, guiBw / cliBw, cc, gc,
                thr);
    ratios.push_back(guiBw / cliBw);
    cliCpu.push_back(cc);
    guiCpu.push_back(gc);
    guiThr.push_back(thr);
  }
  std::printf("load average after: %s\n", qPrintable(loadAverage()));
  std::printf("median: GUI/CLI throughput %.3f (goal >= 0.97); GUI threads %.1f %% of a core at 20 Hz (goal < 10); "
              "process CPU GUI %.1f %% vs CLI %.1f %%\n",
              median(ratios), median(guiThr), median(guiCpu), median(cliCpu));
  QTimer::singleShot(0, &app, &QCoreApplication::quit);
  return 0;
}
