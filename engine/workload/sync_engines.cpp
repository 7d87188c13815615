#include "workload/sync_engines.hpp"

#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "io/uring_backend.hpp"

namespace rs::workload {

std::string describe_sync_engine(IoEngine engine) {
  switch (engine) {
    case IoEngine::psync:
      return "psync (pread/pwrite, one I/O at a time)";
    case IoEngine::sync:
      return "sync (lseek + read/write, one I/O at a time)";
    case IoEngine::vsync:
      return "vsync (lseek + readv/writev, one I/O at a time)";
    case IoEngine::pvsync:
      return "pvsync (preadv/pwritev, one I/O at a time)";
    case IoEngine::pvsync2:
      return "pvsync2 (preadv2/pwritev2, one I/O at a time)";
    case IoEngine::mmap:
      return "mmap (memcpy through a shared mapping, one I/O at a time)";
    default:
      return std::string(to_string(engine));
  }
}

Result<std::unique_ptr<SyncEngineBackend>> SyncEngineBackend::make(IoEngine engine,
                                                                   std::vector<io::MemberDevice*> devs,
                                                                   bool writes, bool random) {
  auto b = std::unique_ptr<SyncEngineBackend>(new SyncEngineBackend(engine));
  for (io::MemberDevice* dev : devs) {
    File f;
    f.dev = dev;
    if (engine == IoEngine::mmap) {
      f.map_bytes = dev->size_bytes();
      const int prot = PROT_READ | (writes ? PROT_WRITE : 0);
      void* p = ::mmap(nullptr, f.map_bytes, prot, MAP_SHARED, dev->fd(), 0);
      if (p == MAP_FAILED) {
        // the destructor unmaps what was mapped
        return make_error(Errc::io_error, dev->path() + ": mmap failed: " + std::strerror(errno));
      }
      f.map = static_cast<uint8_t*>(p);
      // fio's mmap engine: the access hint, and no pages cached from before.
      ::posix_madvise(p, f.map_bytes, random ? POSIX_MADV_RANDOM : POSIX_MADV_SEQUENTIAL);
      ::posix_madvise(p, f.map_bytes, POSIX_MADV_DONTNEED);
    }
    b->files_.push_back(f);
  }
  return b;
}

SyncEngineBackend::~SyncEngineBackend() {
  for (File& f : files_)
    if (f.map) ::munmap(f.map, f.map_bytes);
}

uint64_t SyncEngineBackend::now_ns() {
  return io::monotonic_ns();
}

std::string SyncEngineBackend::describe() const {
  return describe_sync_engine(engine_);
}

int SyncEngineBackend::execute(io::MemberIo& io) {
  if (io.member < 0 || size_t(io.member) >= files_.size()) return -ENODEV;
  File& file = files_[size_t(io.member)];
  const int fd = file.dev->fd();
  int64_t& position = file.position;
  iovec iov{io.buffer, io.length};
  ssize_t n = -1;
  auto seek = [&]() -> bool {
    if (position == int64_t(io.offset)) return true;
    if (::lseek(fd, off_t(io.offset), SEEK_SET) < 0) return false;
    position = int64_t(io.offset);
    return true;
  };
  switch (engine_) {
    case IoEngine::psync:
      n = io.write ? ::pwrite(fd, io.buffer, io.length, off_t(io.offset))
                   : ::pread(fd, io.buffer, io.length, off_t(io.offset));
      break;
    case IoEngine::sync:
      if (seek()) n = io.write ? ::write(fd, io.buffer, io.length) : ::read(fd, io.buffer, io.length);
      break;
    case IoEngine::vsync:
      if (seek()) n = io.write ? ::writev(fd, &iov, 1) : ::readv(fd, &iov, 1);
      break;
    case IoEngine::pvsync:
      n = io.write ? ::pwritev(fd, &iov, 1, off_t(io.offset)) : ::preadv(fd, &iov, 1, off_t(io.offset));
      break;
    case IoEngine::pvsync2:
      n = io.write ? ::pwritev2(fd, &iov, 1, off_t(io.offset), 0)
                   : ::preadv2(fd, &iov, 1, off_t(io.offset), 0);
      break;
    case IoEngine::mmap: {
      if (io.offset + io.length > file.map_bytes) return -EINVAL;
      uint8_t* map = file.map;
      uint8_t* at = map + io.offset;
      if (io.write)
        std::memcpy(at, io.buffer, io.length);
      else
        std::memcpy(io.buffer, at, io.length);
      if (file.dev->info().direct) {  // fio: "not really direct, but should drop the pages from the cache"
        const uint64_t page = uint64_t(::sysconf(_SC_PAGESIZE));
        uint8_t* start = map + io.offset / page * page;
        const size_t len = size_t(at + io.length - start);
        if (::msync(start, len, MS_SYNC) < 0) return -errno;
        ::posix_madvise(start, len, POSIX_MADV_DONTNEED);
      }
      return int(io.length);
    }
    default:
      return -EINVAL;
  }
  if (n < 0) {
    position = -1;
    return -errno;
  }
  if (engine_ == IoEngine::sync || engine_ == IoEngine::vsync) position += n;
  return int(n);
}

void SyncEngineBackend::submit() {
  for (io::MemberIo* io : queued_) {
    io->model = nullptr;
    const int result = execute(*io);
    done_.push_back({io, result, io::monotonic_ns()});
  }
  queued_.clear();
}

void SyncEngineBackend::queue_timer(io::MemberIo& io, uint64_t delay_ns) {
  // No I/O behind it; one thread, so waiting here is what fio would do too.
  ::usleep(useconds_t(delay_ns / 1000));
  done_.push_back({&io, -EAGAIN, io::monotonic_ns()});
}

unsigned SyncEngineBackend::reap(unsigned) {
  submit();
  // Take the batch out first: callbacks queue (and run) the next I/O.
  batch_.swap(done_);
  done_.clear();
  for (const Done& d : batch_) {
    batch_now_ = d.at_ns;
    d.io->done(*d.io, d.result);
  }
  const unsigned n = unsigned(batch_.size());
  batch_.clear();
  return n;
}

}  // namespace rs::workload
