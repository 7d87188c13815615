// C++ tests of the GUI's models, fed by a scripted telemetry source: a
// TelemetrySource whose counters the test advances, sampled by the engine's
// real Sampler on a scripted clock. Expected values are computed by hand
// from the script.
#include <QGuiApplication>
#include <QLineSeries>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QValueAxis>
#include <QtTest>

#include "chart_feed.hpp"
#include "chart_scale.hpp"
#include "comparison.hpp"
#include "member_names.hpp"
#include "presets.hpp"
#include "result_files.hpp"
#include "stripe_map.hpp"
#include "telemetry/event_log.hpp"
#include "telemetry/sampler.hpp"
#include "telemetry/tunables.hpp"
#include "telemetry_model.hpp"
#include "tunables_model.hpp"

using namespace rs;
using namespace rs::gui;

namespace {

// Two members whose cumulative counters the test sets; a RAID5-like
// section when `raid5` is on.
class ScriptedSource : public telemetry::TelemetrySource {
 public:
  std::vector<MemberReading> members{{"/x/a.img", "active sync", {}}, {"/x/b.img", "active sync", {}}};
  telemetry::MemberCountersSnapshot array;
  bool raid5 = false;
  double handle = 0;
  std::vector<MemberReading> read_members() const override { return members; }
  telemetry::MemberCountersSnapshot read_array() const override { return array; }
  std::vector<telemetry::Section> read_sections() const override {
    if (!raid5) return {};
    return {{"raid5",
             {{"handle", handle},
              {"hold", 2},
              {"delayed", 3},
              {"inactive", 4},
              {"bypass_count", 7},
              {"rmw_writes", 10}}}};
  }
  // Advances by one interval: member i completed reads[i] 1 MiB reads.
  void step(std::vector<uint64_t> reads) {
    for (size_t i = 0; i < reads.size(); ++i) {
      members[i].counters.reads += reads[i];
      members[i].counters.read_bytes += reads[i] << 20;
      array.reads += reads[i];
      array.read_bytes += reads[i] << 20;
    }
  }
};

struct Clock {
  uint64_t now = 1'000'000'000;
  telemetry::Clock fn() {
    return [this] { return now; };
  }
};

// The engine's sampler over a scripted source, on a scripted clock.
struct Scripted {
  ScriptedSource src;
  Clock clock;
  telemetry::EventLog events{clock.fn()};
  telemetry::Sampler sampler{src, nullptr, &events, options()};
  Scripted() { sampler.begin(); }
  telemetry::SamplerOptions options() {
    telemetry::SamplerOptions so;
    so.clock_ns = clock.fn();
    return so;
  }
  // One interval of `ms` milliseconds with these reads per member.
  const telemetry::Sample& step(std::vector<uint64_t> reads, uint64_t ms) {
    src.step(std::move(reads));
    clock.now += ms * 1'000'000;
    last = sampler.sample_now();
    return *last;
  }
  std::shared_ptr<const telemetry::Sample> last;
};

}  // namespace

class ModelsTest : public QObject {
  Q_OBJECT
 private slots:
  void sharesFollowTheScriptedReads();
  void sharesAreSmoothedOverHalfASecond();
  void sharesOnlyWhereThereWereReads();
  void eventsBecomeMarksAndSectionsAreGeneric();
  void memberFailureRaisesTheBanner();
  void bannerClearsOnceTheArrayIsHealthy();
  void historyIsTrimmed();
  void memberNamesAreShortAndDistinct();
  void tunablesModelChecksRangesFromTheRegistry();
  void tunablesRefreshKeepsRowsWhenNamesStay();
  void chartAxisCeiling();
  void tilesAndLegendsSayTheirWindows();
  void denseSeriesAreDecimatedToThePixelWidth();
  void feedReplacesTheSeriesAndSetsTheAxes();
  void closeMarksAreAllLabelled();
  void hiddenChartsWaitAndCatchUp();
  void markLabelsStayInsideThePlot();
  void comparisonSaysWhenWithinTheNoise();
  void exportNamesNeverOverwrite();
  void presetsNameTheirJob();
  void taskRowsHaveSpeedAndTimeLeft();
  void stripeMapAsMdLaysItOut();
};

void ModelsTest::sharesFollowTheScriptedReads() {
  Scripted s;
  TelemetryModel model;
  QSignalSpy updated(&model, &TelemetryModel::updated);
  // 30 reads on a, 10 on b in 100 ms: 75 % / 25 %, 400 reads/s, 419 MB/s.
  model.addSample(s.step({30, 10}, 100));
  QCOMPARE(updated.count(), 1);
  QVERIFY(model.hasData());
  const auto members = model.members();
  QCOMPARE(members.size(), 2);
  QCOMPARE(members[0].toMap()["name"].toString(), QString("a.img"));
  QCOMPARE(members[0].toMap()["share"].toDouble(), 75.0);
  QCOMPARE(members[1].toMap()["share"].toDouble(), 25.0);
  QCOMPARE(model.readIops(), 400.0);
  QCOMPARE(model.readBandwidth(), 40.0 * (1 << 20) / 0.1);
  QCOMPARE(int(model.lines("share").size()), 2);
  QCOMPARE(model.lines("share")[0].points.back().y(), 75.0);
  QCOMPARE(model.lines("bandwidth")[0].points.back().y(), 40.0 * (1 << 20) / 0.1 / 1e6);
  QCOMPARE(model.elapsed(), 0.1);
}

