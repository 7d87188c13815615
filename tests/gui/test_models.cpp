// C++ tests of the GUI's models, fed by a scripted telemetry source: a
// TelemetrySource whose counters the test advances, sampled by the engine's
// real Sampler on a scripted clock. Expected values are computed by hand
// from the script.
#include <QSignalSpy>
#include <QtTest>

#include "telemetry/event_log.hpp"
#include "telemetry/sampler.hpp"
#include "telemetry/tunables.hpp"
#include "telemetry_model.hpp"
#include "time_chart.hpp"
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
             {{"handle", handle}, {"hold", 2}, {"delayed", 3}, {"inactive", 4}, {"bypass_count", 7}, {"rmw_writes", 10}}}};
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
  void eventsBecomeMarksAndSectionsAreGeneric();
  void historyIsTrimmed();
  void tunablesModelChecksRangesFromTheRegistry();
  void tunablesRefreshKeepsRowsWhenNamesStay();
  void chartAxisCeiling();
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
    if (i == 14) QCOMPARE(model.members()[0].toMap()["share"].toDouble(), 50.0);
  }
  QCOMPARE(model.members()[0].toMap()["share"].toDouble(), 0.0);
  QCOMPARE(model.members()[1].toMap()["share"].toDouble(), 100.0);
  QCOMPARE(int(model.lines("share")[0].points.size()), 20);
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
  // Kept: t >= 400 - 300 = 100 s: samples 100..400.
  QCOMPARE(int(model.lines("share")[0].points.size()), 301);
  QCOMPARE(model.lines("share")[0].points.front().x(), 100.0);
}

void ModelsTest::tunablesModelChecksRangesFromTheRegistry() {
  telemetry::TunableRegistry reg;
  reg.set_member_count(2);
  int64_t depth = 8;
  reg.add({"queue_limit", telemetry::TunableType::integer, 1, 64, {}, "requests", "how many"},
          [&](int) { return std::to_string(depth); },
          [&](int, const telemetry::TunableValue& v) -> Status {
            depth = v.number;
            return {};
          });
  telemetry::TunableSpec wm{"write_mostly", telemetry::TunableType::boolean, 0, 1, {}, "", "avoid reads"};
  wm.per_member = true;
  reg.add(wm, [](int m) { return m == 1 ? std::string("on") : std::string("off"); }, nullptr);
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
  reg.add({"read_policy", telemetry::TunableType::choice, 0, 0, {"md-legacy", "md-rr"}, "", "policy"},
          [&](int) { return policy; }, [&](int, const telemetry::TunableValue& v) -> Status {
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
  QCOMPARE(TimeChart::niceCeiling(0), 1.0);
  QCOMPARE(TimeChart::niceCeiling(0.7), 1.0);
  QCOMPARE(TimeChart::niceCeiling(1.3), 2.0);
  QCOMPARE(TimeChart::niceCeiling(2.2), 2.5);
  QCOMPARE(TimeChart::niceCeiling(412), 500.0);
  QCOMPARE(TimeChart::niceCeiling(1000), 1000.0);
  QCOMPARE(TimeChart::niceCeiling(5001), 10000.0);
  // Grid rows that keep the labels round: 250 in fifths (50), 200 in
  // quarters (50), 50k in fifths (10k), 100 % in fifths (20).
  QCOMPARE(TimeChart::gridDivisions(250), 5);
  QCOMPARE(TimeChart::gridDivisions(200), 4);
  QCOMPARE(TimeChart::gridDivisions(50000), 5);
  QCOMPARE(TimeChart::gridDivisions(100), 5);
}

QTEST_GUILESS_MAIN(ModelsTest)
#include "test_models.moc"
