// Sees every write and flush that reaches a member device, in the order the
// engine issues them: the data path's member I/O (through RecordingBackend,
// recording_backend.hpp) and the synchronous writes and flushes of
// superblocks, bitmaps and maintenance (MemberDevice::write_at / flush).
// The power-cut model (powercut_log.hpp) is one; an ordering test reads
// what it recorded.
//
// What each call means for the media, which is what an observer models:
//  - write_issued: the bytes may reach the media from now on, at any moment
//    (a drive's volatile cache may also lose them, until a flush);
//  - write_completed: the device acknowledged them; with `dsync` (RWF_DSYNC,
//    FUA on a block device) they are on the media now, otherwise not yet;
//  - flush_started / flush_completed: every write completed before the
//    flush started is on the media once it completes (fdatasync, a block
//    device's cache flush).
// Observers are called from any thread (I/O contexts, the metadata thread,
// tasks) and must order the calls themselves.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace rs::io {

class WriteObserver {
 public:
  virtual ~WriteObserver() = default;
  // Returns an id for write_completed().
  virtual uint64_t write_issued(const std::string& device, uint64_t offset, const void* data, size_t length,
                                bool dsync) = 0;
  // `result`: bytes written, or -errno.
  virtual void write_completed(uint64_t id, int result) = 0;
  // Returns an id for flush_completed().
  virtual uint64_t flush_started(const std::string& device) = 0;
  virtual void flush_completed(uint64_t id, bool ok) = 0;
};

}  // namespace rs::io