void ModelsTest::sharesAreSmoothedOverHalfASecond() {
  Scripted s;
  TelemetryModel model;
  // Twenty 50 ms samples: 10 of all-a, then 10 of all-b. The window holds
  // the samples of the last half second (10). After the 15th (t = 0.75 s)
  // it holds samples 6..15: five all-a, five all-b: 50 % each. After the
  // 20th only all-b ones: 0 % / 100 %.
  for (int i = 0; i < 20; ++i) {
    model.addSample(s.step(i < 10 ? std::vector<uint64_t>{10, 0} : std::vector<uint64_t>{0, 10}, 50));
    if (i == 14) {
      QCOMPARE(model.members()[0].toMap()["share"].toDouble(), 50.0);
      // The bandwidth beside the share covers the same half second: a's
      // five samples of 10 MiB over 0.5 s, though it read nothing in the newest.
      QCOMPARE(model.members()[0].toMap()["bandwidth"].toDouble(), 5 * 10.0 * (1 << 20) / 0.5);
      QCOMPARE(model.members()[1].toMap()["bandwidth"].toDouble(), 5 * 10.0 * (1 << 20) / 0.5);
    }
  }
  QCOMPARE(model.members()[0].toMap()["share"].toDouble(), 0.0);
  QCOMPARE(model.members()[1].toMap()["share"].toDouble(), 100.0);
  QCOMPARE(int(model.lines("share")[0].points.size()), 20);
}

// An interval with no read in the smoothing window has no share (0 / 0):
// no point, rather than 0 % for every member, which drew both lines at 0
// and pulled the legend's means down (the demo's read 71 % + 13 %).
void ModelsTest::sharesOnlyWhereThereWereReads() {
  Scripted s;
  TelemetryModel model;
  for (int i = 0; i < 10; ++i) model.addSample(s.step({0, 0}, 50));
  QVERIFY(model.lines("share").empty() || model.lines("share")[0].points.empty());
  for (int i = 0; i < 10; ++i) model.addSample(s.step({30, 10}, 50));
  QCOMPARE(int(model.lines("share")[0].points.size()), 10);
  ChartFeed share;
  share.setModel(&model);
  share.setMetric("share");
  share.setLegendStat("mean");
  QCOMPARE(share.legendFigure(0), 75.0);
  QCOMPARE(share.legendFigure(1), 25.0);
}

void ModelsTest::eventsBecomeMarksAndSectionsAreGeneric() {
  Scripted s;
  s.src.raid5 = true;
  TelemetryModel model;
  s.clock.now += 1'500'000'000;
  s.events.record({0, 0, "tunable", "read_policy", "md-rr", ""});
  s.src.handle = 5;
  model.addSample(s.step({0, 0}, 500));
  QCOMPARE(int(model.marks().size()), 1);
  QCOMPARE(model.marks()[0].label, QString("read_policy=md-rr"));
  QCOMPARE(model.marks()[0].t, 1.5);
  QVERIFY(model.hasRaid5());
  const auto& q = model.lines("raid5");
  QCOMPARE(int(q.size()), 4);
  QCOMPARE(q[0].name, QString("handle"));
  QCOMPARE(q[0].points.back().y(), 5.0);
  QCOMPARE(q[3].name, QString("inactive"));
  // Per-interval write counts become rates: 10 rmw writes in the 2 s
  // interval (1.5 s before the event, 0.5 s after) = 5/s.
  QCOMPARE(int(model.lines("raid5_writes").size()), 1);
  QCOMPARE(model.lines("raid5_writes")[0].name, QString("rmw"));
  QCOMPARE(model.lines("raid5_writes")[0].points.back().y(), 5.0);
  const auto sections = model.sections();
  QCOMPARE(sections.size(), 1);
  QCOMPARE(sections[0].toMap()["name"].toString(), QString("raid5"));
  QCOMPARE(sections[0].toMap()["values"].toList().size(), 6);  // bypass_count too, shown generically
  s.src.raid5 = false;
  model.addSample(s.step({0, 0}, 100));
  QVERIFY(!model.hasRaid5());
  model.clear();
  QVERIFY(!model.hasData());
  QCOMPARE(int(model.marks().size()), 0);
}

void ModelsTest::memberFailureRaisesTheBanner() {
  Scripted s;
  TelemetryModel model;
  s.events.record({0, 0, "tunable", "read_policy", "md-rr", ""});
  s.events.record({0, 0, "member", "/tmp/m1.img", "recovering", "added"});
  model.addSample(s.step({0, 0}, 100));
  QCOMPARE(model.memberAlert(), QString());  // only a failure raises it
  s.events.record({0, 0, "member", "/tmp/m1.img", "faulty",
                   "write error at device sector 81920: No space left on device"});
  model.addSample(s.step({0, 0}, 100));
  const QString alert = model.memberAlert();
  QVERIFY2(alert.contains("/tmp/m1.img"), qPrintable(alert));
  QVERIFY2(alert.contains("No space left on device"), qPrintable(alert));
  QVERIFY2(alert.contains("degraded"), qPrintable(alert));
  model.clear();  // a new run: the array is still degraded
  QCOMPARE(model.memberAlert(), alert);
  s.events.record(
      {0, 0, "member", "/tmp/m2.img", "faulty", "read error at device sector 8: Input/output error"});
  model.addSample(s.step({0, 0}, 100));
  QCOMPARE(model.memberAlert().count('\n'), 1);  // one line per member
  model.dismissMemberAlert();
  QCOMPARE(model.memberAlert(), QString());
}

