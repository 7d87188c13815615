#include "live_session.hpp"

#include <sys/stat.h>

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <algorithm>
#include <chrono>
#include <filesystem>

#include "io/device_profile.hpp"
#include "io/member_device.hpp"
#include "levels/levels.hpp"
#include "raid/array.hpp"
#include "workload/host_probe.hpp"
#include "workload/job_parser.hpp"

namespace rs::gui {

namespace {

constexpr uint64_t kDemoMemberBytes = 256ull << 20;
// The demo's two emulated disks: a SATA SSD and an Optane drive, both
// non-rotational, so md-legacy keeps a sequential read on one of them and
// md-rr (seed 000) spreads it; different speeds make the shares tell which.
const char* const kDemoProfiles[] = {"ssd-sata", "optane-pmem"};

struct Workload {
  const char* key;
  const char* label;
  std::vector<std::string> args;
};

// io_uring explicitly: fio's default engine (psync) runs one I/O at a time.
const std::vector<Workload>& liveWorkloads() {
  static const std::vector<Workload> w = {
      {"seqread", "Sequential read, 1 MiB blocks, queue depth 16", {"--rw=read", "--bs=1M", "--iodepth=16", "--ioengine=io_uring"}},
      {"randread", "Random read, 4 KiB blocks, queue depth 32", {"--rw=randread", "--bs=4k", "--iodepth=32", "--ioengine=io_uring"}},
      {"mixed", "Random 70 % read / 30 % write, 64 KiB, QD16", {"--rw=randrw", "--rwmixread=70", "--bs=64k", "--iodepth=16", "--ioengine=io_uring"}},
      {"seqwrite", "Sequential write, 1 MiB blocks, queue depth 8", {"--rw=write", "--bs=1M", "--iodepth=8", "--ioengine=io_uring"}},
  };
  return w;
}

bool sparse(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) return false;
  return double(st.st_blocks) * 512.0 < 0.9 * double(st.st_size);
}

std::vector<std::string> toStd(const QStringList& l) {
  std::vector<std::string> v;
  for (const auto& s : l) v.push_back(s.toStdString());
  return v;
}

}  // namespace

QStringList LiveSession::resourceDirs(const QString& kind) {
  QStringList dirs;
  const QByteArray env = qgetenv("RAIDSCOPE_DATA_DIR");
  if (!env.isEmpty()) dirs << QString::fromLocal8Bit(env) + "/" + kind;
  dirs << QDir::cleanPath(QCoreApplication::applicationDirPath() + "/../share/raidscope/" + kind);
  dirs << QStringLiteral(RAIDSCOPE_SOURCE_DIR "/resources/") + kind;
  return dirs;
}

LiveSession::LiveSession(QObject* parent) : QObject(parent), commands_(std::make_unique<CommandThread>()) {
  const QByteArray env = qgetenv("RAIDSCOPE_DEMO_DIR");
  demo_dir_ = env.isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + "/raidscope/demo"
                            : QString::fromLocal8Bit(env);
  timer_.setTimerType(Qt::PreciseTimer);
  connect(&timer_, &QTimer::timeout, this, &LiveSession::tick);
  setRefreshHz(20);
}

LiveSession::~LiveSession() {
  cancel_ = true;
  {
    std::lock_guard lock(mutex_);
    if (progress_ptr_) progress_ptr_->cancel = true;
  }
  joinRun();
  commands_.reset();
}

void LiveSession::setRefreshHz(int hz) {
  hz = std::clamp(hz, 1, 50);
  if (hz == refresh_hz_ && timer_.interval() > 0) return;
  refresh_hz_ = hz;
  timer_.setInterval(1000 / hz);
  emit refreshHzChanged();
}

QStringList LiveSession::workloads() const {
  QStringList out;
  for (const auto& w : liveWorkloads()) out << QString::fromLatin1(w.key);
  return out;
}

QString LiveSession::workloadLabel(const QString& key) const {
  for (const auto& w : liveWorkloads())
    if (key == QLatin1String(w.key)) return QString::fromUtf8(w.label);
  return key;
}

QStringList LiveSession::profiles() const {
  QStringList out;
  for (const auto& dir : resourceDirs("profiles"))
    for (const auto& p : io::list_profiles(dir.toStdString()).profiles)
      if (!out.contains(QString::fromStdString(p.name))) out << QString::fromStdString(p.name);
  return out;
}

