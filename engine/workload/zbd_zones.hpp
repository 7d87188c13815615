// fio's zonemode=zbd on a target without zones of its own: fio 3.33 gives a
// regular file or a non-zoned block device the ZBD_NONE model (zbd.c
// init_zone_info) and emulates zones of `zonesize` on it, each sequential
// write required with a write pointer, all empty when the run starts. The
// emulation is bookkeeping only: a zone reset (a full zone written again,
// zone_reset_threshold/frequency, or a trim, which fio turns into a reset)
// moves the write pointer back and touches no data.
//
// What zbd_adjust_block does to each I/O, and what this does the same way:
//  - a write goes to its zone's write pointer, shortened to what is left of
//    the zone; a full zone is reset first (after the job's own I/O drained);
//    with max_open_zones, a write to a zone that cannot be opened goes to an
//    open zone instead;
//  - a read (read_beyond_wp=0) stays below the write pointer: a zone without
//    data sends it to the nearest zone with data, and with none the job ends
//    (fio's io_u_eof); read_beyond_wp=1 reads anywhere;
//  - a trim resets its zone (a random trim of an empty zone picks the nearest
//    zone with data; none: the job ends).
// A zone is held by the job whose I/O is in it until that I/O completes
// (fio's recursive zone mutex): other jobs wait for it, after their own I/O
// drained, as fio's zone_lock does.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

namespace rs::workload {

class ZbdZones {
 public:
  struct Options {
    uint64_t zone_size = 0;
    unsigned max_open_zones = 0;  // 0: no limit
    double reset_threshold = 0;   // zone_reset_threshold: share of the region holding data
    double reset_frequency = 0;   // zone_reset_frequency: 1 in N writes past it resets; 0: never
    uint64_t region_bytes = 0;    // the jobs' region (fio's f->io_size), for the threshold
  };
  ZbdZones(uint64_t target_bytes, const Options& options);

  enum class Verdict {
    accept,  // offset/length adjusted; the zone is held until release()
    eof,     // nothing left for this I/O: the job ends
    drain,   // the zone must be reset first: let the job's I/O complete, then ask again
    busy,    // another job holds the zone: drain, then wait_free() and ask again
  };
  struct Request {
    int ddir = 0;  // 0 read, 1 write, 2 trim
    bool random = false;
    bool read_beyond_wp = false;
    uint32_t min_bs = 512;
    bool has_inflight = false;  // the asking job has I/O in flight
  };
  // fio's zbd_adjust_block for one I/O of `owner` (a job). `*reset` is set
  // when it reset a zone (the job's "zone resets").
  Verdict adjust(const void* owner, const Request& req, uint64_t& offset, uint32_t& length, bool* reset);
  // The I/O at `offset` completed (fio's zbd_put_io): one hold less.
  void release(const void* owner, uint64_t offset);
  // Blocks until the zone of `offset` is held by nobody or `owner`, or
  // until `deadline_ns` (CLOCK_MONOTONIC) passed.
  void wait_free(const void* owner, uint64_t offset, uint64_t deadline_ns);
  uint64_t zone_size() const { return opt_.zone_size; }

 private:
  struct Zone {
    uint64_t start = 0, wp = 0, end = 0;
    const void* owner = nullptr;
    unsigned holds = 0;
    bool open = false;
  };
  bool free_for(const Zone& z, const void* owner) const { return !z.owner || z.owner == owner; }
  void take(Zone& z, const void* owner);
  void reset(Zone& z);
  size_t find_zone_with_data(size_t from, uint32_t min_bs) const;  // fio's zbd_find_zone; npos: none
  bool open_zone(Zone& z);                                         // fio's zbd_open_zone

  Options opt_;
  std::vector<Zone> zones_;
  uint64_t data_bytes_ = 0;  // below the write pointers (fio's wp_sectors_with_data)
  unsigned write_cnt_ = 0;   // writes past the threshold until the next reset
  unsigned open_count_ = 0;
  mutable std::mutex mu_;
  std::condition_variable freed_;
};

}  // namespace rs::workload
