#include "workload/bench.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>

#include "base/unique_fd.hpp"
#include "discovery/signature.hpp"
#include "io/uring_backend.hpp"
#include "levels/levels.hpp"
#include "workload/file_set.hpp"
#include "workload/file_set_target.hpp"
#include "workload/host_probe.hpp"
#include "workload/replay_log.hpp"
#include "workload/targets.hpp"

namespace rs::workload {

namespace {

std::string mb(double bytes_per_s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f MB/s", bytes_per_s / 1e6);
  return buf;
}

// Reads of a sparse image file's holes return zeros without touching the
// disk (O_DIRECT or not), so a read benchmark there measures the filesystem.
void warn_sparse(const std::vector<std::string>& paths, BenchNotes* notes) {
  for (const auto& path : paths) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) continue;
    const double allocated = double(st.st_blocks) * 512.0 / double(st.st_size);
    if (allocated >= 0.9) continue;
    char buf[512];
    std::snprintf(
        buf, sizeof buf,
        "%s is sparse (%.0f%% of its %lld MiB allocated): reads of parts never written return zeros "
        "without reaching the disk; write the region first for disk figures",
        path.c_str(), 100.0 * allocated, static_cast<long long>(st.st_size >> 20));
    notes->warnings.push_back(buf);
  }
}

Error usage(std::string msg) {
  return make_error(Errc::invalid_argument, std::move(msg));
}

}  // namespace