void LiveSession::setStatus(Status s, const QString& text, const QString& error) {
  status_ = s;
  status_text_ = text;
  error_ = error;
  if (s != Preparing) progress_ = -1;
  emit statusChanged();
  emit progressChanged();
}

QString LiveSession::describeState(const raid::Array& a) {
  return QStringLiteral("%1 of %2 members, %3 MiB, %4")
      .arg(QString::fromLatin1(a.level().name))
      .arg(a.raid_disks())
      .arg(a.size_bytes() >> 20)
      .arg(QString::fromStdString(a.state_text()));
}

void LiveSession::composeArrayText() {
  QStringList names;
  for (const auto& m : members_) names << QFileInfo(m).fileName();
  if (demo_) {
    // The demo keeps its own words; its state once known (degraded after a Fail).
    array_text_ = tr("Demo: RAID1 of two image files, emulated as %1 and %2")
                      .arg(QString::fromLatin1(kDemoProfiles[0]), QString::fromLatin1(kDemoProfiles[1]));
    if (!state_.isEmpty()) array_text_ += QStringLiteral(" (%1)").arg(state_.section(", ", 2, -1));
  } else if (members_.isEmpty()) {
    array_text_ = tr("No array open");
  } else if (state_.isEmpty()) {  // not opened yet
    array_text_ = tr("%1 members: %2").arg(members_.size()).arg(names.join(", "));
  } else {
    array_text_ = state_ + ": " + names.join(", ");
  }
}

void LiveSession::openArray(const QStringList& members) {
  stop();
  joinRun();
  if (members != members_) overrides_.clear();
  members_ = members;
  demo_ = false;
  state_.clear();
  composeArrayText();
  emit membersChanged();
  if (members_.isEmpty()) {
    setStatus(Idle, tr("No array open"));
    return;
  }
  // Open it once to check it and learn its tunables (the Tune page works
  // before the first run); no I/O is run.
  RunRequest r;
  r.label = tr("Opening");
  r.job_args = {"--rw=read", "--bs=4k", "--size=4k"};
  r.inspect_only = true;
  beginRun(std::move(r), nullptr);
}

void LiveSession::arrayChanged(const QStringList& members, const QString& state) {
  if (!members.isEmpty()) members_ = members;
  if (!state.isEmpty()) state_ = state;
  const QString before = array_text_;
  composeArrayText();
  if (!members.isEmpty() || array_text_ != before) emit membersChanged();
}

void LiveSession::openDemo() {
  if (busy()) return;
  joinRun();
  QStringList m = {demo_dir_ + "/member0.img", demo_dir_ + "/member1.img"};
  if (m != members_) overrides_.clear();
  members_ = m;
  demo_ = true;
  state_.clear();
  composeArrayText();
  emit membersChanged();
  // The demo's disks are tunables like any other: remembered, so a later run keeps them.
  for (int i = 0; i < 2; ++i) remember("rd" + std::to_string(i) + "/device_profile", kDemoProfiles[i]);
  start(QStringLiteral("seqread"));
}

void LiveSession::start(const QString& key) {
  const Workload* w = nullptr;
  for (const auto& x : liveWorkloads())
    if (key == QLatin1String(x.key)) w = &x;
  if (!w) {
    setStatus(Error, tr("Not started"), tr("Unknown workload '%1' (one of: %2)").arg(key, workloads().join(", ")));
    return;
  }
  RunRequest r;
  r.label = QString::fromUtf8(w->label);
  r.job_args = w->args;
  for (const char* a : {"--direct=1", "--time_based", "--runtime=86400"}) r.job_args.push_back(a);
  beginRun(std::move(r), nullptr);
}

