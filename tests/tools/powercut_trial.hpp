// The power-cut trials (rs_powercut_trials): shapes, what a recorded run
// holds, the stamp every written sector carries, and what one cut found.
//
// A trial records a workload on an array of image files with every member
// write and flush logged (io/powercut_log.hpp), then cuts the log at random
// points: the members are rebuilt as the media could hold them at the cut
// (writes not yet flushed dropped, applied or torn at 512 bytes), the array
// is assembled again (its resync included), and three promises are checked:
//  - no acknowledged-and-flushed write is lost. The rule, md's contract for
//    a block device with a volatile cache: a write is acknowledged and
//    flushed at a cut when the array completed it and then an array flush
//    (Array::flush, md's REQ_PREFLUSH) or a clean stop (close) that started
//    after its completion returned before the cut. Its sectors must read
//    back that version or a later one that was started before the cut. A
//    sector never flushed may read back any version started before the
//    cut, or what it held before (never another sector's or a garbled one);
//  - check finds 0 mismatches once the array is back;
//  - a read with any one member left out returns what the whole array does.
#pragma once
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "base/result.hpp"
#include "io/powercut_log.hpp"

namespace rs::powercut {

struct Shape {
  std::string name;  // "raid5 x4, bitmap"
  int level = 1;
  int disks = 2;
  std::string layout;  // raid10 "n2" / "f2", raid5 "left-symmetric", raid1 ""
  bool bitmap = false;
};
// RAID1 x2, RAID10 n2 x4, RAID10 f2 x4 and RAID5 x4, each with and without
// a write-intent bitmap.
std::vector<Shape> all_shapes();

inline constexpr uint64_t kMemberBytes = 5ull << 20;  // 1 MiB metadata, 4 MiB data
inline constexpr uint32_t kChunk = 64 * 1024;
inline constexpr uint32_t kBitmapChunk = 64 * 1024;
inline constexpr uint64_t kRegionBytes = 768 * 1024;  // where the workload writes
inline constexpr uint32_t kSector = 512;
inline constexpr uint32_t kBlock = 4096;

// Fills a sector with the stamp of (trial seed, array sector, version).
void stamp(uint8_t* sector, uint64_t seed, uint64_t array_sector, uint64_t version);
// The version a sector's stamp names; 0 when it holds no stamp of this
// trial; -1 when it holds one for another sector, or a garbled one.
int64_t read_stamp(const uint8_t* sector, uint64_t seed, uint64_t array_sector);

// One array write of the workload, with where it sits in the log.
struct ArrayWrite {
  uint64_t offset = 0;
  uint32_t length = 0;
  uint64_t version = 0;                     // the workload's serial number, from 1
  size_t started = io::PowerCutLog::kNone;  // event index: before its first member write
  size_t flushed = io::PowerCutLog::kNone;  // event index: an array flush or close covering it returned
};

struct Recording {
  Shape shape;
  uint64_t seed = 0;
  // The members held random bytes before create: an initial resync runs
  // (and is interrupted) during the recording, as on used disks.
  bool junk = false;
  std::vector<std::string> base;  // the member images when recording began
  std::shared_ptr<io::PowerCutLog> log;
  std::vector<ArrayWrite> writes;  // in version order
};

// Creates the array in `dir`, snapshots it and records the workload.
Result<Recording> record(const Shape& shape, uint64_t seed, const std::string& dir);

struct CutOutcome {
  std::string refused;          // why the array did not come back ("" : it did)
  uint64_t wrong_blocks = 0;    // 4 KiB blocks holding a sector no rule allows
  uint64_t lost_blocks = 0;     // of them, blocks that lost acknowledged-and-flushed data
  uint64_t mismatches = 0;      // check's count (sectors) after the array came back
  uint64_t degraded_wrong = 0;  // blocks a read without one member returned differently
  std::string detail;           // the first few findings
  bool failed() const { return !refused.empty() || wrong_blocks || mismatches || degraded_wrong; }
};

// Rebuilds the members in `dir` as they could be after a power cut before
// log event `cut`, brings the array back and checks it.
CutOutcome check_cut(const Recording& rec, size_t cut, std::mt19937_64& rng, const std::string& dir);

}  // namespace rs::powercut