namespace {

// A new file's directory must exist: it is never created for a job.
Status check_directory(const std::string& path) {
  const auto parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
    return make_error(Errc::not_found, path + ": directory " + parent.string() + " does not exist");
  return {};
}

// The free space of the filesystem `path` is (or would be) on, in bytes:
// what anyone may still write (f_bavail) and what is free (f_bfree, which
// root may fill too). Zeros when statvfs fails.
struct FreeSpace {
  uint64_t avail = 0, free = 0;
};
FreeSpace free_space(const std::string& path) {
  const auto parent = std::filesystem::path(path).parent_path();
  struct statvfs vfs {};
  if (::statvfs(parent.empty() ? "." : parent.c_str(), &vfs) != 0) return {};
  return {uint64_t(vfs.f_bavail) * vfs.f_frsize, uint64_t(vfs.f_bfree) * vfs.f_frsize};
}

// The directory must exist and hold `bytes` more.
Status check_room(const std::string& path, uint64_t bytes) {
  if (Status st = check_directory(path); !st) return st;
  const uint64_t avail = free_space(path).avail;
  if (avail < bytes)
    return make_error(Errc::refused, path + ": needs " + std::to_string(bytes >> 20) + " MiB but only " +
                                         std::to_string(avail >> 20) + " MiB are free there");
  return {};
}

// Writes pseudo-random bytes over [from, to) of an open file in 1 MiB
// pieces. With `until_full`, a full filesystem (ENOSPC, EDQUOT, or the
// short write before them) ends it early without an error, as fio lays
// out a fill_device file. Returns where the data written ends.
Result<uint64_t> write_random(int fd, const std::string& path, uint64_t from, uint64_t to, bool until_full,
                              const std::function<void(uint64_t)>& progress) {
  constexpr size_t kPiece = 1 << 20;
  std::vector<uint64_t> block(kPiece / 8);
  uint64_t x = 0x9e3779b97f4a7c15ull ^ to;
  uint64_t done = from;
  while (done < to) {
    for (auto& w : block) x ^= x << 13, x ^= x >> 7, x ^= x << 17, w = x;
    const size_t n = size_t(std::min<uint64_t>(kPiece, to - done));
    const ssize_t w = ::pwrite(fd, block.data(), n, off_t(done));
    if (w < 0 && until_full && (errno == ENOSPC || errno == EDQUOT)) break;
    // Filling, a short write goes on: the next write says why it was short.
    if (w <= 0 || (size_t(w) < n && !until_full))
      return make_error(Errc::io_error,
                        path + ": laying out failed: " + (w < 0 ? std::strerror(errno) : "short write"));
    done += uint64_t(w);
    if (progress) progress(done - from);
  }
  return done;
}

// fio's fallocate_file for a write-only job's file: [from, to) reserved as
// fallocate= says. fio reports a failed posix or native reservation and goes
// on (the file's size is then set with ftruncate here, so the job's region
// exists); keep and truncate failing fail the job, as fio's.
Status reserve(int fd, const std::string& path, uint64_t from, uint64_t to, JobOptions::Fallocate mode) {
  using F = JobOptions::Fallocate;
  const off_t at = off_t(from), len = off_t(to - from);
  int rc = 0;
  switch (mode) {
    case F::none:
      return {};
    case F::keep:
      rc = ::fallocate(fd, FALLOC_FL_KEEP_SIZE, at, len);
      break;
    case F::truncate:
      rc = ::ftruncate(fd, off_t(to));
      break;
    case F::native:
      if (::fallocate(fd, 0, at, len) != 0) rc = ::ftruncate(fd, off_t(to));
      break;
    case F::posix:
      if (::posix_fallocate(fd, at, len) != 0) rc = ::ftruncate(fd, off_t(to));
      break;
  }
  if (rc != 0)
    return make_error(Errc::io_error,
                      path + ": cannot reserve " + std::to_string(to) + " bytes: " + std::strerror(errno));
  return {};
}

// Reserves [from, to) of an open file (fio's fallocate, so a full disk
// shows now, not half way) and, when `fill`, writes pseudo-random bytes
// there.
Status grow(int fd, const std::string& path, uint64_t from, uint64_t to, bool fill,
            const std::function<void(uint64_t)>& progress) {
  if (!fill) return reserve(fd, path, from, to, JobOptions::Fallocate::posix);
  if (::posix_fallocate(fd, off_t(from), off_t(to - from)) != 0 && ::ftruncate(fd, off_t(to)) != 0)
    return make_error(Errc::io_error,
                      path + ": cannot reserve " + std::to_string(to) + " bytes: " + std::strerror(errno));
  if (!fill) return {};
  if (auto r = write_random(fd, path, from, to, false, progress); !r) return r.error();
  return {};
}

// fio's fill_device on a regular file (init.c, filesetup.c): a job
// without size= is bounded by nothing but a full filesystem (fio sets its
// size to -1; the write that fails with ENOSPC or EDQUOT ends the job
// without an error, job_driver.cpp). Its region here is the file plus its
// filesystem's free blocks (f_bfree, as fio's get_fs_free_counts: root
// may fill the reserved blocks too), rounded up to whole blocks, so the
// job meets the full filesystem before its region's end. Nothing is
// reserved in advance. A job that reads is given data first, as fio does:
// the file is written from its end until the filesystem is full (or to
// size=), and the job reads what is there. Jobs of the run that do not
// fill keep the file's own size. Returns the size the target must offer.
Result<uint64_t> prepare_fill(std::vector<JobOptions>& jobs, const std::string& path, BenchNotes* notes) {
  uint64_t lay_out_to = 0;  // 0: no job reads
  for (const auto& j : jobs)
    if (j.fill_device && does_read(j.rw))
      lay_out_to = std::max(lay_out_to, j.size ? j.offset + j.size : UINT64_MAX);
  if (lay_out_to) {
    const UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
    if (!fd) return make_error(Errc::io_error, path + ": cannot open: " + std::strerror(errno));
    struct stat st {};
    const uint64_t from = ::fstat(fd.get(), &st) == 0 ? uint64_t(st.st_size) : 0;
    Result<uint64_t> end =
        from < lay_out_to ? write_random(fd.get(), path, from, lay_out_to, true, nullptr) : from;
    // A filesystem that allocates at writeback says ENOSPC here, not later.
    if (end && ::fsync(fd.get()) != 0)
      end = make_error(Errc::io_error, path + ": laying out failed: " + std::strerror(errno));
    if (!end) return end.error();
    notes->info.push_back("laid out " + path + " (" + std::to_string((*end - from) >> 20) + " MiB" +
                          (*end < lay_out_to ? ", until its filesystem was full)" : ")"));
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return make_error(Errc::io_error, path + ": " + std::strerror(errno));
  const uint64_t have = uint64_t(st.st_size);
  const uint64_t fs_free = free_space(path).free;
  uint64_t end = have;
  for (auto& j : jobs) {
    if (j.fill_device && does_read(j.rw)) {
      // What is there, at most size= (fio caps io_size at the file's size).
      if (have <= j.offset)
        return make_error(Errc::refused, "job '" + j.name + "': " + path +
                                             " holds nothing to read at offset " + std::to_string(j.offset) +
                                             ": its filesystem had no room left");
      j.size = j.size ? std::min(j.size, have - j.offset) : have - j.offset;
    } else if (j.fill_device && does_write(j.rw) && !j.size) {
      const uint64_t bs = max_bs(j, kDdirWrite);
      const uint64_t room = have + fs_free > j.offset ? have + fs_free - j.offset : 0;
      j.size = std::max<uint64_t>((room + bs - 1) / bs * bs, bs);
      notes->info.push_back("note: job '" + j.name + "': fill_device=1: writes " + path +
                            " until its filesystem is full (" + std::to_string(fs_free >> 20) +
                            " MiB free now)");
    } else if (!j.size && !j.size_percent) {
      if (have <= j.offset)
        return usage("job '" + j.name + "': " + path + " holds nothing at offset " +
                     std::to_string(j.offset) + " yet; give size= (another job fills it: fill_device=1)");
      j.size = have - j.offset;
    }
    end = std::max(end, j.offset + j.size);
  }
  return end;
}

// fio: fill_device "doesn't make sense" on a device, whose size is known
// and past whose end no write gets ENOSPC: a job without size= covers it.
void note_fill_on_device(const std::vector<JobOptions>& jobs, const std::string& what, uint64_t bytes,
                         BenchNotes* notes) {
  for (const auto& j : jobs)
    if (j.fill_device && !j.size && !j.size_percent)
      notes->info.push_back("note: job '" + j.name + "': fill_device=1 on " + what + " (" +
                            std::to_string(bytes >> 20) +
                            " MiB): the job covers all of it, as fio (no ENOSPC comes to end it there)");
}

// fio's extend_file under --readonly.
Status refuse_extend(const std::string& path) {
  return make_error(Errc::refused, path + ": fio: refusing extend of file due to read-only");
}

// fio's filesetup.c message for the files a job laid out.
std::string laying_out_message(const std::string& job, unsigned files, uint64_t bytes) {
  const char* s = files > 1 ? "s" : "";
  return job + ": Laying out IO file" + s + " (" + std::to_string(files) + " file" + s + " / " +
         (files > 1 ? "total " : "") + std::to_string(bytes >> 20) + "MiB)";
}

}  // namespace

Status lay_out_file(const std::string& path, uint64_t bytes, const std::function<void(uint64_t)>& progress) {
  if (Status st = check_room(path, bytes); !st) return st;
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (!fd) return make_error(Errc::io_error, path + ": cannot create: " + std::strerror(errno));
  Status st = grow(fd.get(), path, 0, bytes, true, progress);
  fd.reset();
  if (!st) ::unlink(path.c_str());
  return st;
}

Status extend_file(const std::string& path, uint64_t bytes, bool fill, JobOptions::Fallocate mode) {
  struct stat st {};
  const bool exists = ::stat(path.c_str(), &st) == 0;
  const uint64_t have = exists ? uint64_t(st.st_size) : 0;
  if (have >= bytes) return {};
  if (Status s = check_room(path, bytes - have); !s) return s;
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
  if (!fd) return make_error(Errc::io_error, path + ": cannot create: " + std::strerror(errno));
  Status s =
      fill ? grow(fd.get(), path, have, bytes, true, nullptr) : reserve(fd.get(), path, have, bytes, mode);
  fd.reset();
  if (!s && !exists) ::unlink(path.c_str());
  return s;
}

Result<std::unique_ptr<BenchSession>> BenchSession::open(BenchSpec spec, BenchNotes* notes) {
  auto s = std::unique_ptr<BenchSession>(new BenchSession());
  s->spec_ = std::move(spec);
  if (s->spec_.jobs.empty()) return usage("no job given");
  if (Status st = load_replays(s->spec_.jobs); !st)
    return st.error();  // before the target: a log names its file
  if (s->spec_.sample_hz < 1 || s->spec_.sample_hz > 50)
    return usage("the status interval must give 1 to 50 samples per second (20..1000 ms)");
  if (!(s->spec_.profile_scale > 0 && s->spec_.profile_scale <= 1))
    return usage("the profile scale must be above 0 and at most 1");
  for (const auto& j : s->spec_.jobs)
    if (wants_logs(j) && !s->spec_.job_logs)
      return usage("job '" + j.name + "' asks for log files, and this run has no log writer");
  if (Status st = s->open_target(notes); !st) return st.error();
  std::string bad = check_jobs(s->spec_.jobs, *s->target_);
  if (!bad.empty()) return usage(bad);
  if (std::any_of(s->spec_.jobs.begin(), s->spec_.jobs.end(),
                  [](const auto& j) { return does_read(j.rw); })) {
    std::vector<std::string> files;
    for (const auto& m : s->target_->members()) files.push_back(m.path);
    warn_sparse(files, notes);
  }
  return s;
}

Status BenchSession::open_target(BenchNotes* notes) {
  BenchSpec& sp = spec_;
  if (sp.session || !sp.array_members.empty()) return open_array(notes);
  if (sp.read_policy || !sp.set.empty() || !sp.profiles.empty() || !sp.set_at.empty())
    return usage("--policy, --member-profile, --set-at and the tunables need --array=MEMBER,MEMBER,...");
  if (sp.fail_member_at) return usage("--fail-member needs --array=MEMBER,MEMBER,...");
  std::string filename;
  bool null_target = false, writes = false, several_files = false, fill = false;
  uint64_t size = 0;
  for (auto& j : sp.jobs) {
    if (j.ioengine == IoEngine::null || j.filename == "null") {
      null_target = true;
    } else if (!j.filename.empty()) {
      // Jobs on different files run as a file set, each on its own.
      several_files |= is_file_set_job(j) || (!filename.empty() && filename != j.filename);
      // fallocate=none or keep leave a write-only job's new file shorter
      // than its region (fio's way): the file set serves such a file.
      struct stat sb {};
      several_files |=
          !j.fill_device && !does_read(j.rw) && ::stat(j.filename.c_str(), &sb) != 0 &&
          (j.fallocate == JobOptions::Fallocate::none || j.fallocate == JobOptions::Fallocate::keep);
      filename = j.filename;
    } else {
      // fio's default file: ./JOBNAME.JOBNUM.FILENUM (or filename_format)
      // in the current directory or directory=, one per clone: a file set.
      several_files = true;
    }
    size = std::max(size, j.size + j.offset);
    writes |= does_write(j.rw) || does_trim(j.rw);  // a trim destroys data as a write does
    fill |= j.fill_device;
  }
  if (null_target) {
    target_ = std::make_unique<NullTarget>(size ? size : (1ull << 30));
    return {};
  }
  if (several_files && fill)
    return usage(
        "fill_device=1 is supported on one file per run (not with nrfiles, directory, filename=a:b, "
        "create_on_open or jobs on different files)");
  if (several_files) return open_file_set(notes);
  struct stat sb {};
  const bool exists = ::stat(filename.c_str(), &sb) == 0;
  // fill_device on a file (new or regular): written until its filesystem
  // is full, even for a job that reads (its data is written first).
  const bool fill_file = fill && (!exists || S_ISREG(sb.st_mode));
  // A read job's fill writes too, past what is there.
  const char* harm =
      writes || !fill_file ? "a write job would destroy it" : "fill_device=1 would write to it";
  writes |= fill_file;
  for (const auto& j : sp.jobs) {
    if (!fill_file || !j.fill_device) continue;
    if (j.ioengine == IoEngine::mmap)
      return usage("job '" + j.name + "': fill_device=1 with ioengine=mmap is not supported (a mapping " +
                   "cannot grow a file until its filesystem is full)");
    if (j.size_percent)
      return usage("job '" + j.name + "': fill_device=1 with size=N% is not supported (give size= in bytes)");
  }
  if (!exists && fill_file) {
    // fio creates a fill_device file without reserving anything: the jobs
    // write it (prepare_fill below).
    if (Status dir = check_directory(filename); !dir) return dir;
    if (!UniqueFd(::open(filename.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)))
      return make_error(Errc::io_error, filename + ": cannot create: " + std::strerror(errno));
  } else if (!exists) {
    if (sp.readonly) return refuse_extend(filename);
    if (!size) return usage(filename + " does not exist; give --size to create it");
    // fio lays a new file out with data before reading it; a write-only
    // job's is only reserved, as fallocate= says (fio's extend_file).
    const bool reads =
        std::any_of(sp.jobs.begin(), sp.jobs.end(), [](const auto& j) { return does_read(j.rw); });
    if (Status st = reads ? lay_out_file(filename, size, nullptr)
                          : extend_file(filename, size, false, sp.jobs.front().fallocate);
        !st)
      return st;
    notes->info.push_back(laying_out_message(sp.jobs.front().name, 1, size));
  } else if (writes && !sp.force) {
    if (std::string why = discovery::block_device_in_use(filename); !why.empty())
      return make_error(Errc::busy, filename + ": refusing to write: " + why);
    std::string sig = discovery::existing_signature(filename);
    if (!sig.empty()) return overridable_refusal(filename + ": holds " + sig + "; " + harm);
  }
  auto opened = io::MemberDevice::open(filename, writes ? io::OpenMode::ReadWrite : io::OpenMode::ReadOnly);
  if (!opened) return opened.take_error();
  auto dev = std::move(*opened);
  // Laid out and sized once the file is ours (its lock is held).
  uint64_t fill_bytes = 0;
  if (fill_file) {
    auto r = prepare_fill(sp.jobs, filename, notes);
    if (!r && !exists) ::unlink(filename.c_str());  // made just now: nothing left behind
    if (!r) return r.error();
    fill_bytes = *r;
  } else if (fill) {
    note_fill_on_device(sp.jobs, "a block device", dev->size_bytes(), notes);
  }
  target_ = std::make_unique<DeviceTarget>(std::move(dev), fill_bytes);
  return {};
}

Status BenchSession::open_array(BenchNotes* notes) {
  BenchSpec& sp = spec_;
  if (sp.session && !sp.array_members.empty())
    return usage("give the run an open array session or the array's members, not both");
  if (sp.session) {
    session_ = sp.session;
  } else {
    raid::AssembleOptions ao;
    ao.run = sp.run_degraded;
    ao.start_dirty_degraded = sp.start_dirty_degraded;
    session::SessionOptions so;
    so.sample_hz = sp.sample_hz;
    so.profile_dirs = sp.profile_dirs;
    so.profile_scale = sp.profile_scale;
    auto opened = session::ArraySession::open(sp.array_members, ao, so);
    if (!opened) return opened.error();
    session_ = std::move(*opened);
    own_session_ = true;
  }
  auto client = session_->attach(session::ClientKind::bench, "bench " + sp.jobs.front().name,
                                 [this] { stop_for_session(); });
  if (!client) return client.error();
  client_ = std::move(*client);
  array_ = &client_.array();
  for (auto& r : array_->rejected()) notes->warnings.push_back(r.path + " not used: " + r.reason);
  // A given session's emulated disks take the run's scale (its own took it at the open).
  if (!(sp.profile_scale > 0 && sp.profile_scale <= 1))
    return usage("the profile scale must be above 0 and at most 1");
  if (Status st = session_->set_profile_scale(sp.profile_scale).wait(); !st) return st;
  // Everything asked for is set now, before any I/O. A refusal of the
  // name or value (the registry reads the text once) is a usage error.
  auto refused = [](const Status& st) {
    const Errc c = st.error().code;
    return c == Errc::invalid_argument || c == Errc::not_found ? Status(usage(st.error().message)) : st;
  };
  if (sp.read_policy)
    if (Status st = session_->set_tunable(balance::kReadPolicy, *sp.read_policy).wait(); !st)
      return refused(st);
  for (auto& [name, value] : sp.set)
    if (Status st = session_->set_tunable(name, value).wait(); !st) return refused(st);
  if (Status st = check_live_settings(); !st) return st;
  if (Status st = apply_profiles(notes); !st) return st;
  target_ = std::make_unique<ArrayTarget>(*array_);
  note_fill_on_device(sp.jobs, "an array", target_->size_bytes(), notes);
  return {};
}

// --set-at and --fail-member, checked before the run starts.
Status BenchSession::check_live_settings() {
  const BenchSpec& sp = spec_;
  for (auto& t : sp.set_at) {
    if (!(t.at_s >= 0)) return usage("--set-at: the time must be 0 or more seconds");
    // A name or value the registry does not take is the user's request
    // being wrong: a usage error, whatever the registry's code.
    if (Status v = session_->validate_tunable(t.name, t.value); !v)
      return usage("--set-at " + t.name + "=" + t.value + ": " + v.error().message);
  }
  if (sp.fail_member_at) {
    const int m = sp.fail_member_at->first;
    if (m < 0 || m >= array_->raid_disks())
      return usage("--fail-member: no member " + std::to_string(m) + " (0.." +
                   std::to_string(array_->raid_disks() - 1) + ")");
    if (!(sp.fail_member_at->second >= 0)) return usage("--fail-member: the time must be 0 or more seconds");
  }
  return {};
}

void BenchSession::stop_for_session() {
  std::lock_guard lock(stop_mutex_);
  stop_asked_ = true;
  if (running_) running_->cancel = true;
}

Status BenchSession::open_file_set(BenchNotes* notes) {
  // What each file must hold: the largest region any job needs in it, and
  // whether a job reads it (then it is laid out with data), writes it, or
  // only creates it at its open (create_on_open).
  struct Need {
    uint64_t bytes = 0;
    bool read = false, write = false, only_created_on_open = true;
    std::string job;  // the first job that names it: fio's layout message names it
    JobOptions::Fallocate fallocate = JobOptions::Fallocate::native;  // that job's
  };
  std::vector<std::string> order;
  std::map<std::string, Need> need;
  // Bad options are found before anything is laid out.
  for (const auto& job : spec_.jobs)
    if (std::string bad = check_file_set_job(job, 512); !bad.empty())
      return usage("job '" + job.name + "': " + bad);
  for (const auto& job : spec_.jobs)
    for (unsigned clone = 0; clone < job.numjobs; ++clone) {
      const auto files = job_files(job, clone);
      if (!files) return usage("job '" + job.name + "': " + files.error().message);
      for (const auto& f : *files) {
        auto [it, fresh] = need.try_emplace(f.path);
        if (fresh) order.push_back(f.path), it->second.job = job.name, it->second.fallocate = job.fallocate;
        Need& n = it->second;
        n.bytes = std::max(n.bytes, job.offset + f.size);
        n.read |= does_read(job.rw);
        n.write |= does_write(job.rw) || does_trim(job.rw);
        n.only_created_on_open &= job.create_on_open && !does_read(job.rw);
      }
    }
  bool writes = false;
  for (auto& [path, n] : need) writes |= n.write;
  // Check every directory, and the room for everything to lay out, before
  // anything is written.
  std::map<std::string, uint64_t> per_dir;
  for (const auto& path : order) {
    const Need& n = need[path];
    struct stat st {};
    const bool exists = ::stat(path.c_str(), &st) == 0;
    if (exists && !S_ISREG(st.st_mode) && uint64_t(st.st_size) < n.bytes && !S_ISBLK(st.st_mode))
      return make_error(Errc::invalid_argument, path + ": not a regular file or block device");
    if (exists && S_ISBLK(st.st_mode)) continue;
    if (!exists && n.only_created_on_open) {
      if (Status dir = check_directory(path); !dir) return dir;
      continue;
    }
    if (exists && writes && !spec_.force) {
      std::string sig = discovery::existing_signature(path);
      if (!sig.empty() && n.write)
        return overridable_refusal(path + ": holds " + sig + "; a write job would destroy it");
    }
    const uint64_t have = exists ? uint64_t(st.st_size) : 0;
    if (have < n.bytes) per_dir[std::filesystem::path(path).parent_path().string()] += n.bytes - have;
  }
  for (auto& [dir, bytes] : per_dir)
    if (Status st = check_room((dir.empty() ? std::string(".") : dir) + "/x", bytes); !st) return st;
  // fio's setup_files: a file a job reads is laid out with data; one only
  // written is created and its space reserved (overwrite=0).
  std::vector<std::pair<std::string, std::pair<unsigned, uint64_t>>> laid;  // job: files, bytes
  for (const auto& path : order) {
    const Need& n = need[path];
    struct stat st {};
    const bool exists = ::stat(path.c_str(), &st) == 0;
    if (exists && S_ISBLK(st.st_mode)) continue;
    if (!exists && n.only_created_on_open) continue;
    const uint64_t have = exists ? uint64_t(st.st_size) : 0;
    if (have >= n.bytes) continue;
    if (spec_.readonly) return refuse_extend(path);
    if (Status s = extend_file(path, n.bytes, n.read, n.fallocate); !s) return s;
    if (laid.empty() || laid.back().first != n.job) laid.push_back({n.job, {0, 0}});
    ++laid.back().second.first, laid.back().second.second += n.bytes;
  }
  for (const auto& [job, count] : laid)
    notes->info.push_back(laying_out_message(job, count.first, count.second));
  auto t = FileSetTarget::open(order, writes);
  if (!t) return t.error();
  target_ = std::move(*t);
  return {};
}

// fio's unlink=1: the job's files are removed when it is done (here: when
// the run is).
void BenchSession::unlink_files() {
  for (const auto& job : spec_.jobs) {
    if (!job.unlink || !is_file_set_job(job)) continue;
    for (unsigned clone = 0; clone < job.numjobs; ++clone) {
      if (auto files = job_files(job, clone))
        for (const auto& f : *files) ::unlink(f.path.c_str());
    }
  }
}

// Emulated members share the host disk: their sum must fit in it.
Status BenchSession::apply_profiles(BenchNotes* notes) {
  if (spec_.profiles.empty()) return {};
  const int n = array_->raid_disks();
  std::vector<std::optional<io::DeviceProfile>> per(static_cast<size_t>(n));
  for (auto& [idx, prof] : spec_.profiles) {
    if (idx >= n)
      return usage("--member-profile: member " + std::to_string(idx) + " is beyond the array's " +
                   std::to_string(n) + " members");
    for (int i = 0; i < n; ++i)
      if (idx < 0 || idx == i) per[size_t(i)] = prof;
  }
  double need = 0;
  for (auto& p : per)
    if (p) need += p->seq_read_bw * p->scale * spec_.profile_scale;
  const raid::TableRef t = array_->table();
  io::MemberDevice* first = nullptr;
  for (const auto& m : t->members)
    if (m.dev && !first) first = m.dev.get();
  const auto& shape = array_->shape();
  const double host = first ? probe_read_bandwidth(*first, shape.data_offset * 512,
                                                   std::min<uint64_t>(shape.dev_sectors * 512, 1ull << 30))
                            : 0;
  notes->info.push_back("host probe: " + mb(host) + " from " + (first ? first->path() : "-") +
                        "; emulated members need " + mb(need) + " together");
  if (need > 0.9 * host)
    return make_error(Errc::refused,
                      "the member profiles need " + mb(need) + " together but the host disk delivered " +
                          mb(host) + " in a quick probe; slow them with --profile-scale=" +
                          std::to_string(std::floor(host * 0.8 / need * 100) / 100).substr(0, 4) +
                          " or use fewer/slower profiles");
  // The session scales them (the run's scale, set above) and names them in
  // its device_profile tunable.
  for (int i = 0; i < n; ++i)
    if (per[size_t(i)] && (*t)[i].dev)
      if (Status st = session_->set_member_profile(i, *per[size_t(i)]).wait(); !st) return st;
  return {};
}

namespace {

// A session's sample as the run's telemetry shows it: t from the run's
// start, only the events since then.
telemetry::Sample from_run_start(const telemetry::Sample& s, uint64_t run_start) {
  telemetry::Sample r = s;
  r.t_ns -= run_start;
  r.events.clear();
  for (const auto& e : s.events)
    if (e.t_ns >= run_start) {
      r.events.push_back(e);
      r.events.back().t_ns -= run_start;
    }
  return r;
}

}  // namespace

RunOutcome BenchSession::run(RunProgress& progress, std::function<void(const telemetry::Sample&)> on_sample,
                             BenchNotes* notes) {
  {
    std::lock_guard lock(stop_mutex_);
    running_ = &progress;
    if (stop_asked_) progress.cancel = true;
  }
  const uint64_t t0 = io::monotonic_ns();
  // Telemetry: the session's sampler (it samples the array for as long as
  // it is open; the run listens from its start), or one for the run.
  std::optional<telemetry::Sampler> own;
  session::ArraySession::Subscription listening;
  if (session_) {
    const uint64_t since = t0 - std::min(t0, session_->sampler_start_ns());
    if (on_sample)
      listening = session_->subscribe([since, on_sample](const telemetry::Sample& s) {
        if (s.t_ns >= since) on_sample(from_run_start(s, since));
      });
  } else {
    telemetry::SamplerOptions so;
    so.rate_hz = spec_.sample_hz;
    own.emplace(target_->telemetry(), &target_->latencies(), &file_events_, so);
    if (on_sample) own->add_listener(std::move(on_sample));
    if (Status st = own->start(t0); !st) notes->warnings.push_back("telemetry: " + st.error().message);
  }

  // The schedule: --set-at changes and --fail-member, on one thread that
  // sleeps until each is due (or the run ends); each is a session command.
  struct Step {
    double at_s;
    std::function<void()> apply;
  };
  std::vector<Step> steps;
  for (auto& t : spec_.set_at)
    steps.push_back({t.at_s, [this, t, notes] {
                       if (Status st = session_->set_tunable(t.name, t.value).wait(); !st)
                         notes->warnings.push_back("--set-at " + t.name + "=" + t.value + ": " +
                                                   st.error().message);
                     }});
  if (spec_.fail_member_at) {
    auto [m, at] = *spec_.fail_member_at;
    steps.push_back({at, [this, m, notes] {
                       const Status st =
                           session_->fail_member(m, "failed during the benchmark (--fail-member)").wait();
                       if (!st)
                         notes->warnings.push_back("could not fail member " + std::to_string(m) + ": " +
                                                   st.error().message);
                     }});
  }
  std::sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.at_s < b.at_s; });
  std::mutex mutex;
  std::condition_variable cv;
  bool over = false;
  std::thread scheduler([&] {
    std::unique_lock lock(mutex);
    for (auto& s : steps) {
      const auto due =
          std::chrono::steady_clock::now() +
          std::chrono::nanoseconds(int64_t(t0 + uint64_t(s.at_s * 1e9)) - int64_t(io::monotonic_ns()));
      if (cv.wait_until(lock, due, [&] { return over; })) return;
      lock.unlock();
      s.apply();
      lock.lock();
    }
  });
  RunOutcome out = run_jobs(spec_.jobs, spec_.global_options, *target_, &progress, spec_.job_logs);
  unlink_files();
  {
    std::lock_guard lock(mutex);
    over = true;
  }
  cv.notify_all();
  scheduler.join();
  if (session_) {
    (void)session_->sample_now();  // the tail of the run, to its listener
    listening.reset();
  } else {
    own->stop();
  }
  std::lock_guard lock(stop_mutex_);
  running_ = nullptr;
  return out;
}

Status BenchSession::close() {
  if (!session_) return {};
  target_.reset();  // it reaches the array through the client
  array_ = nullptr;
  client_.detach();
  auto s = std::move(session_);
  return own_session_ ? s->close().wait() : Status{};
}

BenchSession::~BenchSession() {
  target_.reset();
  if (Status s = close(); !s) {
    // Reported by the caller's explicit close(); nothing more to do here.
  }
}

}  // namespace rs::workload
