// What a workload job drives: a RAID array, a plain file or block device, or
// the null target. A job runs on an I/O context (io/context.hpp) and opens a
// TargetPort on it: the target's per-context state (for an array, an
// ArrayPort). On real targets every job has a context and backend of its
// own (one io_uring per job thread); on the simulator every job shares one
// virtual-time context on one thread.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "io/backend.hpp"
#include "io/context.hpp"
#include "telemetry/live_histogram.hpp"
#include "telemetry/member_counters.hpp"
#include "telemetry/sampler.hpp"
#include "workload/job_options.hpp"

namespace rs::workload {

struct TargetIo;
class Target;

// fio's sync I/Os (DDIR_SYNC, DDIR_DATASYNC, DDIR_SYNC_FILE_RANGE).
enum class SyncKind { fsync, fdatasync, sync_file_range };
using TargetDoneFn = void (*)(TargetIo& io, int result);  // result: bytes or -errno

// One job-level I/O. Preallocated by the job (one per iodepth slot) and
// prepared once by the port (TargetPort::prepare), so issuing it allocates
// nothing.
struct TargetIo {
  bool write = false;
  bool trim = false;    // a discard (Target::trim, done by the job itself); write is then false
  uint64_t offset = 0;  // bytes into the target
  uint32_t length = 0;
  void* buffer = nullptr;  // aligned to 4096
  uint32_t job_id = 0;     // the submitting job, for pid-based policies
  uint16_t ioprio = 0;     // fio's per-I/O priority (cmdprio): class << 13 | level; 0: the job thread's
  TargetDoneFn done = nullptr;
  void* owner = nullptr;
  uint64_t issue_ns = 0;                 // set by the job
  uint64_t submit_ns = 0;                // set by the job: when the batch went to the kernel
  int served_by = -1;                    // set by the target on completion: member that served (last) read
  std::shared_ptr<void> target_private;  // the port's per-slot state (the array I/O)
};

struct MemberTelemetry {
  std::string path;
  telemetry::MemberCountersSnapshot counters;
};

// A target's state on one I/O context; used on that context's thread only.
class TargetPort {
 public:
  virtual ~TargetPort() = default;
  // Called once per slot before use, with the largest length it will carry.
  virtual void prepare(TargetIo& io, uint32_t max_length) = 0;
  // Starts one I/O; io.done runs from the context's run_once().
  virtual void submit(TargetIo& io) = 0;
  virtual io::IoContext& context() = 0;
  io::Backend& backend() { return context().backend(); }
  // Discards [offset, offset + length) of the job's target now: the
  // target's trim(); a file set's port first finds the job's file.
  virtual int trim(Target& target, uint64_t offset, uint32_t length);
  // Syncs the file that holds `offset` (a file set: the job's file k at
  // k << kFileShift) now, on the job's thread: the target's sync().
  virtual int sync(Target& target, uint64_t offset, SyncKind kind, unsigned range_flags);
};

// What one job's I/O runs on (Target::open_job_io), and what the output
// says about it: only what actually runs.
struct JobIo {
  std::shared_ptr<void> keep;  // what the backend uses (the job's own open of the file); outlives it
  std::unique_ptr<io::Backend> backend;
  std::string engine;   // "psync (pread/pwrite, one I/O at a time)", "libaio, run on io_uring ..."
  std::string io_mode;  // "buffered (page cache)", "direct (O_DIRECT)", ...
  // posixaio on a path other than glibc's (an array, or no POSIX AIO): the
  // job's port keeps glibc's rule of one request in flight per file.
  bool one_in_flight_per_file = false;
  // The job asked for direct=1: an array then fails I/O off its unit with
  // EINVAL, as O_DIRECT does, instead of read-modify-writing it.
  bool direct = false;
  // A multi-file job (file_set.hpp): each file's region size, in the job's
  // order; file k's bytes are at offsets k << kFileShift onwards. Empty: one
  // region, offsets are the target's.
  std::vector<uint64_t> file_sizes;
  std::vector<unsigned> file_indexes;  // the target's number of each of those files
  std::vector<std::string> file_paths;
};

// A multi-file job addresses file k at offset (k << kFileShift) + offset in
// the file: 1 TiB per file.
inline constexpr unsigned kFileShift = 40;
inline constexpr uint64_t kFileOffsetMask = (uint64_t{1} << kFileShift) - 1;

class Target {
 public:
  virtual ~Target() = default;
  virtual uint64_t size_bytes() const = 0;
  virtual uint32_t block_size() const = 0;  // alignment I/O must keep (O_DIRECT)
  // Appended to a direct=1 job's alignment refusal: what the block size is
  // here and what serves I/O off it ("" for none).
  virtual std::string alignment_hint() const { return ""; }
  // A backend for one job's context with room for `depth` target I/Os.
  virtual std::unique_ptr<io::Backend> make_backend(unsigned depth) = 0;
  // Simulated targets: the one virtual-time context every job shares (all
  // jobs then run on the calling thread). Real targets: null.
  virtual io::IoContext* shared_context() { return nullptr; }
  virtual std::unique_ptr<TargetPort> open_port(io::IoContext& context) = 0;
  // One job's backend, following its ioengine and direct options as far as
  // this target can; the default (arrays, null) is make_backend() with
  // the sync engines at depth 1. `clone` is the instance's number among its
  // job's numjobs (fio's $jobnum). An error names the file and the reason.
  virtual Result<JobIo> open_job_io(const JobOptions& job, unsigned clone);
  // The port a job's I/O goes through, given what open_job_io() opened
  // (a file set maps the job's files); the default is open_port().
  virtual std::unique_ptr<TargetPort> open_job_port(io::IoContext& context, const JobIo&) {
    return open_port(context);
  }
  // Whether jobs run on files of their own (file_set.hpp): then each job's
  // regions come from open_job_io(), not from size_bytes().
  virtual bool is_file_set() const { return false; }
  // Whether direct=0 can go through a page cache here (a file or device
  // can; an array has none of its own).
  virtual bool offers_buffered() const { return false; }
  // Whether a job registers its slot buffers with its backend (io_uring
  // fixed buffers: the pages are pinned once, not on every request). Our
  // arrays do, as the engine's own choice for member I/O; files and devices
  // follow fio, whose io_uring engine does it only with fixedbufs=1.
  virtual bool registers_buffers() const { return false; }
  // Whether trim() discards here (a file or block device; the null target).
  virtual bool offers_trim() const { return false; }
  // Discards [offset, offset + length) now, as fio's os_trim: a regular
  // file punches a hole (fallocate PUNCH_HOLE | KEEP_SIZE), a block device
  // gets BLKDISCARD. Returns length, or -errno. Called from job threads.
  virtual int trim(uint64_t offset, uint32_t length);
  // Drops the cached pages of [offset, offset + length) (fio's
  // file_invalidate_cache: POSIX_FADV_DONTNEED); targets without a page
  // cache do nothing. Called from job threads.
  virtual void drop_cache(uint64_t offset, uint64_t length) {
    (void)offset;
    (void)length;
  }
  // Whether sync() syncs here (a file or block device; the null target).
  virtual bool offers_sync() const { return false; }
  // fsync, fdatasync or sync_file_range(range_flags, the whole file) of
  // the target's file, as fio's do_io_u_sync. 0 or -errno. Job threads.
  virtual int sync(uint64_t offset, SyncKind kind, unsigned range_flags);
  // How trim() discards, for the output ("fallocate(PUNCH_HOLE)", ...).
  virtual std::string trim_method() const { return "none"; }
  virtual std::string describe() const = 0;
  // Per-member counters (arrays), for read shares and pending depth.
  virtual std::vector<MemberTelemetry> members() const { return {}; }
  virtual std::string policy() const { return ""; }
  // The live session: what a telemetry sampler reads.
  virtual const telemetry::TelemetrySource& telemetry() const = 0;
  virtual const telemetry::LiveLatencySet& latencies() const = 0;
};

inline int TargetPort::trim(Target& target, uint64_t offset, uint32_t length) {
  return target.trim(offset, length);
}

inline int TargetPort::sync(Target& target, uint64_t offset, SyncKind kind, unsigned range_flags) {
  return target.sync(offset, kind, range_flags);
}

// fio's do_io_u_sync on one open file: 0 or -errno (file_sync.cpp).
int sync_fd(int fd, SyncKind kind, unsigned range_flags);

}  // namespace rs::workload
