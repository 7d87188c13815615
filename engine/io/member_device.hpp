// A member device: an image file, a loop device or a raw block device,
// opened so that no second process can drive it (OFD write lock on image
// files, O_EXCL on block devices) and with O_DIRECT where the target takes it.
//
// Synchronous read_at/write_at are for metadata and bulk maintenance
// (superblocks, rebuild, check); the I/O path goes through a Backend.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "io/device_model.hpp"

namespace rs::io {

struct DeviceInfo {
  std::string path;
  bool block_device = false;
  uint64_t size_bytes = 0;
  uint32_t logical_block_size = 512;
  bool rotational = false;
  uint32_t io_opt = 0;      // bytes, 0 = device gives none
  bool direct = false;      // opened with O_DIRECT
  std::string direct_note;  // why O_DIRECT is off, when it is
};

enum class OpenMode { ReadOnly, ReadWrite };

class MemberDevice {
 public:
  // Opens `path`. ReadWrite takes the exclusive lock (file) or O_EXCL
  // (block device) and fails with a message naming the path and the reason
  // ("in use by another process", "No such file or directory", ...).
  static std::unique_ptr<MemberDevice> open(const std::string& path, OpenMode mode, std::string* error);
  ~MemberDevice();
  MemberDevice(const MemberDevice&) = delete;
  MemberDevice& operator=(const MemberDevice&) = delete;

  int fd() const { return fd_; }
  const DeviceInfo& info() const { return info_; }
  const std::string& path() const { return info_.path; }
  uint64_t size_bytes() const { return info_.size_bytes; }
  // Alignment every I/O to this device must keep.
  uint32_t alignment() const { return info_.direct ? 4096 : 512; }

  // Synchronous I/O at any offset/length (bounce-buffered when unaligned for
  // O_DIRECT). Returns false with *error set on failure or short transfer.
  bool read_at(uint64_t offset, void* buf, size_t len, std::string* error);
  bool write_at(uint64_t offset, const void* buf, size_t len, std::string* error);
  bool flush(std::string* error);

  // Optional emulated-disk model; completions on this member are held back
  // until it says the emulated disk is done.
  void set_model(std::shared_ptr<DeviceModel> model) { model_ = std::move(model); }
  DeviceModel* model() const { return model_.get(); }

 private:
  MemberDevice() = default;
  bool transfer(bool write, uint64_t offset, uint8_t* buf, size_t len, std::string* error);
  int fd_ = -1;
  DeviceInfo info_;
  std::shared_ptr<DeviceModel> model_;
};

// A buffer aligned for O_DIRECT, freed on destruction. Not cleared: pages
// nobody touches (the simulator moves no bytes) are never faulted in.
class AlignedBuffer {
 public:
  AlignedBuffer() = default;
  explicit AlignedBuffer(size_t bytes, size_t alignment = 4096);
  ~AlignedBuffer();
  AlignedBuffer(AlignedBuffer&& o) noexcept : data_(o.data_), size_(o.size_) {
    o.data_ = nullptr;
    o.size_ = 0;
  }
  AlignedBuffer& operator=(AlignedBuffer&& o) noexcept;
  AlignedBuffer(const AlignedBuffer&) = delete;
  AlignedBuffer& operator=(const AlignedBuffer&) = delete;
  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace rs::io
