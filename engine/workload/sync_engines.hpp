// fio's synchronous I/O engines on one file or block device: each I/O is
// one system call on the job's own thread, one at a time (fio caps these
// engines at depth 1), on the job's own open of the file (its own offset
// for sync/vsync, its own O_DIRECT setting):
//   psync   pread / pwrite          sync    lseek + read / write
//   pvsync  preadv / pwritev        vsync   lseek + readv / writev
//   pvsync2 preadv2 / pwritev2      mmap    memcpy to/from a shared mapping
// With direct=1, mmap does what fio's mmap engine does after each I/O:
// msync(MS_SYNC) and POSIX_MADV_DONTNEED on the pages it touched.
//
// The I/O runs in submit(); reap() then delivers it with the time the system
// call returned as its completion time, so clat is the system call's time.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "io/backend.hpp"
#include "io/member_device.hpp"
#include "workload/job_options.hpp"

namespace rs::workload {

class SyncEngineBackend final : public io::Backend {
 public:
  // `engine` must be a sync engine (is_sync_engine). `devs` are the job's
  // own opens of its files (an I/O's member index picks one) and must
  // outlive the backend. For mmap, the whole of each is mapped (readable,
  // and writable when `writes`); `random` picks the madvise hint. Fails
  // (Errc::io_error naming the file) when a mapping cannot be made.
  static Result<std::unique_ptr<SyncEngineBackend>> make(IoEngine engine, std::vector<io::MemberDevice*> devs,
                                                         bool writes, bool random);
  ~SyncEngineBackend() override;

  void queue(io::MemberIo& io) override { queued_.push_back(&io); }
  void submit() override;
  void queue_timer(io::MemberIo& io, uint64_t delay_ns) override;
  unsigned reap(unsigned min_complete) override;
  uint64_t now_ns() override;
  uint64_t batch_now_ns() override { return batch_now_; }
  unsigned in_flight() const override { return unsigned(queued_.size() + done_.size()); }
  std::string describe() const override;

 private:
  explicit SyncEngineBackend(IoEngine engine) : engine_(engine) {}
  int execute(io::MemberIo& io);
  struct File {
    io::MemberDevice* dev = nullptr;
    uint8_t* map = nullptr;  // mmap
    uint64_t map_bytes = 0;
    int64_t position = -1;  // file position for sync/vsync (-1: unknown)
  };
  struct Done {
    io::MemberIo* io;
    int result;
    uint64_t at_ns;
  };
  IoEngine engine_;
  std::vector<File> files_;
  std::vector<io::MemberIo*> queued_;
  std::vector<Done> done_, batch_;
  uint64_t batch_now_ = 0;
};

// What the engine does, for the output: "psync (pread/pwrite, one I/O at a time)".
std::string describe_sync_engine(IoEngine engine);

}  // namespace rs::workload
