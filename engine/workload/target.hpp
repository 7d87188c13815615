// What a workload job drives: a RAID array, a plain file or block device, or
// the null target. A target hands each job a backend of its own (one
// io_uring context per job thread) or, on the simulator, a shared one.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "io/backend.hpp"

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
  std::shared_ptr<void> target_private;  // the target's per-slot state (child I/Os)
};

class Target {
 public:
  virtual ~Target() = default;
  virtual uint64_t size_bytes() const = 0;
  virtual uint32_t block_size() const = 0;   // alignment I/O must keep (O_DIRECT)
  // A backend for one submitting context with room for `depth` target I/Os.
  virtual std::unique_ptr<io::Backend> make_backend(unsigned depth) = 0;
  // Called once per slot before use, with the largest length it will carry.
  virtual void prepare(TargetIo& io, uint32_t max_length) = 0;
  // Starts one I/O on `backend`; io.done runs from backend.reap().
  virtual void submit(TargetIo& io, io::Backend& backend) = 0;
  virtual std::string describe() const = 0;
};

}  // namespace rs::workload