// The red banner says the array is degraded; once the failed member was
// replaced and rebuilt (every member in sync again) it must not go on
// saying so: it gives way to a quiet note naming the member that failed.
void ModelsTest::bannerClearsOnceTheArrayIsHealthy() {
  Scripted s;
  TelemetryModel model;
  s.src.members[1].state = "faulty";
  s.events.record(
      {0, 0, "member", "/x/b.img", "faulty", "write error at device sector 8: Input/output error"});
  model.addSample(s.step({0, 0}, 100));
  QVERIFY(model.memberAlert().contains("degraded"));
  // Replaced by c.img, rebuilding: still degraded, the banner stays.
  s.src.members[1] = {"/x/c.img", "recovering", {}};
  s.events.record({0, 0, "member", "/x/c.img", "recovering", "added"});
  model.addSample(s.step({0, 0}, 100));
  QVERIFY2(model.memberAlert().contains("b.img"), qPrintable(model.memberAlert()));
  QCOMPARE(model.memberNote(), QString());
  // Rebuilt: every member in sync.
  s.src.members[1].state = "active sync";
  model.addSample(s.step({0, 0}, 100));
  QCOMPARE(model.memberAlert(), QString());
  QVERIFY2(model.memberNote().contains("b.img") && model.memberNote().contains("healthy"),
           qPrintable(model.memberNote()));
  QVERIFY2(!model.memberNote().contains("degraded"), qPrintable(model.memberNote()));
  model.dismissMemberAlert();
  QCOMPARE(model.memberNote(), QString());
}

// Four members whose file names share a prefix keep their whole file
// names (the legend elides in the middle, where they are alike); two that
// share a file name are told apart by their folders; a member event's
// mark names the member by that short name, not its temporary path.
void ModelsTest::memberNamesAreShortAndDistinct() {
  QCOMPARE(distinctNames(QStringList{"/tmp/x.1/c5-member-a.img", "/tmp/x.1/c5-member-b.img", "/dev/loop3"}),
           (QStringList{"c5-member-a.img", "c5-member-b.img", "loop3"}));
  QCOMPARE(distinctNames(QStringList{"/srv/a/disk.img", "/srv/b/disk.img", "/srv/c/other.img"}),
           (QStringList{"a/disk.img", "b/disk.img", "other.img"}));
  QCOMPARE(distinctNames(QStringList{"/p/q/a/disk.img", "/p/r/a/disk.img"}),
           (QStringList{"q/a/disk.img", "r/a/disk.img"}));
  QCOMPARE(distinctNames(QStringList{"", "/a/m.img"}), (QStringList{"", "m.img"}));
  Scripted s;
  s.src.members[1].name = "/tmp/raidscope-x.Q1/b.img";
  s.events.record({0, 0, "member", "/tmp/raidscope-x.Q1/b.img", "", ""});
  TelemetryModel model;
  model.addSample(s.step({1, 1}, 100));
  QCOMPARE(model.members()[1].toMap()["name"].toString(), QString("b.img"));
  QCOMPARE(model.marks().back().label, QString("member b.img"));
}

void ModelsTest::historyIsTrimmed() {
  TelemetryModel model;
  telemetry::Sample s;
  s.members.resize(1);
  s.members[0].name = "m";
  s.interval_ns = 1'000'000'000;
  for (int i = 1; i <= 400; ++i) {
    s.t_ns = uint64_t(i) * 1'000'000'000;
    model.addSample(s);
  }
  // Kept: t >= 400 - 300 = 100 s: samples 100..400 (the pending depth:
  // these samples have no reads, so no share).
  QCOMPARE(int(model.lines("pending")[0].points.size()), 301);
  QCOMPARE(model.lines("pending")[0].points.front().x(), 100.0);
}

void ModelsTest::tunablesModelChecksRangesFromTheRegistry() {
  telemetry::TunableRegistry reg;
  reg.set_member_count(2);
  int64_t depth = 8;
  reg.add(
      {"queue_limit", telemetry::TunableType::integer, 1, 64, {}, "requests", "how many"},
      [&](int) { return std::to_string(depth); },
      [&](int, const telemetry::TunableValue& v) -> Status {
        depth = v.number;
        return {};
      });
  telemetry::TunableSpec wm{"write_mostly", telemetry::TunableType::boolean, 0, 1, {}, "", "avoid reads"};
  wm.per_member = true;
  reg.add(
      wm, [](int m) { return m == 1 ? std::string("on") : std::string("off"); }, nullptr);
  TunablesModel model;
  model.refresh(reg.list());
  QCOMPARE(model.rowCount(), 2);
  QCOMPARE(model.data(model.index(0), TunablesModel::MinRole).toDouble(), 1.0);
  QCOMPARE(model.data(model.index(0), TunablesModel::MaxRole).toDouble(), 64.0);
  QCOMPARE(model.value("queue_limit"), QString("8"));
  QCOMPARE(model.value("rd1/write_mostly"), QString("on"));
  QVERIFY(model.check("queue_limit", "64").isEmpty());
  const QString bad = model.check("queue_limit", "65");
  QVERIFY2(bad.contains("1..64"), qPrintable(bad));  // names the valid range
  QVERIFY(!model.check("queue_limit", "abc").isEmpty());
  QVERIFY(!model.check("write_mostly", "on").isEmpty());      // per member: needs rdN/
  QVERIFY(!model.check("rd2/write_mostly", "on").isEmpty());  // no member 2
  QVERIFY(model.check("rd1/write_mostly", "off").isEmpty());
  QVERIFY(!model.check("no_such", "1").isEmpty());
  QCOMPARE(depth, int64_t(8));  // checking never sets
  const auto addresses = model.addresses();
  QCOMPARE(addresses.size(), 3);  // queue_limit, rd0/write_mostly, rd1/write_mostly
  QCOMPARE(addresses[2].toMap()["address"].toString(), QString("rd1/write_mostly"));
}

