// fio's libaio engine on files and block devices: Linux native AIO through
// its system calls (io_setup, io_submit, io_getevents, io_destroy; no
// libaio library needed), so a libaio job runs the kernel path fio's does
// rather than io_uring's. On a buffered file the kernel does each I/O
// inside io_submit, synchronously, as it does for fio.
//
// A queued I/O waits for submit(), which hands the whole batch to one
// io_submit (fio's commit); reap() takes what io_getevents returns, at most
// the job's iodepth_batch_complete_max per call, as fio's getevents. I/O
// priorities go in the iocb (IOCB_FLAG_IOPRIO), as fio's cmdprio does.
// Members with an emulated disk model are not handled: make() refuses them.
#pragma once
#include <linux/aio_abi.h>

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

class AioBackend final : public io::Backend {
 public:
  // Null, with `error` set, when the kernel has no AIO (io_setup fails,
  // e.g. fs.aio-max-nr reached) or a member has a device model.
  // max_per_reap: most events one reap() asks io_getevents for (fio's
  // getevents max, iodepth_batch_complete_max), so a job pays the same
  // system calls as fio's; 0: as many as fit.
  static Result<std::unique_ptr<AioBackend>> make(std::vector<io::MemberDevice*> devs, unsigned depth,
                                                  unsigned max_per_reap);
  ~AioBackend() override;

  void queue(io::MemberIo& io) override;
  void submit() override;
  void queue_timer(io::MemberIo& io, uint64_t delay_ns) override;
  unsigned reap(unsigned min_complete) override { return reap_until(min_complete, io::kNoDeadline); }
  unsigned reap_until(unsigned min_complete, uint64_t deadline_ns) override;
  uint64_t now_ns() override { return io::monotonic_ns(); }
  uint64_t batch_now_ns() override { return batch_now_; }
  unsigned in_flight() const override { return unsigned(pending_.size() + submitted_ + timers_.size()); }
  std::string describe() const override { return "libaio (Linux AIO: io_submit/io_getevents)"; }

 private:
  AioBackend() = default;

  aio_context_t ctx_ = 0;
  std::vector<io::MemberDevice*> devs_;
  StablePool<iocb> pool_;       // the kernel holds an iocb while it is in flight
  std::vector<iocb*> pending_;  // queued, not yet given to io_submit
  std::vector<io_event> events_;
  SoftCompletions timers_;  // timers, and I/O that failed before the kernel saw it
  unsigned submitted_ = 0;  // given to the kernel, not yet reaped
  unsigned reap_limit_ = ~0u;
  uint64_t batch_now_ = 0;
};

}  // namespace rs::workload
