#include "live_session.hpp"

#include <sys/stat.h>

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QPointer>
#include <QStandardPaths>
#include <algorithm>
#include <chrono>
#include <filesystem>

#include "array_memory.hpp"
#include "balance/policy.hpp"
#include "fio/job_parser.hpp"
#include "fio/log_files.hpp"
#include "io/device_profile.hpp"
#include "io/member_device.hpp"
#include "levels/levels.hpp"
#include "member_names.hpp"
#include "raid/array.hpp"
#include "workload/host_probe.hpp"
#include "workload/job_spec.hpp"

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
  workload::JobSpec spec;
};

// A live workload: time based until Stop (a day at most), direct, io_uring
// (fio's default engine, psync, runs one I/O at a time).
workload::JobSpec liveJob(workload::RwMode rw, uint32_t bs, unsigned depth, unsigned mix = 50) {
  workload::JobSpec j;
  j.name = "live";
  j.rw = rw;
  j.block_bytes = bs;
  j.iodepth = depth;
  j.rwmixread = mix;
  j.time_based = true;
  j.runtime = std::chrono::hours(24);
  return j;
}

const std::vector<Workload>& liveWorkloads() {
  using workload::RwMode;
  static const std::vector<Workload> w = {
      {"seqread", "Sequential read, 1 MiB blocks, queue depth 16", liveJob(RwMode::read, 1 << 20, 16)},
      {"randread", "Random read, 4 KiB blocks, queue depth 32", liveJob(RwMode::randread, 4096, 32)},
      {"mixed", "Random 70 % read / 30 % write, 64 KiB, QD16", liveJob(RwMode::randrw, 64 << 10, 16, 70)},
      {"seqwrite", "Sequential write, 1 MiB blocks, queue depth 8", liveJob(RwMode::write, 1 << 20, 8)},
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
  demo_dir_ = env.isEmpty()
                  ? QStandardPaths::writableLocation(QStandardPaths::GenericDataLocation) + "/raidscope/demo"
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
  closeOnThread();  // the run thread has ended: the array is closed clean here
  commands_.reset();
}

void LiveSession::setRefreshHz(int hz) {
  hz = std::clamp(hz, 1, 50);
  if (hz == refresh_hz_ && timer_.interval() > 0) return;
  refresh_hz_ = hz;
  timer_.setInterval(1000 / hz);
  if (auto array = arraySession()) (void)array->set_sample_rate(unsigned(hz));  // the dashboard's rate
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

QString LiveSession::describeState(const session::SessionStatus& a) {
  if (a.level.empty()) return {};  // closed
  return QStringLiteral("%1 of %2 members, %3 MiB, %4")
      .arg(QString::fromStdString(a.level))
      .arg(a.raid_disks)
      .arg(a.size_bytes >> 20)
      .arg(QString::fromStdString(a.state));
}

std::shared_ptr<session::ArraySession> LiveSession::arraySession() const {
  std::lock_guard lock(mutex_);
  return array_;
}

session::SessionOptions LiveSession::sessionOptions() const {
  session::SessionOptions o;
  o.sample_hz = unsigned(refresh_hz_);
  o.keep_open = true;  // between runs; closed when another array opens, or the window goes
  for (const auto& d : resourceDirs("profiles")) o.profile_dirs.push_back(d.toStdString());
  return o;
}

void LiveSession::composeArrayText() {
  const QStringList names = distinctNames(members_);
  if (demo_) {
    // The demo keeps its own words; its state once known (degraded after a Fail).
    array_text_ = tr("Demo: RAID1 of two image files, emulated as %1 and %2")
                      .arg(QString::fromLatin1(kDemoProfiles[0]), QString::fromLatin1(kDemoProfiles[1]));
    if (!state_.isEmpty()) array_text_ += QStringLiteral(" (%1)").arg(state_.section(", ", 2, -1));
  } else if (members_.isEmpty()) {
    array_text_ = tr("No array open");
  } else if (state_.isEmpty()) {  // not opened yet
    array_text_ = members_.size() == 1 ? tr("1 member: %1").arg(names.join(", "))
                                       : tr("%1 members: %2").arg(members_.size()).arg(names.join(", "));
  } else {
    array_text_ = state_ + ": " + names.join(", ");
  }
}

void LiveSession::openArray(const QStringList& members) {
  assemble_ = {};  // each risk is accepted for one open, on purpose
  useArray(members, nullptr);
}

void LiveSession::openAnyway() {
  if (busy() || refused_members_.isEmpty()) return;
  if (open_consent_ == rs::Consent::start_degraded)
    assemble_.run = true;
  else if (open_consent_ == rs::Consent::start_dirty_degraded)
    assemble_.start_dirty_degraded = true;
  else
    return;
  useArray(refused_members_, nullptr);
}

QString LiveSession::openConsent() const {
  switch (open_consent_) {
    case rs::Consent::start_degraded:
      return QStringLiteral("degraded");
    case rs::Consent::start_dirty_degraded:
      return QStringLiteral("dirty-degraded");
    default:
      return {};
  }
}

QString LiveSession::openConsentText() const {
  switch (open_consent_) {
    case rs::Consent::start_degraded:
      return tr(
          "Start the array with the missing members left out? It runs degraded: the data on them is "
          "served from the other members, and a missing member comes back only when you add a member "
          "in its place and it is rebuilt. If a missing member was only unplugged, cancel and give it "
          "instead: it would need a full rebuild once the array ran without it.");
    case rs::Consent::start_dirty_degraded:
      return tr(
          "Start it anyway? The array stopped before its resync finished, and a member is missing: "
          "parity may be wrong on stripes that were being written when it stopped, so data rebuilt "
          "from them for the missing member may be wrong. Give every member instead if you can. If "
          "you start it, add a member and check the data you rely on.");
    default:
      return {};
  }
}

void LiveSession::useArray(const QStringList& members, std::shared_ptr<session::ArraySession> array) {
  stop();
  joinRun();
  open_consent_ = rs::Consent::none;  // what the last refusal offered holds for that open only
  if (members != members_) overrides_.clear(), array_key_.clear();
  members_ = members;
  demo_ = false;
  state_.clear();
  composeArrayText();
  emit membersChanged();
  telemetry_.clear();  // another array: its history starts over
  feed_.drain();
  if (members_.isEmpty()) {
    joinRun();
    closeOnThread();
    setStatus(Idle, tr("No array open"));
    return;
  }
  // Opened once and kept: the Tune page, the member states and the
  // telemetry work before (and between) runs.
  const std::vector<std::string> ms = toStd(members_);
  const auto remembered = overrides_;
  refused_members_ = members_;  // if this open is refused: what openAnyway() opens
  launch(
      [this, ms, array = std::move(array), remembered, assemble = assemble_,
       options = sessionOptions()]() mutable {
        RunReport rep;
        if (rs::Status st = openOnThread(ms, std::move(array), remembered, assemble, options); !st) {
          rep.error = QString::fromStdString(st.error().message);
          rep.consent = st.error().consent;  // overwrite is never offered here: openAnyway() ignores it
          return rep;
        }
        if (auto a = arraySession()) {
          rep.tunables = a->tunables();
          rep.array_text = describeState(a->status());
          rep.array_key = memory::arrayKey(a->member_paths());
          rep.array_name = memory::arrayName(a->member_paths());
        }
        rep.ok = true;
        return rep;
      },
      true, nullptr);
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
  if (m != members_) overrides_.clear(), array_key_.clear();
  members_ = m;
  demo_ = true;
  state_.clear();
  composeArrayText();
  emit membersChanged();
  // The demo's disks are tunables like any other: remembered, so opening it again keeps them.
  for (int i = 0; i < 2; ++i) remember(session::kDeviceProfile.at(i), kDemoProfiles[i]);
  start(QStringLiteral("seqread"));
}

void LiveSession::start(const QString& key) {
  const Workload* w = nullptr;
  for (const auto& x : liveWorkloads())
    if (key == QLatin1String(x.key)) w = &x;
  if (!w) {
    setStatus(Error, tr("Not started"),
              tr("Unknown workload '%1' (one of: %2)").arg(key, workloads().join(", ")));
    return;
  }
  RunRequest r;
  r.label = QString::fromUtf8(w->label);
  r.jobs = {w->spec};
  beginRun(std::move(r), nullptr);
}

bool LiveSession::beginRun(RunRequest request, std::function<void(const RunReport&)> done) {
  if (busy()) return false;
  if (members_.isEmpty()) {
    setStatus(Error, tr("Not started"),
              tr("No array is open: create one or open its members on the Arrays page"));
    return false;
  }
  joinRun();
  // What the run thread needs from the GUI thread's state, copied now.
  request.members = toStd(members_);
  if (request.keep_overrides) request.remembered = overrides_;
  request.hz = unsigned(refresh_hz_);
  request.scale = profile_scale_;
  request.open_options = sessionOptions();
  request.assemble = assemble_;
  cancel_ = false;
  prep_progress_ = -1;
  const bool prepare = demo_;
  workload_name_ = request.label;
  setStatus(prepare ? Preparing : Running, prepare ? tr("Preparing the demo array…") : tr("Starting…"));
  launch([this, request = std::move(request),
          prepare]() mutable { return runOnThread(std::move(request), prepare); },
         false, std::move(done));
  return true;
}

void LiveSession::launch(std::function<RunReport()> body, bool opening,
                         std::function<void(const RunReport&)> done) {
  if (opening) setStatus(Opening, tr("Opening the array…"));
  ticks_ = 0;
  timer_.start();
  run_thread_ = std::thread([this, body = std::move(body), opening, done = std::move(done)]() mutable {
    RunReport report = body();
    QMetaObject::invokeMethod(
        this,
        [this, report = std::move(report), opening, done = std::move(done)]() mutable {
          if (opening) telemetry_.clear();  // what showed while it opened was the array before
          tick();                           // the samples so far
          // The array stays open: its telemetry goes on without a run.
          if (!arraySession()) timer_.stop();
          if (!report.tunables.empty()) tunables_.refresh(std::move(report.tunables));
          if (!report.array_text.isEmpty()) arrayChanged({}, report.array_text);
          if (report.ok && !report.array_key.isEmpty()) arrayOpened(report);
          open_consent_ = opening && !report.ok ? report.consent : rs::Consent::none;
          if (opening && !report.ok) showOpenArrayAgain();
          if (opening && report.ok)
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
  auto it =
      std::find_if(overrides_.begin(), overrides_.end(), [&](const auto& kv) { return kv.first == name; });
  if (it != overrides_.end()) overrides_.erase(it);
  overrides_.emplace_back(name, value);
  memory::saveTunables(array_key_, overrides_);  // kept for this array across restarts
}

void LiveSession::arrayOpened(const RunReport& report) {
  const bool another = report.array_key != array_key_;
  array_key_ = report.array_key;
  memory::rememberArray({array_key_, report.array_name, state_, members_, {}});
  if (!another) return;
  // The values the user set on this array before (in an earlier session of
  // the app): applied again, after the ones set since it was chosen.
  for (const auto& [name, value] : memory::tunables(array_key_)) {
    const bool set =
        std::any_of(overrides_.begin(), overrides_.end(), [&](const auto& kv) { return kv.first == name; });
    if (!set) (void)setTunable(QString::fromStdString(name), QString::fromStdString(value));
  }
  memory::saveTunables(array_key_, overrides_);
}

void LiveSession::showOpenArrayAgain() {
  if (auto array = arraySession()) {
    refreshFromArray(array->status());
    return;
  }
  members_.clear();
  state_.clear();
  composeArrayText();
  emit membersChanged();
}

void LiveSession::refreshFromArray(const session::SessionStatus& st) {
  QStringList present;
  for (const auto& m : st.members)
    if (!m.path.empty()) present << QString::fromStdString(m.path);
  const QString now = describeState(st);
  if (!present.isEmpty() && present != members_) {
    arrayChanged(present, now);
    return;
  }
  if (!now.isEmpty() && now != state_) arrayChanged({}, now);
}

QString LiveSession::setTunable(const QString& name, const QString& value) {
  auto array = arraySession();
  if (!array || tunables_.rowCount() == 0)
    return tr("No array is open: open or create one on the Arrays page first");
  if (QString bad = tunables_.check(name, value); !bad.isEmpty()) return bad;
  const std::string n = name.toStdString(), v = value.trimmed().toStdString();
  remember(n, v);
  // A command on the open array: it takes effect at once, run or no run.
  QPointer<LiveSession> self(this);
  std::weak_ptr<session::ArraySession> weak = array;
  array->set_tunable(n, v).on_done([self, weak, n](const rs::Status& st) {
    auto a = weak.lock();
    auto infos = a ? a->tunables() : std::vector<telemetry::TunableInfo>{};
    QMetaObject::invokeMethod(
        self,
        [self, st, n, infos = std::move(infos)]() mutable {
          if (!self) return;
          if (!infos.empty()) self->tunables_.refresh(std::move(infos));
          if (!st)
            emit self->tunableFailed(QString::fromStdString(n), QString::fromStdString(st.error().message));
        },
        Qt::QueuedConnection);
  });
  return {};
}

// GUI thread, refreshHz times a second while the array is open.
void LiveSession::tick() {
  auto samples = feed_.drain();
  const double pp = prep_progress_.load();
  if (status_ == Preparing && pp != progress_) {
    progress_ = pp;
    emit progressChanged();
  }
  bool run = false;
  std::shared_ptr<session::ArraySession> array;
  {
    std::lock_guard lock(mutex_);
    run = run_attached_;
    array = array_;
  }
  if (run && status_ == Preparing) setStatus(Running, tr("Running"));
  if (status_ == Running && run && samples.size() && status_text_ != tr("Running"))
    setStatus(Running, tr("Running"));
  // The header first, then the dashboard's figures: the header is never
  // older than the member list the samples show.
  if (array) refreshHeader(*array, samples.empty() ? nullptr : samples.back().get());
  if (!samples.empty()) {
    std::vector<const telemetry::Sample*> ptrs;
    for (auto& s : samples) ptrs.push_back(s.get());
    telemetry_.addSamples(ptrs);
  }
  // Live: a run goes on, or array I/O completed in the newest sample (an
  // export's client). Otherwise the figures are the last ones seen.
  const bool live = array && (run || telemetry_.readIops() + telemetry_.writeIops() > 0);
  if (live != live_) {
    live_ = live;
    emit liveChanged();
  }
}

void LiveSession::refreshHeader(session::ArraySession& array, const telemetry::Sample* newest) {
  // The registry's values and the array's state twice a second (a set from
  // elsewhere, a profile switched by a run, a member failed, a rebuild's
  // progress): the getters never block. At every tick while a task runs
  // (a rebuild), and whenever the newest sample shows the members otherwise
  // than the last one (a member recovering before its rebuild is a task in
  // the samples): the header follows the member table as it changes.
  bool tasks = had_tasks_;
  QString seen = members_seen_;
  if (newest) {
    tasks = !newest->array.tasks.empty();
    seen.clear();
    for (const auto& m : newest->members) seen += QString::fromStdString(m.name + '=' + m.state + ';');
  }
  const bool every = tasks || tasks != had_tasks_ || seen != members_seen_;
  had_tasks_ = tasks;
  members_seen_ = seen;
  if ((ticks_++ % std::max(1, refresh_hz_ / 2)) != 0 && !every) return;
  tunables_.refresh(array.tunables());
  if (!busy() || status_ == Running) refreshFromArray(array.status());
}

rs::Status LiveSession::openOnThread(const std::vector<std::string>& members,
                                     std::shared_ptr<session::ArraySession> given,
                                     const std::vector<std::pair<std::string, std::string>>& remembered,
                                     const raid::AssembleOptions& assemble,
                                     const session::SessionOptions& options) {
  std::shared_ptr<session::ArraySession> array = std::move(given);
  if (!array) {
    // The registry knows the open array by its members' identities: the
    // one shown (after an add its members are others than it opened with)
    // comes back without an assemble.
    auto opened = session::ArraySession::open(members, assemble, options);
    if (!opened && opened.error().code == Errc::busy && arraySession()) {
      closeOnThread();  // it overlaps the one shown: that one goes first
      opened = session::ArraySession::open(members, assemble, options);
    }
    if (!opened) return opened.error();
    array = std::move(*opened);
  }
  if (array == arraySession()) return {};
  closeOnThread();
  array->keep_open(true);
  auto viewer = array->attach(session::ClientKind::gui, "dashboard");
  if (!viewer) return viewer.error();
  (void)array->set_sample_rate(options.sample_hz);
  // The user's values for these members, as they left them.
  for (const auto& [name, value] : remembered)
    if (rs::Status st = array->set_tunable(name, value).wait(); !st) return st;
  viewer_ = std::move(*viewer);
  feed_sub_ = array->subscribe([this](const telemetry::Sample& s) { feed_.push(s); });
  std::lock_guard lock(mutex_);
  array_ = std::move(array);
  return {};
}

void LiveSession::closeOnThread() {
  std::shared_ptr<session::ArraySession> array;
  {
    std::lock_guard lock(mutex_);
    array = std::move(array_);
  }
  feed_sub_.reset();
  feed_.drain();  // its last samples are not the next array's
  viewer_.detach();
  if (array) (void)array->close().wait();  // tasks stopped with their checkpoints, the clean mark
}

rs::Status LiveSession::prepareDemo(const RunRequest& req) {
  const std::string dir = demo_dir_.toStdString();
  const std::string m0 = dir + "/member0.img", m1 = dir + "/member1.img";
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return make_error(Errc::io_error, dir + ": cannot create the demo folder: " + ec.message());
  const bool has0 = std::filesystem::exists(m0, ec), has1 = std::filesystem::exists(m1, ec);
  if (has0 != has1)
    return make_error(Errc::refused, "the demo folder " + dir +
                                         " holds only one of member0.img and member1.img; "
                                         "remove it to start the demo afresh");
  std::shared_ptr<session::ArraySession> made;
  if (!has0) {
    raid::CreateOptions o;
    o.level = 1;
    o.raid_disks = 2;
    o.name = "demo";
    o.create_files_bytes = kDemoMemberBytes;
    auto created = session::ArraySession::create(o, {m0, m1}, req.open_options);
    if (!created) return created.error();
    made = std::move(*created);
  }
  if (rs::Status st = openOnThread({m0, m1}, std::move(made), req.remembered, {}, req.open_options); !st)
    return st;
  if (!sparse(m0) && !sparse(m1)) return {};
  // Written through once, so reads reach the disk (holes read as zeros for free).
  workload::BenchSpec spec;
  workload::JobSpec fillJob;
  fillJob.name = "fill";
  fillJob.rw = workload::RwMode::write;
  fillJob.block_bytes = 1 << 20;
  fillJob.iodepth = 8;
  auto fill_options = workload::to_job_options(fillJob);
  if (!fill_options) return fill_options.error();
  spec.jobs = {*fill_options};
  spec.session = arraySession();
  spec.profile_scale = 1;  // written at the host disk's speed
  workload::BenchNotes notes;
  auto fill = workload::BenchSession::open(std::move(spec), &notes);
  if (!fill) return fill.error();
  workload::RunProgress progress;
  {
    std::lock_guard lock(mutex_);
    progress_ptr_ = &progress;
    if (cancel_) progress.cancel = true;
  }
  const double total = double((*fill)->array()->size_bytes());
  std::atomic<bool> over{false};
  std::thread watch([&] {
    while (!over) {
      prep_progress_ = std::min(1.0, double(progress.bytes.load()) / total);
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  });
  auto out = (*fill)->run(progress, nullptr, &notes);
  over = true;
  watch.join();
  {
    std::lock_guard lock(mutex_);
    progress_ptr_ = nullptr;
  }
  (void)(*fill)->close();
  if (cancel_) return make_error(Errc::cancelled, "stopped while the demo was being prepared");
  if (!out.ok) return make_error(Errc::io_error, "writing the demo array failed: " + out.error);
  return {};
}

namespace {

// The run's jobs: the typed ones, then a job file's.
rs::Status parseJobs(const RunRequest& req, workload::BenchSpec& spec) {
  spec.job_logs = fio::open_job_logs;  // the jobs' fio log files, when they ask for them
  for (const auto& job : req.jobs) {
    auto options = workload::to_job_options(job);
    if (!options) return options.error();
    spec.jobs.push_back(std::move(*options));
  }
  if (!req.job_file.empty()) {
    auto parsed = fio::parse_job_file(req.job_file, "job file");
    if (!parsed) return parsed.take_error();
    spec.jobs.insert(spec.jobs.end(), parsed->jobs.begin(), parsed->jobs.end());
    spec.global_options = parsed->global.given;
  }
  return {};
}

// Emulated members share the host disk: every profile slowed alike when
// together they would ask more of it than it gives (`scale` > 0: the
// user's choice instead).
double scaleForHost(session::ArraySession& array, const RunRequest& req,
                    const std::vector<std::string>& dirs) {
  if (req.scale > 0) return req.scale;
  const auto paths = array.member_paths();
  double need = 0;
  for (size_t i = 0; i < paths.size(); ++i) {
    const std::string name = session::kDeviceProfile.at(int(i));
    auto value = array.tunable(name);
    std::string v = value ? *value : "none";
    for (const auto& [n, x] : req.set)
      if (n == name) v = x;
    if (v != "none")
      if (auto p = io::find_profile(v, dirs)) need += p->seq_read_bw * p->scale;
  }
  const auto first = std::find_if(paths.begin(), paths.end(), [](const auto& p) { return !p.empty(); });
  if (need <= 0 || first == paths.end()) return 1;
  // A second, lock-free open for reading (the session holds the member).
  auto dev = io::MemberDevice::open(*first, io::OpenMode::ReadOnly);
  const double host = dev ? workload::probe_read_bandwidth(**dev, 1 << 20, 64ull << 20) : 0;
  return host > 0 && need > 0.8 * host ? std::max(0.05, 0.8 * host / need) : 1;
}

}  // namespace

RunReport LiveSession::runOnThread(RunRequest req, bool prepare_demo) {
  RunReport rep;
  const rs::Status ready =
      prepare_demo ? prepareDemo(req)
                   : openOnThread(req.members, nullptr, req.remembered, req.assemble, req.open_options);
  workload::BenchSpec spec;
  const rs::Status parsed = ready ? parseJobs(req, spec) : ready;
  if (!parsed) {
    rep.cancelled = parsed.error().code == Errc::cancelled;
    rep.error = QString::fromStdString(parsed.error().message);
    return rep;
  }
  std::shared_ptr<session::ArraySession> array = arraySession();
  spec.session = array;  // the open array: no second assemble
  for (const auto& d : resourceDirs("profiles")) spec.profile_dirs.push_back(d.toStdString());
  spec.profile_scale = scaleForHost(*array, req, spec.profile_dirs);
  // The run's own settings (a before/after's value) are not the user's:
  // put back when the run ends.
  std::vector<std::pair<std::string, std::string>> restore;
  for (const auto& [name, value] : req.set)
    if (auto before = array->tunable(name)) restore.emplace_back(name, *before);
  spec.set = req.set;

  workload::BenchNotes notes;
  auto opened = workload::BenchSession::open(std::move(spec), &notes);
  if (!opened) {
    rep.error = QString::fromStdString(opened.error().message);
    for (auto it = restore.rbegin(); it != restore.rend(); ++it)
      (void)array->set_tunable(it->first, it->second).wait();
    return rep;
  }
  std::unique_ptr<workload::BenchSession> run = std::move(*opened);
  auto out = runBench(*run, req, rep);
  // The run leaves the array, which stays open.
  if (rs::Status st = run->close(); !st) notes.warnings.push_back(st.error().message);
  run.reset();
  for (auto it = restore.rbegin(); it != restore.rend(); ++it)
    (void)array->set_tunable(it->first, it->second).wait();
  rep.tunables = array->tunables();
  rep.array_text = describeState(array->status());  // as the run leaves it (a member failed meanwhile)
  for (auto& w : notes.warnings) rep.warnings.push_back(w);
  rep.cancelled = cancel_;
  rep.ok = out.ok && !rep.cancelled;
  if (!out.ok) rep.error = QString::fromStdString(out.error);
  rep.results = std::move(out.results);
  return rep;
}

workload::RunOutcome LiveSession::runBench(workload::BenchSession& run, const RunRequest& req,
                                           RunReport& rep) {
  // What a report needs of the run, gathered as `bench --save` does.
  report::BenchCapture capture;
  if (req.keep_document) {
    capture.command = {"raidscope", "(GUI) " + req.label.toStdString()};
    for (const auto& job : req.jobs) capture.command.push_back(describeJob(job).toStdString());
    capture.target = run.target().describe();
    if (raid::Array* a = run.array()) {
      capture.array = report::array_facts(*a);
      capture.tunables_start = report::tunable_values(a->tunables());
      if (auto p = a->tunables().get(balance::kReadPolicy.name)) capture.policy = *p;
    }
  }
  workload::RunProgress progress;
  {
    std::lock_guard lock(mutex_);
    run_attached_ = true;
    progress_ptr_ = &progress;
    if (cancel_) progress.cancel = true;
  }
  std::vector<uint64_t> reads;
  workload::BenchNotes notes;
  auto out = run.run(
      progress,
      [&reads, &capture, keep = req.keep_document](const telemetry::Sample& s) {
        if (keep) capture.telemetry_lines.push_back(telemetry::to_json_line(s));
        if (reads.size() < s.members.size()) reads.resize(s.members.size());
        for (size_t i = 0; i < s.members.size(); ++i) reads[i] += s.members[i].reads;
      },
      &notes);
  {
    std::lock_guard lock(mutex_);
    run_attached_ = false;
    progress_ptr_ = nullptr;
  }
  if (req.keep_document)
    if (raid::Array* a = run.array()) {
      capture.tunables_end = report::tunable_values(a->tunables());
      capture.array = report::array_facts(*a);
    }
  uint64_t all = 0;
  for (auto r : reads) all += r;
  rep.members = int(std::min<size_t>(reads.size(), 8));
  for (int i = 0; i < rep.members; ++i)
    rep.share[i] = all ? 100.0 * double(reads[size_t(i)]) / double(all) : 0;
  rep.warnings = notes.warnings;
  if (req.keep_document && out.ok) rep.document = report::bench_document(out.results, capture);
  return out;
}

}  // namespace rs::gui
