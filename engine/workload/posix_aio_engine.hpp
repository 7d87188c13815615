// fio's posixaio engine on files and block devices: glibc's POSIX AIO
// (aio_read, aio_write, aio_error, aio_return, aio_suspend), as fio calls
// it. glibc runs the requests on helper threads, one thread per file
// descriptor serving that descriptor's requests one after another, so a
// job keeps `iodepth` requests queued while its file sees one at a time:
// fio's 4 KiB randread at iodepth=8 ran 11.0k IOPS here, psync 12.9k,
// io_uring at depth 8 42.4k. Running the same library calls keeps that,
// and the hand-off to glibc's thread, as they are.
//
// A queued I/O waits for submit(), which calls aio_read/aio_write for each
// (fio's queue: one library call per I/O). reap() collects the finished
// requests (aio_error no longer EINPROGRESS) and waits in aio_suspend when
// it needs more, as fio's getevents does. Members with an emulated disk
// model are not handled: make() refuses them.
#pragma once
#include <aio.h>

#include <memory>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "io/backend.hpp"
#include "io/clock.hpp"
#include "io/member_device.hpp"
#include "workload/soft_completions.hpp"
#include "workload/stable_pool.hpp"

namespace rs::workload {

class PosixAioBackend final : public io::Backend {
 public:
  // Errc::unsupported when a member has a device model.
  // max_per_reap: most finished requests one reap() hands on (the job's
  // iodepth_batch_complete_max, as fio's getevents); 0: all there are.
  static Result<std::unique_ptr<PosixAioBackend>> make(std::vector<io::MemberDevice*> devs, unsigned depth,
                                                       unsigned max_per_reap);
  ~PosixAioBackend() override;

  void queue(io::MemberIo& io) override;
  void submit() override;
  void queue_timer(io::MemberIo& io, uint64_t delay_ns) override;
  unsigned reap(unsigned min_complete) override { return reap_until(min_complete, io::kNoDeadline); }
  unsigned reap_until(unsigned min_complete, uint64_t deadline_ns) override;
  uint64_t now_ns() override { return io::monotonic_ns(); }
  uint64_t batch_now_ns() override { return batch_now_; }
  unsigned in_flight() const override { return unsigned(pending_.size() + running_.size() + timers_.size()); }
  std::string describe() const override {
    return "posixaio (glibc POSIX AIO: aio_read/aio_write, one request at a time per file)";
  }

 private:
  PosixAioBackend() = default;
  struct Request {
    aiocb cb{};
    io::MemberIo* io = nullptr;
  };
  // Moves what glibc has finished from running_ to finished_ (at most
  // `room`); returns how many.
  unsigned collect(unsigned room);

  std::vector<io::MemberDevice*> devs_;
  unsigned reap_limit_ = ~0u;
  StablePool<Request> pool_;  // glibc holds a request's aiocb while it runs
  std::vector<Request*> pending_, running_;
  std::vector<std::pair<io::MemberIo*, int>> finished_;
  std::vector<const aiocb*> suspend_list_;
  SoftCompletions timers_;  // timers, and I/O that failed before the kernel saw it
  uint64_t batch_now_ = 0;
};

}  // namespace rs::workload
