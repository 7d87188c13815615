#include "telemetry_model.hpp"

#include <QVariantMap>
#include <algorithm>
#include <cmath>

#include "member_names.hpp"

namespace rs::gui {

namespace {

const std::vector<SeriesLine> kNoLines;

// The raid5 section's stripe list lengths (md's handle/hold/delayed/
// inactive lists and the active stripes), charted together as they are.
const char* const kRaid5Lists[] = {"handle", "hold", "delayed", "inactive", "active_stripes"};
// Its per-interval write counts, charted as rates per second (short names:
// four legends share a third of the window).
const std::pair<const char*, const char*> kRaid5Writes[] = {{"full_stripe_writes", "full-stripe"},
                                                            {"rmw_writes", "rmw"},
                                                            {"rcw_writes", "rcw"},
                                                            {"prereads", "prereads"}};

}  // namespace

TelemetryModel::TelemetryModel(QObject* parent) : QObject(parent) {}

void TelemetryModel::clear() {
  series_.clear();
  marks_.clear();
  window_.clear();
  last_ = {};
  members_.clear();
  tasks_.clear();
  sections_.clear();
  elapsed_ = total_pending_ = interval_ms_ = 0;
  has_data_ = has_raid5_ = false;
  sample_count_ = 0;
  emit updated();
}

void TelemetryModel::dismissMemberAlert() {
  member_alert_.clear();
  failed_names_.clear();
  member_note_.clear();
  emit updated();
}

void TelemetryModel::addMark(double t, const QString& label) {
  marks_.push_back({t, label});
  emit updated();
}

const std::vector<SeriesLine>& TelemetryModel::lines(const QString& metric) const {
  auto it = series_.find(metric);
  return it == series_.end() ? kNoLines : it->second;
}

QString TelemetryModel::shortName(const std::string& path) const {
  const qsizetype i = member_paths_.indexOf(QString::fromStdString(path));
  return i >= 0 ? member_names_[i] : QString::fromStdString(path);
}

SeriesLine& TelemetryModel::line(const QString& metric, size_t index, const QString& name) {
  auto& v = series_[metric];
  if (v.size() <= index) v.resize(index + 1);
  if (v[index].name != name) v[index].name = name;
  return v[index];
}

void TelemetryModel::addSamples(const std::vector<const telemetry::Sample*>& samples) {
  if (samples.empty()) return;
  for (const auto* s : samples) take(*s);
  trim(elapsed_);
  emit updated();
}

void TelemetryModel::take(const telemetry::Sample& s) {
  const double t = double(s.t_ns) / 1e9;
  const double dt = double(s.interval_ns) / 1e9;
  const size_t n = s.members.size();
  QStringList paths;
  for (const auto& m : s.members) paths << QString::fromStdString(m.name);
  if (paths != member_paths_) member_paths_ = paths, member_names_ = distinctNames(paths);
  has_data_ = true;
  ++sample_count_;
  elapsed_ = t;
  interval_ms_ = double(s.interval_ns) / 1e6;
  last_ = s.array;

  // Sliding window for shares and pending depths.
  Window w{t, {}, {}, {}, dt};
  for (const auto& m : s.members) {
    w.reads.push_back(m.reads);
    w.pending_time.push_back(m.avg_pending * dt);
    w.bytes.push_back(m.read_bytes + m.write_bytes);
  }
  window_.push_back(std::move(w));
  while (window_.size() > 1 && t - window_.front().t >= kSmoothingSeconds) window_.pop_front();
  std::vector<uint64_t> reads(n, 0);
  std::vector<double> pending_time(n, 0);
  std::vector<uint64_t> bytes(n, 0);
  double seconds = 0;
  for (const auto& x : window_) {
    if (x.reads.size() != n) continue;  // the member set changed: older entries do not add up
    for (size_t i = 0; i < n; ++i)
      reads[i] += x.reads[i], pending_time[i] += x.pending_time[i], bytes[i] += x.bytes[i];
    seconds += x.seconds;
  }
  uint64_t all_reads = 0;
  for (auto r : reads) all_reads += r;

  members_.clear();
  total_pending_ = 0;
  for (size_t i = 0; i < n; ++i) {
    const auto& m = s.members[i];
    const double share = all_reads ? 100.0 * double(reads[i]) / double(all_reads) : 0.0;
    const double pending = seconds > 0 ? pending_time[i] / seconds : double(m.nr_pending);
    total_pending_ += m.nr_pending;
    QVariantMap row;
    row["name"] = member_names_[qsizetype(i)];
    row["path"] = QString::fromStdString(m.name);
    row["state"] = QString::fromStdString(m.state);
    row["share"] = share;
    row["pending"] = int(m.nr_pending);
    row["avgPending"] = pending;
    row["readBandwidth"] = dt > 0 ? double(m.read_bytes) / dt : 0.0;
    row["writeBandwidth"] = dt > 0 ? double(m.write_bytes) / dt : 0.0;
    // Over the shares' window, as the Members panel shows it beside the
    // share (the newest interval's read 0 MB/s beside a 32 % share).
    row["bandwidth"] = seconds > 0 ? double(bytes[i]) / seconds : 0.0;
    row["errors"] = qulonglong(m.errors);
    members_.push_back(row);
    // No read in the window: no share to draw (0 % for every member would
    // be a false point, and pull the legend's mean down).
    if (all_reads) line("share", i, member_names_[qsizetype(i)]).points.push_back({t, share});
    line("pending", i, member_names_[qsizetype(i)]).points.push_back({t, pending});
  }
  line("bandwidth", 0, "read").points.push_back({t, s.array.read_bw_bytes / 1e6});
  line("bandwidth", 1, "write").points.push_back({t, s.array.write_bw_bytes / 1e6});
  line("iops", 0, "read").points.push_back({t, s.array.read_iops});
  line("iops", 1, "write").points.push_back({t, s.array.write_iops});
  if (s.array.clat_samples > 0 || s.array.clat_p50_ns > 0) {
    line("latency", 0, "p50").points.push_back({t, double(s.array.clat_p50_ns) / 1e6});
    line("latency", 1, "p99").points.push_back({t, double(s.array.clat_p99_ns) / 1e6});
  }

  takeTasks(s, t);
  takeSections(s, t, dt);
  // The sample that carries a failure may have read the members just
  // before the failure was published: health is judged from the next ones.
  const qsizetype alerts = member_alert_.size();
  takeEvents(s);
  if (member_alert_.size() == alerts) takeHealth(s);
}

void TelemetryModel::takeTasks(const telemetry::Sample& s, double t) {
  tasks_.clear();
  QStringList seen;
  for (const auto& task : s.array.tasks) {
    QVariantMap row;
    row["kind"] = QString::fromStdString(task.kind);
    row["target"] = shortName(task.target);
    row["fraction"] = task.total ? double(task.done) / double(task.total) : 0.0;
    row["done"] = double(task.done);
    row["total"] = double(task.total);
    // Speed over the task's life as seen here, and the time left at it.
    const QString key = row["kind"].toString() + "|" + QString::fromStdString(task.target);
    const auto [it, fresh] = task_start_.try_emplace(key, t, double(task.done));
    const double secs = t - it->second.first;
    const double speed = !fresh && secs > 0 ? (double(task.done) - it->second.second) / secs : 0.0;
    row["speed"] = speed;  // bytes/s, 0 until known
    row["secondsLeft"] = speed > 0 ? double(task.total - std::min(task.done, task.total)) / speed : -1.0;
    seen << key;
    tasks_.push_back(row);
  }
  for (auto it = task_start_.begin(); it != task_start_.end();)
    it = seen.contains(it->first) ? std::next(it) : task_start_.erase(it);
}

void TelemetryModel::takeSections(const telemetry::Sample& s, double t, double dt) {
  // Sections are shown generically (name, key = value), so a personality's
  // new section (raid5 once it lands) appears without GUI work.
  sections_.clear();
  has_raid5_ = false;
  for (const auto& sec : s.sections) {
    QVariantList values;
    for (const auto& [key, value] : sec.values) {
      QVariantMap kv;
      kv["key"] = QString::fromStdString(key);
      kv["value"] = value;
      values.push_back(kv);
    }
    QVariantMap row;
    row["name"] = QString::fromStdString(sec.name);
    row["values"] = values;
    sections_.push_back(row);
    if (sec.name == "raid5") {
      has_raid5_ = true;
      auto find = [&](const char* key) {
        return std::find_if(sec.values.begin(), sec.values.end(),
                            [&](const auto& kv) { return kv.first == key; });
      };
      size_t idx = 0;
      for (const char* list : kRaid5Lists)
        if (auto it = find(list); it != sec.values.end())
          line("raid5", idx++, QString::fromLatin1(list)).points.push_back({t, it->second});
      idx = 0;
      for (const auto& [count, label] : kRaid5Writes)
        if (auto it = find(count); it != sec.values.end())
          line("raid5_writes", idx++, QString::fromLatin1(label))
              .points.push_back({t, dt > 0 ? it->second / dt : 0});
    }
  }
}

void TelemetryModel::takeEvents(const telemetry::Sample& s) {
  for (const auto& e : s.events) {
    QString label = QString::fromStdString(e.name);
    if (!e.value.empty()) label += "=" + QString::fromStdString(e.value);
    if (e.kind != "tunable" && !e.kind.empty() && e.value.empty())
      label = QString::fromStdString(e.kind) + " " + label;
    // A member by its short name (a temporary folder's path cut the label).
    marks_.push_back({double(e.t_ns) / 1e9, withShortNames(label, member_paths_, member_names_)});
    if (e.kind == "member" && e.value == "faulty") {
      member_alert_ << tr("Member %1 failed: %2. The array is degraded.")
                           .arg(shortName(e.name), QString::fromStdString(e.message));
      failed_names_ << shortName(e.name);
      member_note_.clear();
    }
  }
}

void TelemetryModel::takeHealth(const telemetry::Sample& s) {
  if (member_alert_.isEmpty() || s.members.empty()) return;
  // md's words for a member that holds its data: anything else (faulty,
  // missing, recovering) leaves the array degraded.
  for (const auto& m : s.members)
    if (m.state != "active sync") return;
  member_note_ = tr("%1 failed earlier; the array is healthy again (all %2 members in sync).")
                     .arg(failed_names_.join(", "))
                     .arg(s.members.size());
  member_alert_.clear();
  failed_names_.clear();
}

void TelemetryModel::trim(double now) {
  const double oldest = now - kHistorySeconds;
  for (auto& [metric, lines] : series_)
    for (auto& l : lines)
      while (!l.points.empty() && l.points.front().x() < oldest) l.points.pop_front();
  marks_.erase(std::remove_if(marks_.begin(), marks_.end(), [&](const TimeMark& m) { return m.t < oldest; }),
               marks_.end());
}

QString TelemetryModel::intervalText() const {
  if (!(interval_ms_ > 0)) return {};
  // To 10 ms: the intervals jitter around the sampler's period (47, 50,
  // 53 ms at 20 Hz) and the caption would flicker with them.
  if (interval_ms_ < 1000)
    return tr("last %1 ms").arg(std::max<long>(10, 10 * std::lround(interval_ms_ / 10)));
  return tr("last %1 s").arg(interval_ms_ / 1000, 0, 'f', 1);
}

QVariantList TelemetryModel::marksList() const {
  QVariantList out;
  for (const auto& m : marks_) {
    QVariantMap row;
    row["t"] = m.t;
    row["label"] = m.label;
    out.push_back(row);
  }
  return out;
}

}  // namespace rs::gui