void ModelsTest::tunablesRefreshKeepsRowsWhenNamesStay() {
  telemetry::TunableRegistry reg;
  std::string policy = "md-legacy";
  reg.add(
      {"read_policy", telemetry::TunableType::choice, 0, 0, {"md-legacy", "md-rr"}, "", "policy"},
      [&](int) { return policy; },
      [&](int, const telemetry::TunableValue& v) -> Status {
        policy = v.text;
        return {};
      });
  TunablesModel model;
  model.refresh(reg.list());
  QSignalSpy reset(&model, &QAbstractItemModel::modelReset);
  QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
  QVERIFY(reg.set("read_policy", "md-rr"));
  model.refresh(reg.list());
  QCOMPARE(reset.count(), 0);
  QCOMPARE(changed.count(), 1);
  QCOMPARE(model.value("read_policy"), QString("md-rr"));
  model.refresh(reg.list());  // nothing changed: no signal
  QCOMPARE(changed.count(), 1);
}

void ModelsTest::chartAxisCeiling() {
  QCOMPARE(chart::niceCeiling(0), 1.0);
  QCOMPARE(chart::niceCeiling(0.7), 1.0);
  QCOMPARE(chart::niceCeiling(1.3), 2.0);
  QCOMPARE(chart::niceCeiling(2.2), 2.5);
  QCOMPARE(chart::niceCeiling(412), 500.0);
  QCOMPARE(chart::niceCeiling(1000), 1000.0);
  QCOMPARE(chart::niceCeiling(5001), 10000.0);
  // Grid rows that keep the labels round: 250 in fifths (50), 200 in
  // quarters (50), 50k in fifths (10k), 100 % in fifths (20).
  QCOMPARE(chart::gridDivisions(250), 5);
  QCOMPARE(chart::gridDivisions(200), 4);
  QCOMPARE(chart::gridDivisions(50000), 5);
  QCOMPARE(chart::gridDivisions(100), 5);
  // A short plot: fifths of 80 px leave 16 px per row for 15 px labels
  // (they touched on the Tune page): halves; 30 px, no row between.
  QCOMPARE(chart::gridDivisions(100, 300, 15), 5);
  QCOMPARE(chart::gridDivisions(100, 80, 15), 2);
  QCOMPARE(chart::gridDivisions(200, 90, 15), 4);
  QCOMPARE(chart::gridDivisions(200, 30, 15), 1);
}

namespace {

// Samples at 20 Hz (50 ms intervals) for `seconds`, latency p50 and p99
// and read bandwidth given per sample index.
template <class P50, class P99, class Bw>
void feed(TelemetryModel& model, int samples, P50 p50Ms, P99 p99Ms, Bw mbs) {
  telemetry::Sample s;
  s.members.resize(1);
  s.members[0].name = "m";
  s.interval_ns = 50'000'000;
  for (int i = 1; i <= samples; ++i) {
    s.t_ns = uint64_t(i) * 50'000'000;
    s.array.clat_samples = 100;
    s.array.clat_p50_ns = uint64_t(p50Ms(i) * 1e6);
    s.array.clat_p99_ns = uint64_t(p99Ms(i) * 1e6);
    s.array.read_bw_bytes = mbs(i) * 1e6;
    model.addSample(s);
  }
}

// A bandwidth chart on `model` as the dashboard wires one: read and write
// series, both axes, a 300 x 150 px plot.
struct BandwidthChart {
  ChartFeed f;
  QLineSeries read, write;
  QValueAxis ax, ay;
  void wire(TelemetryModel& model) {
    f.setAxisX(&ax);
    f.setAxisY(&ay);
    f.setPlotWidth(300);
    f.setPlotHeight(150);
    f.setModel(&model);
    f.setMetric("bandwidth");
    f.setSeries({QVariant::fromValue<QObject*>(&read), QVariant::fromValue<QObject*>(&write)});
  }
};

}  // namespace

