#include "workload/file_set_target.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "base/unique_fd.hpp"
#include "workload/discard.hpp"
#include "workload/file_set.hpp"
#include "workload/targets.hpp"

namespace rs::workload {

Result<std::unique_ptr<FileSetTarget>> FileSetTarget::open(std::vector<std::string> paths, bool writes) {
  auto t = std::unique_ptr<FileSetTarget>(new FileSetTarget());
  t->writes_ = writes;
  for (auto& p : paths) {
    auto f = std::make_unique<File>();
    f->path = std::move(p);
    std::error_code ec;
    if (std::filesystem::exists(f->path, ec)) {
      auto dev = io::MemberDevice::open(f->path, writes ? io::OpenMode::ReadWrite : io::OpenMode::ReadOnly);
      if (!dev) return dev.take_error();
      f->dev = std::move(*dev);
    }
    t->files_.push_back(std::move(f));
  }
  return t;
}

uint64_t FileSetTarget::size_bytes() const {
  uint64_t total = 0;
  for (auto& f : files_)
    if (f->dev) total += f->dev->size_bytes();
  return total;
}

std::string FileSetTarget::describe() const {
  const std::string first = files_.empty() ? "" : files_.front()->path;
  return files_.size() == 1 ? first + " (file)"
                            : std::to_string(files_.size()) + " files (" + first + ", ...)";
}

Result<io::MemberDevice*> FileSetTarget::device(size_t index, const JobOptions& job, uint64_t min_size) {
  std::lock_guard lock(open_mutex_);
  File& f = *files_[index];
  if (f.dev) return f.dev.get();
  // fio's create_on_open: the job's open creates the file (a read job has
  // nothing to read: fio fails its open the same way).
  if (!job.create_on_open || !does_write(job.rw) || !writes_)
    return make_error(Errc::not_found, f.path + ": does not exist");
  UniqueFd fd(::open(f.path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
  if (!fd) return make_error(Errc::io_error, f.path + ": cannot create: " + std::strerror(errno));
  // fio's mmap engine extends a file it writes to the job's region.
  const bool grow = min_size && ::ftruncate(fd.get(), off_t(min_size)) != 0;
  const int grow_errno = errno;
  fd.reset();
  if (grow)
    return make_error(Errc::io_error, f.path + ": cannot extend to " + std::to_string(min_size) +
                                          " bytes: " + std::strerror(grow_errno));
  auto dev = io::MemberDevice::open(f.path, io::OpenMode::ReadWrite);
  if (!dev) return dev.take_error();
  f.dev = std::move(*dev);
  return f.dev.get();
}

Result<JobIo> FileSetTarget::open_job_io(const JobOptions& job, unsigned clone) {
  JobIo j;
  auto listed = job_files(job, clone);
  if (!listed) return listed.take_error();
  const std::vector<JobFile>& files = *listed;
  // The job's own opens, one per file, kept alive with the backend.
  auto opens = std::make_shared<std::vector<std::unique_ptr<io::MemberDevice>>>();
  std::vector<io::MemberDevice*> devs;
  bool all_direct = true;
  std::string direct_note;
  for (const JobFile& jf : files) {
    size_t index = files_.size();
    for (size_t i = 0; i < files_.size(); ++i)
      if (files_[i]->path == jf.path) index = i;
    if (index == files_.size()) return make_error(Errc::internal, jf.path + ": not one of the run's files");
    const uint64_t need = job.offset + jf.size;
    auto found = device(index, job, job.ioengine == IoEngine::mmap ? need : 0);
    if (!found) return found.take_error();
    io::MemberDevice* dev = *found;
    const bool direct = job.direct && dev->info().direct;
    if (job.direct && !direct) all_direct = false, direct_note = dev->info().direct_note;
    auto reopened = dev->reopen(direct);
    if (!reopened) return reopened.take_error();
    auto own = std::move(*reopened);
    // fio at job start: drop the region's cached pages, hint the pattern.
    if (job.invalidate) ::posix_fadvise(own->fd(), off_t(job.offset), off_t(jf.size), POSIX_FADV_DONTNEED);
    if (job.fadvise_hint)
      ::posix_fadvise(own->fd(), 0, 0, is_random(job.rw) ? POSIX_FADV_RANDOM : POSIX_FADV_SEQUENTIAL);
    devs.push_back(own.get());
    opens->push_back(std::move(own));
    j.file_sizes.push_back(jf.size);
    j.file_indexes.push_back(unsigned(index));
    j.file_paths.push_back(jf.path);
  }
  j.io_mode = !job.direct  ? "buffered (page cache)"
              : all_direct ? "direct (O_DIRECT)"
                           : "buffered (page cache): " + direct_note;
  if (Status st = open_engine(job, devs, job.direct && all_direct, j); !st) return st.error();
  static constexpr const char* kService[] = {"roundrobin", "sequential", "random",
                                             "zipf",       "pareto",     "normal"};
  std::string label = "; " + std::to_string(files.size());
  label += files.size() == 1 ? " file" : " files";
  label += ", file_service_type=";
  label += kService[int(job.file_service)];
  if (job.file_service_nr > 1) label += ':', label += std::to_string(job.file_service_nr);
  if (int(job.file_service) >= int(JobOptions::FileService::zipf)) {
    char param[48];
    std::snprintf(param, sizeof param, ":%g", job.file_service_param);
    label += param;
    if (job.file_service_center >= 0)
      std::snprintf(param, sizeof param, ":%g", job.file_service_center), label += param;
  }
  j.engine += label;
  j.keep = opens;
  return j;
}

namespace {
struct FileIo : io::MemberIo {
  TargetIo* parent = nullptr;
  telemetry::MemberCounters* counters = nullptr;
};
}  // namespace

// A job's I/O: (k << kFileShift) + offset goes to the job's file k, which
// is member k of the job's backend.
class FileSetPort final : public TargetPort {
 public:
  FileSetPort(FileSetTarget& t, io::IoContext& c, std::vector<unsigned> indexes)
      : target_(t), context_(c), indexes_(std::move(indexes)), latency_(t.latencies_.add()) {}
  void prepare(TargetIo& io, uint32_t) override {
    auto d = std::make_shared<FileIo>();
    d->parent = &io;
    d->owner = this;
    d->done = &FileSetPort::done;
    io.target_private = d;
  }
  void submit(TargetIo& io) override {
    auto& d = *static_cast<FileIo*>(io.target_private.get());
    const uint64_t k = io.offset >> kFileShift;
    d.member = k < indexes_.size() ? int(k) : -1;
    d.counters = k < indexes_.size() ? &target_.files_[indexes_[k]]->counters : nullptr;
    d.write = io.write;
    d.offset = io.offset & kFileOffsetMask;
    d.length = io.length;
    d.buffer = io.buffer;
    d.ioprio = io.ioprio;
    if (d.counters) {
      d.counters->account_pending(io.issue_ns);
      d.counters->nr_pending.fetch_add(1, std::memory_order_relaxed);
    }
    backend().queue(d);
  }
  io::IoContext& context() override { return context_; }
  // The job's file k at (k << kFileShift) + offset: a hole punched in it
  // (a block device: BLKDISCARD), counted as the file's trim.
  int trim(Target&, uint64_t offset, uint32_t length) override {
    const uint64_t k = offset >> kFileShift;
    if (k >= indexes_.size() || !target_.files_[indexes_[k]]->dev) return -EBADF;
    return discard_range(*target_.files_[indexes_[k]]->dev, offset & kFileOffsetMask, length);
  }
  int sync(Target&, uint64_t offset, SyncKind kind, unsigned range_flags) override {
    const uint64_t k = offset >> kFileShift;
    if (k >= indexes_.size() || !target_.files_[indexes_[k]]->dev) return -EBADF;
    return sync_fd(target_.files_[indexes_[k]]->dev->fd(), kind, range_flags);
  }

 private:
  static void done(io::MemberIo& m, int result) {
    auto& d = static_cast<FileIo&>(m);
    auto& port = *static_cast<FileSetPort*>(d.owner);
    const uint64_t now = port.backend().batch_now_ns();
    if (auto* c = d.counters) {
      c->account_pending(now);
      c->nr_pending.fetch_sub(1, std::memory_order_relaxed);
      if (result > 0) {
        (d.write ? c->writes : c->reads).fetch_add(1, std::memory_order_relaxed);
        (d.write ? c->write_bytes : c->read_bytes).fetch_add(uint64_t(result), std::memory_order_relaxed);
      }
    }
    if (result > 0) port.latency_->record(now > d.parent->issue_ns ? now - d.parent->issue_ns : 0);
    d.parent->served_by = d.member;
    d.parent->done(*d.parent, result);
  }
  FileSetTarget& target_;
  io::IoContext& context_;
  std::vector<unsigned> indexes_;
  std::shared_ptr<telemetry::LiveHistogram> latency_;
};

std::unique_ptr<TargetPort> FileSetTarget::open_port(io::IoContext& context) {
  return std::make_unique<FileSetPort>(*this, context, std::vector<unsigned>{});
}

std::unique_ptr<TargetPort> FileSetTarget::open_job_port(io::IoContext& context, const JobIo& jio) {
  return std::make_unique<FileSetPort>(*this, context, jio.file_indexes);
}

std::string FileSetTarget::trim_method() const {
  bool blk = false, file = false;
  for (auto& f : files_)
    if (f->dev) (f->dev->info().block_device ? blk : file) = true;
  return blk && file ? "fallocate(PUNCH_HOLE) on files, BLKDISCARD on block devices"
         : blk       ? "BLKDISCARD"
                     : "fallocate(PUNCH_HOLE)";
}

std::vector<MemberTelemetry> FileSetTarget::members() const {
  std::vector<MemberTelemetry> v;
  for (auto& f : files_) v.push_back({f->path, f->counters.snapshot()});
  return v;
}

std::vector<telemetry::TelemetrySource::MemberReading> FileSetTarget::read_members() const {
  std::vector<MemberReading> v;
  for (auto& f : files_)
    v.push_back({f->path, f->dev ? "active sync" : "not created yet", f->counters.snapshot()});
  return v;
}

telemetry::MemberCountersSnapshot FileSetTarget::read_array() const {
  telemetry::MemberCountersSnapshot sum;
  for (auto& f : files_) {
    const auto s = f->counters.snapshot();
    sum.reads += s.reads, sum.writes += s.writes;
    sum.read_bytes += s.read_bytes, sum.write_bytes += s.write_bytes;
    sum.errors += s.errors, sum.nr_pending += s.nr_pending;
    sum.pending_time_ns += s.pending_time_ns;
  }
  return sum;
}

}  // namespace rs::workload