bool LiveSession::beginRun(RunRequest request, std::function<void(const RunReport&)> done) {
  if (busy()) return false;
  if (members_.isEmpty()) {
    setStatus(Error, tr("Not started"), tr("No array is open: create one or open its members on the Arrays page"));
    return false;
  }
  joinRun();
  // What the run thread needs from the GUI thread's state, copied now.
  request.members = toStd(members_);
  if (request.keep_overrides) request.remembered = overrides_;
  request.hz = unsigned(refresh_hz_);
  request.scale = profile_scale_;
  cancel_ = false;
  prep_progress_ = -1;
  telemetry_.clear();
  feed_.drain();
  const bool prepare = demo_ && !request.inspect_only;
  const bool inspect = request.inspect_only;
  if (!inspect) workload_name_ = request.label;
  if (inspect)
    setStatus(Opening, tr("Opening the array…"));
  else
    setStatus(prepare ? Preparing : Running, prepare ? tr("Preparing the demo array…") : tr("Starting…"));
  ticks_ = 0;
  timer_.start();
  run_thread_ = std::thread([this, request = std::move(request), prepare, inspect, done = std::move(done)]() mutable {
    RunReport report = runOnThread(std::move(request), prepare);
    QMetaObject::invokeMethod(
        this,
        [this, report = std::move(report), inspect, done = std::move(done)]() mutable {
          tick();  // the tail sample
          timer_.stop();
          if (!report.tunables.empty()) tunables_.refresh(std::move(report.tunables));
          if (!report.array_text.isEmpty()) arrayChanged({}, report.array_text);
          if (inspect && report.ok)
            setStatus(Idle, tr("Ready"));
          else if (report.ok || report.cancelled)
            setStatus(Stopped, report.cancelled ? tr("Stopped") : tr("Finished"));
          else
            setStatus(Error, tr("Failed"), report.error);
          emit runFinished(report.ok, report.error);
          if (done) done(report);
        },
        Qt::QueuedConnection);
  });
  return true;
}

void LiveSession::stop() {
  if (!busy()) return;
  cancel_ = true;
  {
    std::lock_guard lock(mutex_);
    if (progress_ptr_) progress_ptr_->cancel = true;
  }
  setStatus(Stopping, tr("Stopping…"));
}

void LiveSession::joinRun() {
  if (run_thread_.joinable()) run_thread_.join();
}

void LiveSession::remember(const std::string& name, const std::string& value) {
  auto it = std::find_if(overrides_.begin(), overrides_.end(), [&](const auto& kv) { return kv.first == name; });
  if (it != overrides_.end()) overrides_.erase(it);
  overrides_.emplace_back(name, value);
}

QString LiveSession::setTunable(const QString& name, const QString& value) {
  if (tunables_.rowCount() == 0)
    return tr("The tunables are known once the array has run: press Start first");
  if (QString bad = tunables_.check(name, value); !bad.isEmpty()) return bad;
  const std::string n = name.toStdString(), v = value.trimmed().toStdString();
  remember(n, v);
  std::shared_ptr<workload::BenchSession> session;
  {
    std::lock_guard lock(mutex_);
    session = current_;
  }
  if (!session) return {};  // applied at the next start
  commands_->post([this, session, n, v] {
    rs::Status st = session->tunables()->set(n, v);
    auto infos = session->tunables()->list();
    QMetaObject::invokeMethod(
        this,
        [this, st, n, infos = std::move(infos)]() mutable {
          tunables_.refresh(std::move(infos));
          if (!st) emit tunableFailed(QString::fromStdString(n), QString::fromStdString(st.error().message));
        },
        Qt::QueuedConnection);
  });
  return {};
}

void LiveSession::withArray(std::function<QString(raid::Array*)> work, std::function<void(const QString&)> done) {
  std::shared_ptr<workload::BenchSession> session;
  {
    std::lock_guard lock(mutex_);
    session = current_;
  }
  commands_->post([this, session, work = std::move(work), done = std::move(done)] {
    QString msg = work(session ? session->array() : nullptr);
    QMetaObject::invokeMethod(this, [msg, done] { if (done) done(msg); }, Qt::QueuedConnection);
  });
}

// GUI thread, refreshHz times a second while a run goes on.
void LiveSession::tick() {
  auto samples = feed_.drain();
  if (!samples.empty()) {
    std::vector<const telemetry::Sample*> ptrs;
    for (auto& s : samples) ptrs.push_back(s.get());
    telemetry_.addSamples(ptrs);
  }
  const double pp = prep_progress_.load();
  if (status_ == Preparing && pp != progress_) {
    progress_ = pp;
    emit progressChanged();
  }
  std::shared_ptr<workload::BenchSession> session;
  {
    std::lock_guard lock(mutex_);
    session = current_;
  }
  if (session && status_ == Preparing) setStatus(Running, tr("Running"));
  if (status_ == Running && session && samples.size() && status_text_ != tr("Running")) setStatus(Running, tr("Running"));
  // The registry's values twice a second (a set from elsewhere, a profile
  // switched by a run): list() calls getters only, which never block.
  if (session && (ticks_++ % std::max(1, refresh_hz_ / 2)) == 0) tunables_.refresh(session->tunables()->list());
}

