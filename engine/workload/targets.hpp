// The concrete workload targets: an array (real or simulated), a plain file
// or block device, and the null target.
#pragma once
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "io/device_model.hpp"
#include "io/member_device.hpp"
#include "io/sim_backend.hpp"
#include "raid/array.hpp"
#include "workload/target.hpp"
#include "workload/unit_locks.hpp"

namespace rs::workload {

// The backend a job's engine runs on over `devs` (the job's own opens of
// its files; an I/O's member index picks one): a sync engine's system
// calls, libaio on a buffered file as pread/pwrite at submission, else
// io_uring. Sets j.backend and j.engine; an error names what failed.
Status open_engine(const JobOptions& job, const std::vector<io::MemberDevice*>& devs, bool direct, JobIo& j);

// An assembled array; every job gets its own context and ArrayPort. I/O
// not aligned to the array's unit is read-modify-written in whole units
// (direct=0) or fails with EINVAL (direct=1): array_target_port.hpp.
class ArrayTarget final : public Target {
 public:
  explicit ArrayTarget(raid::Array& array);
  ~ArrayTarget() override;
  uint64_t size_bytes() const override { return array_.size_bytes(); }
  // The array's unit: what direct=1 I/O must keep (array_unit_bytes).
  uint32_t block_size() const override { return unit_; }
  std::unique_ptr<io::Backend> make_backend(unsigned depth) override { return array_.make_backend(depth); }
  // A port with direct=0's rules (the simulator's jobs, tools).
  std::unique_ptr<TargetPort> open_port(io::IoContext& context) override;
  Result<JobIo> open_job_io(const JobOptions& job, unsigned clone) override;
  std::unique_ptr<TargetPort> open_job_port(io::IoContext& context, const JobIo& jio) override;
  std::string alignment_hint() const override;
  bool registers_buffers() const override { return true; }
  std::string describe() const override;
  std::vector<MemberTelemetry> members() const override;
  std::string policy() const override;
  const telemetry::TelemetrySource& telemetry() const override { return array_; }
  const telemetry::LiveLatencySet& latencies() const override { return array_.latencies(); }
  // Whether a job of this target has read-modify-written (for tests).
  bool read_modify_written() const { return locks_->rmw_seen(); }

 private:
  raid::Array& array_;
  uint32_t unit_;
  std::unique_ptr<UnitLocks> locks_;  // every port's, across all jobs of every run
};

// A simulated array of emulated disks on one shared virtual-time context.
class SimArrayTarget final : public Target {
 public:
  // `models[i]` is member i; nullptr makes it missing. `bitmap_chunk_bytes`
  // (0: none) gives the array a write-intent bitmap whose page writes and
  // daemon run on the simulator's context. Fails when the shape is not one
  // the levels accept.
  static Result<std::unique_ptr<SimArrayTarget>> make(const raid::Shape& shape,
                                                      std::vector<std::shared_ptr<io::DeviceModel>> models,
                                                      uint32_t bitmap_chunk_bytes = 0);
  ~SimArrayTarget() override;
  raid::Array& array() { return *array_; }
  io::SimBackend& sim() { return *sim_; }
  uint64_t size_bytes() const override { return array_->size_bytes(); }
  uint32_t block_size() const override { return inner_->block_size(); }
  std::unique_ptr<io::Backend> make_backend(unsigned) override { return nullptr; }
  io::IoContext* shared_context() override { return context_.get(); }
  std::unique_ptr<TargetPort> open_port(io::IoContext& context) override {
    return inner_->open_port(context);
  }
  std::string describe() const override;
  std::vector<MemberTelemetry> members() const override { return inner_->members(); }
  std::string policy() const override { return inner_->policy(); }
  const telemetry::TelemetrySource& telemetry() const override { return *array_; }
  const telemetry::LiveLatencySet& latencies() const override { return array_->latencies(); }

