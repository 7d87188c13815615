// Injected member faults, for tests: a FaultPlan says which byte ranges of
// which member devices fail (reads, and optionally writes), with which errno
// and how many times; FaultBackend applies it to the data path's member I/O
// and MemberDevice::read_at / write_at to the synchronous path (superblocks,
// bitmap, rebuild, check, repair), so every way the engine reaches a member
// sees the same bad blocks, as a disk with unreadable sectors shows them.
//
// An array assembled or created with a plan (AssembleOptions::faults) attaches
// it to every member device it opens and wraps its backends in a
// FaultBackend, the way the power-cut model's observer and RecordingBackend
// are plugged in. Without a plan neither is there and nothing costs anything.
//
// A failed I/O never reaches the device: a write leaves the media as it was,
// and a read's buffer is overwritten with a pattern (a real disk's failed
// read leaves it undefined), so code that used it anyway would return wrong
// bytes rather than pass by luck.
#pragma once
#include <cerrno>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "io/forwarding_backend.hpp"
#include "io/member_device.hpp"

namespace rs::io {

struct FaultRule {
  std::string device;   // MemberDevice::path() of the member
  uint64_t offset = 0;  // bytes from the start of the device
  uint64_t length = 0;  // bytes; an I/O that overlaps [offset, offset + length) fails
  bool reads = true;
  bool writes = false;
  int times = -1;  // I/Os it fails before it stops failing; -1: for ever
  int error = EIO;
  // A read fault that a write over it ends, as a disk's unreadable
  // ("pending") sector is remapped when it is written.
  bool until_written = false;
};

// Thread-safe: I/O contexts, tasks and the test consult and change it at once.
class FaultPlan {
 public:
  void add(FaultRule rule);
  void clear();
  // Whether an I/O of [offset, +length) on `device` fails: -errno of the
  // first rule that matches (one of its times used up), else 0.
  int take(const std::string& device, bool write, uint64_t offset, uint64_t length);
  // I/Os failed so far on `device` (reads or writes).
  uint64_t failed(const std::string& device, bool write) const;

  // The byte a failed read's buffer is filled with.
  static constexpr uint8_t kPoison = 0xE5;

 private:
  mutable std::mutex mutex_;
  std::vector<FaultRule> rules_;
  std::unordered_map<std::string, uint64_t> failed_reads_, failed_writes_;
};

// A Backend decorator that fails the member I/O its members' plan says
// (MemberDevice::faults()), completing it with -errno from reap() like a
// real error, without touching the device; everything else passes through.
// Single-threaded like every Backend.
class FaultBackend final : public ForwardingBackend {
 public:
  // `members[i]`: member i's device (null: missing), as the inner backend has them.
  FaultBackend(std::unique_ptr<Backend> inner, std::span<MemberDevice* const> members)
      : ForwardingBackend(std::move(inner), members) {}

  void queue(MemberIo& io) override;
  std::string describe() const override { return inner_->describe() + ", faults injected"; }

 private:
  // A failed I/O on its way back: the submitter's callback and the error.
  struct Pending {
    IoDoneFn done;
    void* owner;
    int error;
  };
  static void fault_done(MemberIo& io, int result);

  std::unordered_map<MemberIo*, Pending> pending_;
};

}  // namespace rs::io
