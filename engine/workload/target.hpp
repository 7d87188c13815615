// What a workload job drives: a RAID array, a plain file or block device, or
// the null target. A target hands each job a backend of its own (one
// io_uring context per job thread) or, on the simulator, one shared
// virtual-time backend that every job runs on, on one thread.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/backend.hpp"
#include "telemetry/member_counters.hpp"

namespace rs::workload {

struct TargetIo;
using TargetDoneFn = void (*)(TargetIo& io, int result);  // result: bytes or -errno

// One job-level I/O. Preallocated by the job (one per iodepth slot) and
// prepared once by the target (Target::prepare), so issuing it allocates
// nothing.
struct TargetIo {
  bool write = false;
  uint64_t offset = 0;      // bytes into the target
  uint32_t length = 0;
  void* buffer = nullptr;   // aligned to 4096
  uint32_t job_id = 0;      // the submitting job, for pid-based policies
  TargetDoneFn done = nullptr;
  void* owner = nullptr;
  uint64_t issue_ns = 0;    // set by the job
  uint64_t submit_ns = 0;   // set by the job: when the batch went to the kernel
  int served_by = -1;       // set by the target on completion: member that served (last) read
  std::shared_ptr<void> target_private;  // the target's per-slot state (child I/Os)
};

struct MemberTelemetry {
  std::string path;
  telemetry::MemberCountersSnapshot counters;
};

class Target {
 public:
  virtual ~Target() = default;
  virtual uint64_t size_bytes() const = 0;
  virtual uint32_t block_size() const = 0;   // alignment I/O must keep (O_DIRECT)
  // A backend for one submitting context with room for `depth` target I/Os.
  virtual std::unique_ptr<io::Backend> make_backend(unsigned depth) = 0;
  // Simulated targets: the one virtual-time backend every job shares (all
  // jobs then run on one thread). Real targets: null.
  virtual io::Backend* shared_backend() { return nullptr; }
  // Called once per slot before use, with the largest length it will carry.
  virtual void prepare(TargetIo& io, uint32_t max_length) = 0;
  // Starts one I/O on `backend`; io.done runs from backend.reap().
  virtual void submit(TargetIo& io, io::Backend& backend) = 0;
  virtual std::string describe() const = 0;
  // Per-member counters (arrays), for read shares and pending depth.
  virtual std::vector<MemberTelemetry> members() const { return {}; }
  virtual std::string policy() const { return ""; }
};

}  // namespace rs::workload