 private:
  SimArrayTarget() = default;
  std::vector<std::shared_ptr<io::DeviceModel>> models_;
  std::unique_ptr<raid::Array> array_;
  std::unique_ptr<ArrayTarget> inner_;
  io::SimBackend* sim_ = nullptr;  // owned by context_
  std::unique_ptr<io::IoContext> context_;
};

// One plain file or block device.
class DeviceTarget final : public Target, public telemetry::TelemetrySource {
 public:
  // `min_bytes`: what jobs may address beyond a file's end (fill_device:
  // the file plus its filesystem's free space; writes there extend it).
  explicit DeviceTarget(std::unique_ptr<io::MemberDevice> dev, uint64_t min_bytes = 0)
      : dev_(std::move(dev)), min_bytes_(min_bytes) {}
  uint64_t size_bytes() const override { return std::max(dev_->size_bytes(), min_bytes_); }
  // What direct I/O must keep, as fio checks it: the logical block size
  // (512 for an image file; the filesystem may still ask more and fail the
  // I/O, as it does under fio).
  uint32_t block_size() const override { return dev_->info().direct ? dev_->info().logical_block_size : 512; }
  std::unique_ptr<io::Backend> make_backend(unsigned depth) override;
  std::unique_ptr<TargetPort> open_port(io::IoContext& context) override;
  // The job's own open of the file (O_DIRECT or not, as the job says) and
  // its engine: a sync engine's system calls, else io_uring.
  Result<JobIo> open_job_io(const JobOptions& job, unsigned clone) override;
  bool offers_buffered() const override { return true; }
  bool offers_trim() const override { return true; }
  int trim(uint64_t offset, uint32_t length) override;
  bool offers_sync() const override { return true; }
  int sync(uint64_t, SyncKind kind, unsigned range_flags) override {
    return sync_fd(dev_->fd(), kind, range_flags);
  }
  void drop_cache(uint64_t offset, uint64_t length) override;
  std::string trim_method() const override;
  std::string describe() const override;
  std::vector<MemberTelemetry> members() const override;
  const telemetry::TelemetrySource& telemetry() const override { return *this; }
  const telemetry::LiveLatencySet& latencies() const override { return latencies_; }
  std::vector<MemberReading> read_members() const override;
  telemetry::MemberCountersSnapshot read_array() const override { return counters_.snapshot(); }

 private:
  friend class DevicePort;
  std::unique_ptr<io::MemberDevice> dev_;
  uint64_t min_bytes_ = 0;
  telemetry::MemberCounters counters_;
  telemetry::LiveLatencySet latencies_;
};

// Completes every I/O at once without touching data: measures our own
// per-I/O overhead (fio's ioengine=null).
class NullTarget final : public Target, public telemetry::TelemetrySource {
 public:
  explicit NullTarget(uint64_t size_bytes) : size_(size_bytes) {}
  uint64_t size_bytes() const override { return size_; }
  uint32_t block_size() const override { return 1; }
  std::unique_ptr<io::Backend> make_backend(unsigned depth) override;
  std::unique_ptr<TargetPort> open_port(io::IoContext& context) override;
  std::string describe() const override { return "null (no I/O)"; }
  Result<JobIo> open_job_io(const JobOptions& job, unsigned clone) override;
  bool offers_buffered() const override { return true; }  // nothing is read or written either way
  bool offers_trim() const override { return true; }
  int trim(uint64_t, uint32_t length) override { return int(length); }
  bool offers_sync() const override { return true; }  // fio's null engine completes a sync at once
  int sync(uint64_t, SyncKind, unsigned) override { return 0; }
  std::string trim_method() const override { return "counted only (null target)"; }
  const telemetry::TelemetrySource& telemetry() const override { return *this; }
  const telemetry::LiveLatencySet& latencies() const override { return latencies_; }
  std::vector<MemberReading> read_members() const override { return {}; }
  telemetry::MemberCountersSnapshot read_array() const override { return counters_.snapshot(); }

 private:
  friend class NullPort;
  uint64_t size_;
  telemetry::MemberCounters counters_;
  telemetry::LiveLatencySet latencies_;
};

}  // namespace rs::workload
