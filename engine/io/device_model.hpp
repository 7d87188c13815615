// A device model decides when an emulated disk would finish an I/O. The
// simulator uses it for virtual time; the real path uses it to hold
// completions back so members on one host disk behave as independent disks.
#pragma once
#include <cstdint>

namespace rs::io {

class DeviceModel {
 public:
  virtual ~DeviceModel() = default;
  // Called once per I/O, in submission order, at time `now_ns`. Returns the
  // time at which the emulated device completes it. Thread-safe: one model
  // (one emulated disk) may be fed by several submitting contexts.
  virtual uint64_t schedule(uint64_t now_ns, bool write, uint64_t offset, uint32_t length) = 0;
  // Called when the I/O completes (at the time schedule() returned), so a
  // rotational model can move its head there.
  virtual void complete(uint64_t offset, uint32_t length) { (void)offset; (void)length; }
  virtual bool rotational() const = 0;
  virtual uint32_t io_opt() const = 0;                // bytes, 0 = none
  virtual uint32_t logical_block_size() const = 0;    // bytes
};

}  // namespace rs::io
