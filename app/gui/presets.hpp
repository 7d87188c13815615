// Benchmark presets: KDiskMark's four (sequential 1 MiB at depth 8 and 1,
// random 4 KiB at depth 32 and 1), each as a read and as a write, plus the
// user's own, kept in the settings. A preset is a typed job
// (workload::JobSpec) with a name; a run adds its duration.
#pragma once
#include <QString>
#include <QVariantMap>
#include <optional>
#include <vector>

#include "workload/job_spec.hpp"

namespace rs::gui {

struct Preset {
  QString key;    // "SEQ1M_Q8T1_read"; the user's: "user:<label>"
  QString label;  // "SEQ1M Q8T1 read"
  workload::JobSpec job;
  bool builtin = true;
  bool writes() const { return workload::does_write(job.rw); }
};

// A job as reports and the window name it: "read, bs 1M, iodepth 8, 1 job,
// io_uring, direct" (a mix with its read percentage: "randrw 70 % read").
QString describeJob(const workload::JobSpec& job);
// KDiskMark's way of naming a job: "SEQ1M Q8T1", "RND4K Q32T1".
QString shortJobName(const workload::JobSpec& job);

std::vector<Preset> builtinPresets();

// As QML and the settings see a preset: {key, label, builtin, writes, rw,
// bs (bytes), iodepth, numjobs, engine, direct, rwmixread, description}.
QVariantMap presetToMap(const Preset& p);
// A preset from the editor's fields; nullopt with *error naming the field
// that is wrong (an unknown rw, a block size that is not a size, ...).
std::optional<Preset> presetFromMap(const QVariantMap& m, QString* error);

// The user's presets, from the settings (the ones that no longer read are
// left out) and back.
std::vector<Preset> loadUserPresets();
void saveUserPresets(const std::vector<Preset>& presets);

}  // namespace rs::gui