rs::Status LiveSession::prepareDemo() {
  const std::string dir = demo_dir_.toStdString();
  const std::string m0 = dir + "/member0.img", m1 = dir + "/member1.img";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return make_error(Errc::io_error, dir + ": cannot create the demo folder: " + ec.message());
  const bool has0 = std::filesystem::exists(m0, ec), has1 = std::filesystem::exists(m1, ec);
  if (has0 != has1)
    return make_error(Errc::refused, "the demo folder " + dir + " holds only one of member0.img and member1.img; "
                                      "remove it to start the demo afresh");
  if (!has0) {
    raid::CreateOptions o;
    o.level = 1;
    o.raid_disks = 2;
    o.name = "demo";
    o.create_files_bytes = kDemoMemberBytes;
    auto made = raid::Array::create(levels::builtin(), o, {m0, m1});
    if (!made) return made.error();
    if (rs::Status st = (*made)->close(); !st) return st;
  }
  if (sparse(m0) || sparse(m1)) {
    // Written through once, so reads reach the disk (holes read as zeros for free).
    workload::BenchSpec spec;
    auto parsed = workload::parse_cli_job({"--name=fill", "--rw=write", "--bs=1M", "--iodepth=8", "--ioengine=io_uring", "--direct=1"});
    if (!parsed.ok) return make_error(Errc::invalid_argument, parsed.error);
    spec.jobs = parsed.jobs;
    spec.global_options = parsed.global.given;
    spec.array_members = {m0, m1};
    workload::BenchNotes notes;
    auto session = workload::BenchSession::open(std::move(spec), &notes);
    if (!session) return session.error();
    workload::RunProgress progress;
    {
      std::lock_guard lock(mutex_);
      progress_ptr_ = &progress;
      if (cancel_) progress.cancel = true;
    }
    const double total = double((*session)->array()->size_bytes());
    std::atomic<bool> over{false};
    std::thread watch([&] {
      while (!over) {
        prep_progress_ = std::min(1.0, double(progress.bytes.load()) / total);
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
    });
    auto out = (*session)->run(progress, nullptr, &notes);
    over = true;
    watch.join();
    {
      std::lock_guard lock(mutex_);
      progress_ptr_ = nullptr;
    }
    (void)(*session)->close();
    if (cancel_) return make_error(Errc::cancelled, "stopped while the demo was being prepared");
    if (!out.ok) return make_error(Errc::io_error, "writing the demo array failed: " + out.error);
  }
  return {};
}

RunReport LiveSession::runOnThread(RunRequest req, bool prepare_demo) {
  RunReport rep;
  if (prepare_demo) {
    if (rs::Status st = prepareDemo(); !st) {
      rep.cancelled = st.error().code == Errc::cancelled;
      rep.error = QString::fromStdString(st.error().message);
      return rep;
    }
  }
  workload::BenchSpec spec;
  if (!req.job_args.empty()) {
    std::vector<std::string> args = {"--name=gui"};
    args.insert(args.end(), req.job_args.begin(), req.job_args.end());
    auto parsed = workload::parse_cli_job(args);
    if (!parsed.ok) {
      rep.error = QString::fromStdString(parsed.error);
      return rep;
    }
    spec.jobs = parsed.jobs;
    spec.global_options = parsed.global.given;
  }
  if (!req.job_file.empty()) {
    auto parsed = workload::parse_job_file(req.job_file, "job file");
    if (!parsed.ok) {
      rep.error = QString::fromStdString(parsed.error);
      return rep;
    }
    spec.jobs.insert(spec.jobs.end(), parsed.jobs.begin(), parsed.jobs.end());
    spec.global_options = parsed.global.given;
  }
  const std::vector<std::string>& members = req.members;
  const std::vector<std::pair<std::string, std::string>>& set = req.remembered;
  const unsigned hz = req.hz;
  const double scale = req.scale;
  // The run's own settings (a before/after's value) are not the user's:
  // set after the open and put back when the run ends.
  std::vector<std::pair<std::string, std::string>> all_set = set;
  for (auto& kv : req.set) all_set.push_back(kv);
  spec.array_members = members;
  spec.set = set;
  spec.sample_hz = hz;
  for (const auto& d : resourceDirs("profiles")) spec.profile_dirs.push_back(d.toStdString());

  // Emulated members share the host disk: slow every profile alike when
  // together they would ask more of it than it gives.
  double need = 0;
  for (const auto& [name, value] : all_set)
    if (name.size() > 15 && name.compare(name.size() - 15, 15, "/device_profile") == 0 && value != "none") {
      std::string err;
      if (auto p = io::find_profile(value, spec.profile_dirs, &err)) need += p->seq_read_bw * p->scale;
    }
  if (scale > 0) {
    spec.profile_scale = scale;
  } else if (need > 0 && !members.empty() && !req.inspect_only) {
    std::string err;
    if (auto dev = io::MemberDevice::open(members[0], io::OpenMode::ReadOnly, &err)) {
      const double host = workload::probe_read_bandwidth(*dev, 1 << 20, 64ull << 20);
      if (host > 0 && need > 0.8 * host) spec.profile_scale = std::max(0.05, 0.8 * host / need);
    }
  }

  workload::BenchNotes notes;
  auto opened = workload::BenchSession::open(std::move(spec), &notes);
  if (!opened) {
    rep.error = QString::fromStdString(opened.error().message);
    return rep;
  }
  std::shared_ptr<workload::BenchSession> session(std::move(*opened));
  if (raid::Array* a = session->array()) rep.array_text = describeState(*a);
  std::vector<std::pair<std::string, std::string>> restore;
  for (const auto& [name, value] : req.set) {
    auto before = session->tunables()->get(name);
    if (rs::Status st = session->tunables()->set(name, value); !st) {
      rep.error = QString::fromStdString(st.error().message);
      return rep;
    }
    if (before) restore.emplace_back(name, *before);
  }
  if (req.inspect_only) {
    rep.tunables = session->tunables()->list();
    if (rs::Status st = session->close(); !st) rep.error = QString::fromStdString(st.error().message);
    if (raid::Array* a = session->array()) rep.array_text = describeState(*a);  // as closed: clean
    rep.ok = rep.error.isEmpty();
    return rep;
  }
  // What a report needs of the run, gathered as `bench --save` does.
  report::BenchCapture capture;
  if (req.keep_document) {
    capture.command = {"raidscope", "(GUI) " + req.label.toStdString()};
    capture.command.insert(capture.command.end(), req.job_args.begin(), req.job_args.end());
    capture.target = session->target().describe();
    if (raid::Array* a = session->array()) {
      capture.array = report::array_facts(*a);
      capture.tunables_start = report::tunable_values(a->tunables());
      if (auto p = a->tunables().get("read_policy")) capture.policy = *p;
    }
  }
  workload::RunProgress progress;
  {
    std::lock_guard lock(mutex_);
    current_ = session;
    progress_ptr_ = &progress;
    if (cancel_) progress.cancel = true;
  }
  std::vector<uint64_t> reads;
  auto out = session->run(
      progress,
      [this, &reads, &capture, keep = req.keep_document](const telemetry::Sample& s) {
        feed_.push(s);
        if (keep) capture.telemetry_lines.push_back(telemetry::to_json_line(s));
        if (reads.size() < s.members.size()) reads.resize(s.members.size());
        for (size_t i = 0; i < s.members.size(); ++i) reads[i] += s.members[i].reads;
      },
      &notes);
  {
    std::lock_guard lock(mutex_);
    current_.reset();
    progress_ptr_ = nullptr;
  }
  // A command may still hold the session for a moment: close it here, after.
  while (session.use_count() > 1) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  if (req.keep_document)
    if (raid::Array* a = session->array()) {
      capture.tunables_end = report::tunable_values(a->tunables());
      capture.array = report::array_facts(*a);
    }
  for (auto it = restore.rbegin(); it != restore.rend(); ++it) (void)session->tunables()->set(it->first, it->second);
  rep.tunables = session->tunables()->list();
  if (rs::Status st = session->close(); !st) notes.warnings.push_back(st.error().message);
  // As the run leaves it (a member failed meanwhile, closed clean), not as it opened.
  if (raid::Array* a = session->array()) rep.array_text = describeState(*a);
  session.reset();

  uint64_t all = 0;
  for (auto r : reads) all += r;
  rep.members = int(std::min<size_t>(reads.size(), 8));
  for (int i = 0; i < rep.members; ++i) rep.share[i] = all ? 100.0 * double(reads[size_t(i)]) / double(all) : 0;
  rep.warnings = notes.warnings;
  if (req.keep_document && out.ok) rep.document = report::bench_document(out.results, capture);
  rep.results = std::move(out.results);
  rep.cancelled = cancel_;
  rep.ok = out.ok && !rep.cancelled;
  if (!out.ok) rep.error = QString::fromStdString(out.error);
  return rep;
}

}  // namespace rs::gui