// The dashboard's tiles show the newest sample interval and say so ("last
// 50 ms"); the latency chart's legend shows the peak of the chart's 60 s
// and says so; the bandwidth chart's legend the mean of its 60 s. Each
// figure is checked against the window it states, from the script.
void ModelsTest::tilesAndLegendsSayTheirWindows() {
  TelemetryModel model;
  // 70 s at 20 Hz = 1400 samples; p99 20 ms but 500 ms at sample 100
  // (t = 5 s, scrolled out of the last 60 s by the end), 124 ms at sample
  // 800 (t = 40 s) and 82.3 ms in the newest. Bandwidth 100 MB/s over the
  // first 10 s, 400 MB/s after.
  feed(
      model, 1400, [](int) { return 2.0; },
      [](int i) {
        return i == 100 ? 500.0 : i == 800 ? 124.0 : i == 1400 ? 82.3 : 20.0;
      },
      [](int i) { return i <= 200 ? 100.0 : 400.0; });
  QCOMPARE(model.intervalMs(), 50.0);
  QCOMPARE(model.intervalText(), QString("last 50 ms"));
  QVERIFY(std::abs(model.p99Ms() - 82.3) < 0.001);  // the tile: the newest interval
  {
    // A late tick's 53 ms interval still reads "last 50 ms" (the caption
    // does not flicker with the jitter); intervalMs is the exact one.
    TelemetryModel jitter;
    telemetry::Sample s;
    s.t_ns = 53'000'000;
    s.interval_ns = 53'000'000;
    jitter.addSample(s);
    QCOMPARE(jitter.intervalMs(), 53.0);
    QCOMPARE(jitter.intervalText(), QString("last 50 ms"));
  }

  ChartFeed latency;
  latency.setModel(&model);
  latency.setMetric("latency");
  latency.setUnit("ms");
  latency.setLegendStat("peak");
  QCOMPARE(latency.legendNote(), QString("legend: 60 s peak"));
  // In view: t in [10, 70] s (samples 200..1400): the 124 ms one, not the 500.
  QVERIFY(std::abs(latency.legendFigure(1) - 124.0) < 0.001);
  QCOMPARE(latency.legendText(1), QString("p99: 124 ms"));
  QVERIFY(std::abs(latency.legendFigure(0) - 2.0) < 0.001);

  ChartFeed bandwidth;
  bandwidth.setModel(&model);
  bandwidth.setMetric("bandwidth");
  bandwidth.setLegendStat("mean");
  QCOMPARE(bandwidth.legendNote(), QString("legend: 60 s mean"));
  // Samples 200..1400 (1201): sample 200 at 100 MB/s, 1200 at 400 MB/s.
  const double mean = (100.0 + 1200 * 400.0) / 1201;
  QVERIFY2(std::abs(bandwidth.legendFigure(0) - mean) < 1e-6,
           qPrintable(QString::number(bandwidth.legendFigure(0))));
  // The default legend is the newest sample, and says so.
  bandwidth.setLegendStat("newest");
  QCOMPARE(bandwidth.legendNote(), QString("legend: newest value"));
  QCOMPARE(bandwidth.legendFigure(0), 400.0);
}

// A dense noisy series (20 samples a second alternating 10 and 90 on a
// 60 s chart 300 px wide: four samples per pixel column) is handed to the
// chart as one point per column, each the mean of the samples within two
// columns either side: a line near 50, not 1200 points zig-zagging from
// 10 to 90. A sparse series keeps its points (and the one before the view,
// so the line enters from the left edge).
void ModelsTest::denseSeriesAreDecimatedToThePixelWidth() {
  std::deque<QPointF> pts;
  for (int i = 0; i < 1200; ++i) pts.push_back({0.05 * (i + 1), i % 2 ? 10.0 : 90.0});
  const auto d = chart::decimate(pts, 0, 60, 300);
  QVERIFY(d.dense);
  QVERIFY2(d.points.size() <= 300 && d.points.size() >= 290, qPrintable(QString::number(d.points.size())));
  // Away from the ends every column's window holds 20 samples, half of each value.
  for (qsizetype i = 3; i + 3 < d.points.size(); ++i)
    QVERIFY2(std::abs(d.points[i].y() - 50) < 1e-9, qPrintable(QString::number(d.points[i].y())));
  for (qsizetype i = 1; i < d.points.size(); ++i) QVERIFY(d.points[i].x() > d.points[i - 1].x());
  // Sparse: 20 points one per 3 s, the view [10, 70]: the point at 9 s first.
  std::deque<QPointF> few;
  for (int i = 0; i < 25; ++i) few.push_back({3.0 * i, double(i)});
  const auto s = chart::decimate(few, 10, 70, 300);
  QVERIFY(!s.dense);
  QCOMPARE(s.points.front(), QPointF(9, 3));
  QCOMPARE(s.points.back(), QPointF(69, 23));
  QCOMPARE(s.points.size(), qsizetype(21));
}

// The feed replaces each series' points in bulk, scrolls the time axis
// (the last 60 s once a minute has passed) and sets the value axis to a
// round maximum above the data, in thousands when the figures are large.
void ModelsTest::feedReplacesTheSeriesAndSetsTheAxes() {
  TelemetryModel model;
  feed(
      model, 1400, [](int) { return 2.0; }, [](int) { return 3.0; },
      [](int i) { return i <= 200 ? 100.0 : 41000.0; });
  BandwidthChart c;
  c.wire(model);
  auto& [f, read, write, ax, ay] = c;
  QCOMPARE(f.lineNames(), (QStringList{"read", "write"}));
  // t in [10, 70]: 1201 samples decimated to at most one per pixel column.
  QVERIFY2(read.count() <= 300 && read.count() > 250, qPrintable(QString::number(read.count())));
  QCOMPARE(ax.min(), 10.0);
  QCOMPARE(ax.max(), 70.0);
  // 41000 MB/s at most in view: a 50000 ceiling, shown as 50 (thousands).
  QCOMPARE(ay.max(), 50.0);
  QCOMPARE(f.axisUnit(), QString("k"));
  QVERIFY(std::abs(read.at(read.count() / 2).y() - 41.0) < 1e-9);
  // A fixed maximum (shares in %) is kept whatever the data.
  f.setFixedMax(100);
  QCOMPARE(ay.max(), 100.0);
  QCOMPARE(f.axisUnit(), QString());
  QVERIFY(f.updates() > 0 && f.pointCount() == read.count() + write.count());
}

