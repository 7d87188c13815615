// The concrete workload targets: an array (real or simulated), a plain file
// or block device, and the null target.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "io/device_model.hpp"
#include "io/member_device.hpp"
#include "io/sim_backend.hpp"
#include "raid/array.hpp"
#include "workload/target.hpp"

namespace rs::workload {

// An assembled array; every job gets its own io_uring context.
class ArrayTarget final : public Target {
 public:
  explicit ArrayTarget(raid::Array& array) : array_(array) {}
  uint64_t size_bytes() const override { return array_.size_bytes(); }
  uint32_t block_size() const override { return 4096; }
  std::unique_ptr<io::Backend> make_backend(unsigned depth) override;
  void prepare(TargetIo& io, uint32_t max_length) override;
  void submit(TargetIo& io, io::Backend& backend) override;
  std::string describe() const override;
  std::vector<MemberTelemetry> members() const override;
  std::string policy() const override;

 protected:
  raid::Array& array_;
};

// A simulated array of emulated disks on one shared virtual-time backend.
class SimArrayTarget final : public Target {
 public:
  // `models[i]` is member i; nullptr makes it missing.
  SimArrayTarget(const raid::Geometry& geometry, std::vector<std::shared_ptr<io::DeviceModel>> models);
  raid::Array& array() { return *array_; }
  io::SimBackend& sim() { return *backend_; }
  uint64_t size_bytes() const override { return array_->size_bytes(); }
  uint32_t block_size() const override { return 4096; }
  std::unique_ptr<io::Backend> make_backend(unsigned) override { return nullptr; }
  io::Backend* shared_backend() override { return backend_.get(); }
  void prepare(TargetIo& io, uint32_t max_length) override { inner_->prepare(io, max_length); }
  void submit(TargetIo& io, io::Backend& backend) override { inner_->submit(io, backend); }
  std::string describe() const override;
  std::vector<MemberTelemetry> members() const override { return inner_->members(); }
  std::string policy() const override { return inner_->policy(); }

 private:
  std::vector<std::shared_ptr<io::DeviceModel>> models_;
  std::unique_ptr<raid::Array> array_;
  std::unique_ptr<ArrayTarget> inner_;
  std::unique_ptr<io::SimBackend> backend_;
};

// One plain file or block device.
class DeviceTarget final : public Target {
 public:
  explicit DeviceTarget(std::unique_ptr<io::MemberDevice> dev) : dev_(std::move(dev)) {}
  uint64_t size_bytes() const override { return dev_->size_bytes(); }
  uint32_t block_size() const override { return dev_->alignment(); }
  std::unique_ptr<io::Backend> make_backend(unsigned depth) override;
  void prepare(TargetIo& io, uint32_t max_length) override;
  void submit(TargetIo& io, io::Backend& backend) override;
  std::string describe() const override;
  std::vector<MemberTelemetry> members() const override;

 private:
  std::unique_ptr<io::MemberDevice> dev_;
  telemetry::MemberCounters counters_;
};

// Completes every I/O at once without touching data: measures our own
// per-I/O overhead (fio's ioengine=null).
class NullTarget final : public Target {
 public:
  explicit NullTarget(uint64_t size_bytes) : size_(size_bytes) {}
  uint64_t size_bytes() const override { return size_; }
  uint32_t block_size() const override { return 1; }
  std::unique_ptr<io::Backend> make_backend(unsigned depth) override;
  void prepare(TargetIo& io, uint32_t max_length) override;
  void submit(TargetIo& io, io::Backend& backend) override;
  std::string describe() const override { return "null (no I/O)"; }

 private:
  uint64_t size_;
};

}  // namespace rs::workload
