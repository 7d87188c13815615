// What the dashboard shows, built from telemetry samples on the GUI thread:
// the latest figures (properties QML binds to) and rolling per-metric series
// the TimeChart items draw. Samples come from whoever owns the session
// (LiveSession drains its SampleFeed on its timer; tests add scripted
// samples); nothing here touches the engine's threads.
#pragma once
#include <QtQml/qqmlregistration.h>

#include <QObject>
#include <QPointF>
#include <QString>
#include <QStringList>
#include <QVariantList>
#include <deque>
#include <map>
#include <vector>

#include "telemetry/sample.hpp"

namespace rs::gui {

// One line of a chart: points (t in seconds since the run started, value),
// oldest first.
struct SeriesLine {
  QString name;
  std::deque<QPointF> points;
};

// A vertical mark on the time axis: a tunable change or a member event.
struct TimeMark {
  double t = 0;
  QString label;
};

class TelemetryModel : public QObject {
  Q_OBJECT
  QML_ELEMENT
  Q_PROPERTY(int status READ status NOTIFY updated)
  Q_PROPERTY(QString errorString READ errorString NOTIFY updated)
  Q_PROPERTY(bool hasData READ hasData NOTIFY updated)
  Q_PROPERTY(double elapsed READ elapsed NOTIFY updated)
  Q_PROPERTY(QVariantList members READ members NOTIFY updated)
  Q_PROPERTY(double readIops READ readIops NOTIFY updated)
  Q_PROPERTY(double writeIops READ writeIops NOTIFY updated)
  Q_PROPERTY(double readBandwidth READ readBandwidth NOTIFY updated)    // bytes/s
  Q_PROPERTY(double writeBandwidth READ writeBandwidth NOTIFY updated)  // bytes/s
  Q_PROPERTY(double p50Ms READ p50Ms NOTIFY updated)
  Q_PROPERTY(double p99Ms READ p99Ms NOTIFY updated)
  Q_PROPERTY(double totalPending READ totalPending NOTIFY updated)
  // The window the figures above (rates and latency percentiles) cover:
  // the newest sample's interval, in milliseconds and as the tiles say it
  // ("last 50 ms").
  Q_PROPERTY(double intervalMs READ intervalMs NOTIFY updated)
  Q_PROPERTY(QString intervalText READ intervalText NOTIFY updated)
  Q_PROPERTY(QVariantList tasks READ tasks NOTIFY updated)
  Q_PROPERTY(QVariantList sections READ sections NOTIFY updated)
  Q_PROPERTY(bool hasRaid5 READ hasRaid5 NOTIFY updated)
  Q_PROPERTY(QVariantList marks READ marksList NOTIFY updated)
  Q_PROPERTY(int sampleCount READ sampleCount NOTIFY updated)
  // Members that failed (the array's "member ... faulty" events), one line
  // each, for the window's banner; "" when none since the last dismissal.
  Q_PROPERTY(QString memberAlert READ memberAlert NOTIFY updated)
  // Once every member is in sync again (replaced and rebuilt), the alert
  // gives way to this quiet note naming the members that had failed; ""
  // otherwise or once dismissed.
  Q_PROPERTY(QString memberNote READ memberNote NOTIFY updated)

 public:
  enum Status { Empty, Live };
  Q_ENUM(Status)

  // Share and pending are shown over a short sliding window so one 1 MiB
  // read more or less in a 50 ms interval does not swing the line by 10 %.
  static constexpr double kSmoothingSeconds = 0.5;
  static constexpr double kHistorySeconds = 300;

  explicit TelemetryModel(QObject* parent = nullptr);

  // Adds samples (oldest first) and emits updated() once.
  void addSamples(const std::vector<const telemetry::Sample*>& samples);
  void addSample(const telemetry::Sample& s) { addSamples({&s}); }
  // A new run: history and marks start over (a member alert stays: the
  // array is still degraded).
  Q_INVOKABLE void clear();
  // The banner's (and the note's) close button.
  Q_INVOKABLE void dismissMemberAlert();
  // A mark not carried by a sample (the GUI's own "run started" notes).
  void addMark(double t, const QString& label);

  // The series of one chart: "share" (%), "pending" (requests), "iops",
  // "bandwidth" (MB/s), "latency" (ms), "raid5" (stripe list lengths),
  // "raid5_writes" (full-stripe, rmw, rcw writes and prereads per second).
  const std::vector<SeriesLine>& lines(const QString& metric) const;
  const std::vector<TimeMark>& marks() const { return marks_; }

  int status() const { return has_data_ ? Live : Empty; }
  QString errorString() const { return {}; }
  bool hasData() const { return has_data_; }
  double elapsed() const { return elapsed_; }
  QVariantList members() const { return members_; }
  double readIops() const { return last_.read_iops; }
  double writeIops() const { return last_.write_iops; }
  double readBandwidth() const { return last_.read_bw_bytes; }
  double writeBandwidth() const { return last_.write_bw_bytes; }
  double p50Ms() const { return double(last_.clat_p50_ns) / 1e6; }
  double p99Ms() const { return double(last_.clat_p99_ns) / 1e6; }
  double totalPending() const { return total_pending_; }
  double intervalMs() const { return interval_ms_; }
  QString intervalText() const;
  QVariantList tasks() const { return tasks_; }
  QVariantList sections() const { return sections_; }
  bool hasRaid5() const { return has_raid5_; }
  QVariantList marksList() const;
  int sampleCount() const { return sample_count_; }
  QString memberAlert() const { return member_alert_.join(QLatin1Char('\n')); }
  QString memberNote() const { return member_note_; }

 signals:
  void updated();

 private:
  void take(const telemetry::Sample& s);
  // Parts of take(): the tasks with their speed, the level's sections (and
  // RAID5's series), the events as marks and alerts.
  void takeTasks(const telemetry::Sample& s, double t);
  void takeSections(const telemetry::Sample& s, double t, double dt);
  void takeEvents(const telemetry::Sample& s);
  // Every member in sync: the alert becomes the note.
  void takeHealth(const telemetry::Sample& s);
  // A member's short distinct name from its path (the path if not a member).
  QString shortName(const std::string& path) const;
  SeriesLine& line(const QString& metric, size_t index, const QString& name);
  void trim(double now);

  std::map<QString, std::vector<SeriesLine>> series_;
  std::vector<TimeMark> marks_;
  // Per member: reads and pending*interval over the smoothing window.
  struct Window {
    double t;
    std::vector<uint64_t> reads;
    std::vector<double> pending_time;
    std::vector<uint64_t> bytes;  // read + written
    double seconds;
  };
  std::deque<Window> window_;
  telemetry::ArraySample last_;
  QVariantList members_, tasks_, sections_;
  // Each running task's (kind+target) first sight: time (s) and bytes done,
  // for its speed and time left.
  std::map<QString, std::pair<double, double>> task_start_;
  QStringList member_alert_;
  QStringList failed_names_;  // the members the alert names
  QString member_note_;
  QStringList member_paths_, member_names_;  // the newest sample's members and their distinct short names
  double elapsed_ = 0, total_pending_ = 0, interval_ms_ = 0;
  bool has_data_ = false, has_raid5_ = false;
  int sample_count_ = 0;
};

}  // namespace rs::gui