// A chart not shown (another page) leaves its series, axes and legend as
// they were however often the model ticks, but follows the line names (a
// card shown by its line count must learn it has lines); shown again, it
// catches up at once.
void ModelsTest::hiddenChartsWaitAndCatchUp() {
  TelemetryModel model;
  feed(
      model, 100, [](int) { return 2.0; }, [](int) { return 3.0; }, [](int) { return 100.0; });
  BandwidthChart c;
  c.f.setActive(false);
  c.wire(model);
  auto& [f, read, write, ax, ay] = c;
  f.update();
  QCOMPARE(f.lineNames(), (QStringList{"read", "write"}));
  QCOMPARE(read.count(), 0);
  QCOMPARE(f.updates(), 0);
  QVERIFY(f.legend().isEmpty());
  f.setActive(true);
  QCOMPARE(f.updates(), 1);
  QVERIFY(read.count() > 0);
  QCOMPARE(read.at(read.count() - 1).y(), 100.0);
  QCOMPARE(f.legend().size(), 2);
  // Hidden again while 70 s more arrive: the time axis stays at [0, 60].
  f.setActive(false);
  feed(
      model, 1500, [](int) { return 2.0; }, [](int) { return 3.0; }, [](int) { return 100.0; });
  f.update();
  QCOMPARE(ax.max(), 60.0);
  f.setActive(true);
  QCOMPARE(ax.max(), 75.0);  // 1500 samples of 50 ms after the first 100
}

// Two changes 5 s apart on a dashboard-wide 60 s chart: the older label
// would overlap the newer, and goes on a row below rather than being left
// out (the dashboard showed min_contig_read's mark as a bare dashed line).
void ModelsTest::closeMarksAreAllLabelled() {
  TelemetryModel model;
  feed(
      model, 300, [](int) { return 2.0; }, [](int) { return 3.0; }, [](int) { return 100.0; });
  model.addMark(4, "read_policy=md-rr");
  model.addMark(9, "min_contig_read=131072");
  model.addMark(40, "member j1.img faulty");
  ChartFeed f;
  f.setPlotWidth(330);
  f.setModel(&model);
  f.setMetric("bandwidth");
  const QVariantList marks = f.marks();
  QCOMPARE(marks.size(), 3);
  // 330 px for 60 s: 4 s is 22 px in, 9 s 49.5 px.
  QCOMPARE(marks[0].toMap()["x"].toDouble(), 22.0);
  QCOMPARE(marks[1].toMap()["x"].toDouble(), 49.5);
  // Newest first: 40 s on row 0, whole, left of its line (right of it the
  // plot ends first: 220 px + its width > 330); 9 s would run into it:
  // row 1; 4 s into both (27 px before 9 s): row 2. All three labelled.
  QVERIFY(marks[2].toMap()["labelX"].toDouble() < 0);
  QCOMPARE(marks[2].toMap()["row"].toInt(), 0);
  QCOMPARE(marks[1].toMap()["row"].toInt(), 1);
  QCOMPARE(marks[0].toMap()["row"].toInt(), 2);
}

// A mark near the right edge has its label left of its line, whole and
// inside the plot ("repair=fi…" was cut where the plot ends); a label
// wider than the plot is elided to the plot's width, never past it.
void ModelsTest::markLabelsStayInsideThePlot() {
  TelemetryModel model;
  feed(
      model, 300, [](int) { return 2.0; }, [](int) { return 3.0; }, [](int) { return 100.0; });
  const QString late = "repair=finished, 0 mismatches";
  model.addMark(10, "read_policy=md-rr");
  model.addMark(59, late);
  ChartFeed f;
  f.setPlotWidth(330);
  f.setModel(&model);
  f.setMetric("bandwidth");
  const QFontMetricsF fm(QGuiApplication::font());
  const QVariantList marks = f.marks();
  QCOMPARE(marks.size(), 2);
  for (const auto& v : marks) {
    const QVariantMap m = v.toMap();
    QVERIFY(m["row"].toInt() >= 0);
    const double left = m["x"].toDouble() + m.value("labelX", 3.0).toDouble();
    const double right = left + m["width"].toDouble();
    QVERIFY2(left >= 0 && right <= 330,
             qPrintable(QString("%1: %2..%3 of 330 px").arg(m["label"].toString()).arg(left).arg(right)));
    QVERIFY2(m["width"].toDouble() >= fm.horizontalAdvance(m["label"].toString()),
             qPrintable(m["label"].toString() + " is cut"));
  }
  // 59 s of 60 is 324.5 px: the label ends left of its line.
  QVERIFY(marks[1].toMap()["labelX"].toDouble() < 0);
  // The window made smaller with the run stopped (no tick will come): the
  // marks are laid out for the new width at once, not for the old one.
  f.setPlotWidth(200);
  QString outside;  // the first mark not inside the 200 px plot, described
  const auto allInside = [&] {
    outside.clear();
    for (const auto& v : f.marks()) {
      const QVariantMap m = v.toMap();
      const double left = m["x"].toDouble() + m["labelX"].toDouble();
      if (m["x"].toDouble() <= 200 && left >= 0 && left + m["width"].toDouble() <= 200) continue;
      outside = QString("%1 at %2 px, label %3..%4, after a resize to 200 px")
                    .arg(m["label"].toString())
                    .arg(m["x"].toDouble())
                    .arg(left)
                    .arg(left + m["width"].toDouble());
      return false;
    }
    return true;
  };
  QCoreApplication::processEvents();  // the next turn of the event loop; no tick comes
  QVERIFY2(allInside(), qPrintable(outside));
  // A plot narrower than the label: elided to the plot, inside it.
  ChartFeed narrow;
  narrow.setPlotWidth(80);
  narrow.setModel(&model);
  narrow.setMetric("bandwidth");
  QCOMPARE(narrow.marks().size(), 2);
  for (const auto& v : narrow.marks()) {
    const QVariantMap m = v.toMap();
    const double left = m["x"].toDouble() + m["labelX"].toDouble();
    QVERIFY(left >= 0 && left + m["width"].toDouble() <= 80 + 1e-9);
  }
}

