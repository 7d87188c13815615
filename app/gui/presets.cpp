#include "presets.hpp"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QObject>

#include "app_settings.hpp"
#include "fio/size_parse.hpp"

namespace rs::gui {

namespace {

using workload::IoEngine;
using workload::RwMode;

// The access patterns a preset offers, by fio's names.
const std::pair<const char*, RwMode> kPatterns[] = {
    {"read", RwMode::read},           {"write", RwMode::write},  {"randread", RwMode::randread},
    {"randwrite", RwMode::randwrite}, {"rw", RwMode::readwrite}, {"randrw", RwMode::randrw}};
// The engines: io_uring (the array's own path), libaio as KDiskMark uses,
// psync (one I/O at a time, fio's default).
const std::pair<const char*, IoEngine> kEngines[] = {
    {"io_uring", IoEngine::io_uring}, {"libaio", IoEngine::libaio}, {"psync", IoEngine::psync}};

// A block size as fio and KDiskMark write it: "1M", "4K", "1536" (bytes).
QString size(uint32_t bytes) {
  if (bytes >= (1u << 20) && bytes % (1u << 20) == 0) return QString::number(bytes >> 20) + "M";
  if (bytes >= 1024 && bytes % 1024 == 0) return QString::number(bytes >> 10) + "K";
  return QString::number(bytes);
}

Preset kdiskmark(RwMode rw, uint32_t bs, unsigned depth) {
  Preset p;
  p.job.rw = rw;
  p.job.block_bytes = bs;
  p.job.iodepth = depth;
  p.job.name = shortJobName(p.job).replace(' ', '_').toStdString();
  p.label = shortJobName(p.job) + (workload::does_write(rw) ? QObject::tr(" write") : QObject::tr(" read"));
  p.key = QString(p.label).replace(' ', '_');
  return p;
}

}  // namespace

QString describeJob(const workload::JobSpec& job) {
  QString rw =
      QString::fromLatin1(workload::to_string(job.rw).data(), qsizetype(workload::to_string(job.rw).size()));
  if (workload::is_mixed(job.rw)) rw += QObject::tr(" %1 % read").arg(job.rwmixread);
  const auto engine = workload::to_string(job.ioengine);
  return QObject::tr("%1, bs %2, iodepth %3, %4, %5, %6")
      .arg(rw, size(job.block_bytes))
      .arg(job.iodepth)
      .arg(job.numjobs == 1 ? QObject::tr("1 job") : QObject::tr("%1 jobs").arg(job.numjobs))
      .arg(QString::fromLatin1(engine.data(), qsizetype(engine.size())),
           job.direct ? QObject::tr("direct") : QObject::tr("buffered"));
}

QString shortJobName(const workload::JobSpec& job) {
  const bool random = workload::is_random(job.rw);
  return QStringLiteral("%1%2 Q%3T%4")
      .arg(random ? "RND" : "SEQ", size(job.block_bytes))
      .arg(job.iodepth)
      .arg(job.numjobs);
}

std::vector<Preset> builtinPresets() {
  std::vector<Preset> out;
  for (bool write : {false, true}) {
    const RwMode seq = write ? RwMode::write : RwMode::read,
                 rnd = write ? RwMode::randwrite : RwMode::randread;
    out.push_back(kdiskmark(seq, 1 << 20, 8));
    out.push_back(kdiskmark(seq, 1 << 20, 1));
    out.push_back(kdiskmark(rnd, 4096, 32));
    out.push_back(kdiskmark(rnd, 4096, 1));
  }
  return out;
}

QVariantMap presetToMap(const Preset& p) {
  QString rw, engine;
  for (const auto& [name, mode] : kPatterns)
    if (mode == p.job.rw) rw = name;
  for (const auto& [name, e] : kEngines)
    if (e == p.job.ioengine) engine = name;
  return {{"key", p.key},
          {"label", p.label},
          {"builtin", p.builtin},
          {"writes", p.writes()},
          {"rw", rw},
          {"bs", size(p.job.block_bytes)},
          {"iodepth", p.job.iodepth},
          {"numjobs", p.job.numjobs},
          {"engine", engine},
          {"direct", p.job.direct},
          {"rwmixread", p.job.rwmixread},
          {"description", describeJob(p.job)}};
}

std::optional<Preset> presetFromMap(const QVariantMap& m, QString* error) {
  auto fail = [&](const QString& why) -> std::optional<Preset> {
    if (error) *error = why;
    return std::nullopt;
  };
  Preset p;
  p.builtin = false;
  p.label = m.value("label").toString().trimmed();
  if (p.label.isEmpty()) return fail(QObject::tr("Give the preset a name"));
  p.key = "user:" + p.label;
  const QString rw = m.value("rw").toString();
  bool found = false;
  for (const auto& [name, mode] : kPatterns)
    if (rw == QLatin1String(name)) p.job.rw = mode, found = true;
  if (!found)
    return fail(QObject::tr("Pattern '%1': one of read, write, randread, randwrite, rw, randrw").arg(rw));
  const auto bs = fio::parse_size(m.value("bs").toString().trimmed().toStdString());
  if (!bs.ok() || bs->value < 512 || bs->value > (64u << 20) || bs->value % 512)
    return fail(
        QObject::tr("Block size '%1': a multiple of 512 from 512 to 64M").arg(m.value("bs").toString()));
  p.job.block_bytes = uint32_t(bs->value);
  const int depth = m.value("iodepth").toInt(), jobs = m.value("numjobs").toInt();
  if (depth < 1 || depth > 1024) return fail(QObject::tr("Queue depth %1: 1 to 1024").arg(depth));
  if (jobs < 1 || jobs > 64) return fail(QObject::tr("Jobs %1: 1 to 64").arg(jobs));
  p.job.iodepth = unsigned(depth);
  p.job.numjobs = unsigned(jobs);
  found = false;
  for (const auto& [name, e] : kEngines)
    if (m.value("engine", "io_uring").toString() == QLatin1String(name)) p.job.ioengine = e, found = true;
  if (!found)
    return fail(QObject::tr("Engine '%1': io_uring, libaio or psync").arg(m.value("engine").toString()));
  p.job.direct = m.value("direct", true).toBool();
  const int mix = m.value("rwmixread", 70).toInt();
  if (mix < 0 || mix > 100) return fail(QObject::tr("Read mix %1: a percentage, 0 to 100").arg(mix));
  p.job.rwmixread = unsigned(mix);
  p.job.name = QString(p.label).replace(' ', '_').toStdString();
  return p;
}

std::vector<Preset> loadUserPresets() {
  const auto settings = appSettings();
  const QJsonArray list = QJsonDocument::fromJson(settings->value("presets/user").toByteArray()).array();
  std::vector<Preset> out;
  for (const auto& v : list)
    if (auto p = presetFromMap(v.toObject().toVariantMap(), nullptr)) out.push_back(*p);
  return out;
}

void saveUserPresets(const std::vector<Preset>& presets) {
  QJsonArray list;
  for (const auto& p : presets) list.push_back(QJsonObject::fromVariantMap(presetToMap(p)));
  appSettings()->setValue("presets/user", QJsonDocument(list).toJson(QJsonDocument::Compact));
}

}  // namespace rs::gui
