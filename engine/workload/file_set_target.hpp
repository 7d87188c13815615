// The target of a run whose jobs use files of their own (file_set.hpp):
// every file of the run, each opened once by the target (its lock), and
// per job the job's own opens of its files (O_DIRECT or not) under one
// backend whose member k is the job's file k. A job addresses file k at
// (k << kFileShift) + offset; its port maps that back.
//
// Files the run lays out exist when the target is made; a file of a
// create_on_open job is created by the first job that opens it (fio's
// create_on_open: no layout, the job's open creates it).
#pragma once
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "io/member_device.hpp"
#include "workload/target.hpp"

namespace rs::workload {

class FileSetTarget final : public Target, public telemetry::TelemetrySource {
 public:
  // `paths`: every file of the run, once each. Those that exist are opened
  // now (read-write when `writes`); a missing one must belong to a
  // create_on_open job. Fails with a message naming the file.
  static Result<std::unique_ptr<FileSetTarget>> open(std::vector<std::string> paths, bool writes);

  uint64_t size_bytes() const override;  // the files' total at open
  uint32_t block_size() const override { return 512; }
  // File sets open per job (open_job_io): there is no backend over them all.
  std::unique_ptr<io::Backend> make_backend(unsigned) override { return nullptr; }
  std::unique_ptr<TargetPort> open_port(io::IoContext& context) override;
  std::unique_ptr<TargetPort> open_job_port(io::IoContext& context, const JobIo& jio) override;
  Result<JobIo> open_job_io(const JobOptions& job, unsigned clone) override;
  bool is_file_set() const override { return true; }
  bool offers_buffered() const override { return true; }
  // Trims go through the job's port (it knows the job's files).
  bool offers_trim() const override { return true; }
  bool offers_sync() const override { return true; }  // through the job's port (its files)
  std::string trim_method() const override;
  std::string describe() const override;
  // One entry per file, in the order given to open().
  std::vector<MemberTelemetry> members() const override;
  const telemetry::TelemetrySource& telemetry() const override { return *this; }
  const telemetry::LiveLatencySet& latencies() const override { return latencies_; }
  std::vector<MemberReading> read_members() const override;
  telemetry::MemberCountersSnapshot read_array() const override;

 private:
  friend class FileSetPort;
  struct File {
    std::string path;
    std::unique_ptr<io::MemberDevice> dev;  // null until created (create_on_open)
    telemetry::MemberCounters counters;
  };
  FileSetTarget() = default;
  // The file's device, creating it first for a create_on_open write job
  // (with `min_size` bytes for mmap, which cannot extend a file).
  Result<io::MemberDevice*> device(size_t index, const JobOptions& job, uint64_t min_size);

  bool writes_ = false;
  std::vector<std::unique_ptr<File>> files_;
  std::mutex open_mutex_;  // job threads open files concurrently
  telemetry::LiveLatencySet latencies_;
};

}  // namespace rs::workload