// Figures of runs with the given bandwidths (MB/s) and p99s (ms).
static std::vector<RunFigures> runs(std::initializer_list<double> mbs, double p99 = 10) {
  std::vector<RunFigures> out;
  for (double m : mbs) {
    RunFigures f;
    f.bandwidth = m * 1e6;
    f.p99Ms = p99;
    f.shares = {m, 100 - m};
    out.push_back(f);
  }
  return out;
}

// The verdict from the two sides' medians and ranges (computed by hand).
void ModelsTest::comparisonSaysWhenWithinTheNoise() {
  // Medians 100 and 101 with runs 98..102 and 99..103: ranges overlap.
  QVariantMap c = compareRuns(runs({100, 102, 98}), runs({101, 99, 103}), "a", "b", "x");
  QVERIFY(c["measuredNoise"].toBool());
  QVERIFY(c["withinNoise"].toBool());
  QVERIFY2(c["verdict"].toString().contains("within the noise"), qPrintable(c["verdict"].toString()));
  QCOMPARE(c["ratio"].toDouble(), 1.01);
  // 100 -> 150 with runs ±1 MB/s: beyond it, faster, ratio 1.5.
  c = compareRuns(runs({100, 101, 99}), runs({150, 151, 149}), "a", "b", "x");
  QVERIFY(!c["withinNoise"].toBool());
  QCOMPARE(c["ratio"].toDouble(), 1.5);
  QVERIFY2(c["verdict"].toString().contains("faster"), qPrintable(c["verdict"].toString()));
  QCOMPARE(c["before"].toMap()["spread"].toDouble(), 0.01);  // (101 - 99) / 2 / 100
  // One run a side (the 0.56x): the noise is not measured, and the verdict says so.
  c = compareRuns(runs({100}), runs({56}), "a", "b", "x");
  QVERIFY(!c["measuredNoise"].toBool());
  QVERIFY2(c["verdict"].toString().contains("one run a side"), qPrintable(c["verdict"].toString()));
  // p99 10 -> 20 ms: worse, though the bandwidth went up.
  c = compareRuns(runs({100, 101}, 10), runs({150, 151}, 20), "a", "b", "x");
  QVERIFY(c["p99Worse"].toBool());
  QCOMPARE(c["p99Ratio"].toDouble(), 2.0);
  // Two runs a side: the median is no run's; the shares are the nearest run's.
  QCOMPARE(c["before"].toMap()["shares"].toList().size(), 2);
}

void ModelsTest::exportNamesNeverOverwrite() {
  QTemporaryDir dir;
  const QString a = dir.path() + "/report.html";
  QCOMPARE(uniquePath(a), a);
  QFile(a).open(QIODevice::WriteOnly);
  QCOMPARE(uniquePath(a), dir.path() + "/report-2.html");
  QFile(dir.path() + "/report-2.html").open(QIODevice::WriteOnly);
  QCOMPARE(uniquePath(a), dir.path() + "/report-3.html");
  QCOMPARE(safeName("SEQ1M Q8T1 read · read_policy=md-rr"), QString("SEQ1M_Q8T1_read_read_policy_md-rr"));
  const QString first = stampedPath(dir.path(), "SEQ1M Q8T1 read", "json");
  QVERIFY2(QFileInfo(first).fileName().endsWith("-SEQ1M_Q8T1_read.json"), qPrintable(first));
  QFile(first).open(QIODevice::WriteOnly);
  QVERIFY(stampedPath(dir.path(), "SEQ1M Q8T1 read", "json") != first);
}

void ModelsTest::presetsNameTheirJob() {
  QStringList keys;
  for (const auto& p : builtinPresets()) keys << p.key;
  // KDiskMark's four, as reads and as writes.
  QCOMPARE(keys,
           (QStringList{"SEQ1M_Q8T1_read", "SEQ1M_Q1T1_read", "RND4K_Q32T1_read", "RND4K_Q1T1_read",
                        "SEQ1M_Q8T1_write", "SEQ1M_Q1T1_write", "RND4K_Q32T1_write", "RND4K_Q1T1_write"}));
  QVERIFY(builtinPresets()[4].writes() && !builtinPresets()[0].writes());
  QCOMPARE(describeJob(builtinPresets()[0].job), QString("read, bs 1M, iodepth 8, 1 job, io_uring, direct"));
  QString error;
  QVERIFY(!presetFromMap({{"label", "mine"}, {"rw", "write"}, {"bs", "1000"}, {"iodepth", 4}, {"numjobs", 1}},
                         &error));
  QVERIFY2(error.contains("Block size"), qPrintable(error));
  auto p = presetFromMap(
      {{"label", "mine"}, {"rw", "randwrite"}, {"bs", "64K"}, {"iodepth", 16}, {"numjobs", 2}}, &error);
  QVERIFY(p);
  QCOMPARE(p->key, QString("user:mine"));
  QCOMPARE(p->job.block_bytes, 65536u);
  QCOMPARE(shortJobName(p->job), QString("RND64K Q16T2"));
  QVERIFY(p->writes());
}

// A rebuild seen in three samples 0.5 s apart: 16, 32, 48 MiB of 64 MiB
// done. Speed from its first sight: 32 MiB in 1 s; time left 16 MiB at
// that speed, 0.5 s. Gone from the sample: gone from the rows.
void ModelsTest::taskRowsHaveSpeedAndTimeLeft() {
  TelemetryModel model;
  const uint64_t mib = 1 << 20;
  for (int i = 0; i < 3; ++i) {
    telemetry::Sample s;
    s.t_ns = uint64_t(1e9 + i * 5e8);
    s.interval_ns = uint64_t(5e8);
    s.members = {{"/x/a.img", "active sync"}, {"/x/b.img", "recovering"}};
    s.array.tasks = {{"rebuild", "/x/b.img", uint64_t(16 * (i + 1)) * mib, 64 * mib}};
    model.addSample(s);
  }
  const QVariantMap row = model.tasks().value(0).toMap();
  QCOMPARE(row["kind"].toString(), QString("rebuild"));
  QCOMPARE(row["target"].toString(), QString("b.img"));
  QCOMPARE(row["fraction"].toDouble(), 0.75);
  QCOMPARE(row["speed"].toDouble(), double(32 * mib));
  QCOMPARE(row["secondsLeft"].toDouble(), 0.5);
  telemetry::Sample done;
  done.t_ns = uint64_t(3e9);
  done.interval_ns = uint64_t(5e8);
  done.members = {{"/x/a.img", "active sync"}, {"/x/b.img", "active sync"}};
  model.addSample(done);
  QVERIFY(model.tasks().isEmpty());
}

// The Arrays page's stripe map against md's layouts worked by hand
// (raid5.c raid5_compute_sector): left-symmetric puts parity on the last
// member and moves it left each stripe, data starting just after it and
// wrapping; left-asymmetric fills the other members left to right. RAID6
// left-symmetric puts Q just after P (on member 0 when P is last) and the
// data after Q; left-symmetric-6 is RAID5's layout on all but the last
// member, Q on the last.
void ModelsTest::stripeMapAsMdLaysItOut() {
  auto rows = [](int level, uint32_t layout, int disks, int n) {
    QList<QStringList> out;
    for (const auto& r : StripeMap::rowsFor(level, layout, disks, n)) out << r.toStringList();
    return out;
  };
  using Rows = QList<QStringList>;
  QCOMPARE(rows(5, 2, 4, 5), (Rows{{"D0", "D1", "D2", "P"},
                                   {"D4", "D5", "P", "D3"},
                                   {"D8", "P", "D6", "D7"},
                                   {"P", "D9", "D10", "D11"},
                                   {"D12", "D13", "D14", "P"}}));
  QCOMPARE(rows(5, 0, 4, 4), (Rows{{"D0", "D1", "D2", "P"},
                                   {"D3", "D4", "P", "D5"},
                                   {"D6", "P", "D7", "D8"},
                                   {"P", "D9", "D10", "D11"}}));
  QCOMPARE(rows(6, 2, 5, 5), (Rows{{"Q", "D0", "D1", "D2", "P"},
                                   {"D3", "D4", "D5", "P", "Q"},
                                   {"D7", "D8", "P", "Q", "D6"},
                                   {"D11", "P", "Q", "D9", "D10"},
                                   {"P", "Q", "D12", "D13", "D14"}}));
  QCOMPARE(rows(6, 18, 5, 2), (Rows{{"D0", "D1", "D2", "P", "Q"}, {"D4", "D5", "P", "D3", "Q"}}));
  // Levels without parity stripes have no map; nor has a layout md refuses.
  QVERIFY(StripeMap::rowsFor(1, 0, 2, 4).isEmpty());
  QVERIFY(StripeMap::rowsFor(10, 0x102, 4, 4).isEmpty());
  QVERIFY(StripeMap::rowsFor(5, 7, 4, 4).isEmpty());
}

// The marks' layout measures text: a QGuiApplication (fonts); offscreen
// unless told otherwise.
int main(int argc, char** argv) {
  if (!qEnvironmentVariableIsSet("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QGuiApplication app(argc, argv);
  ModelsTest test;
  return QTest::qExec(&test, argc, argv);
}
#include "test_models.moc"
