// Where a job's next I/O goes: offset, length and direction, fio-style, over
// the job's region [offset, offset + size) of its target.
//
//  - Sequential (read, write, rw/readwrite): block after block, wrapping to
//    the region's start at its end. rw keeps separate read and write
//    positions, as fio does (each starts at the region's start).
//  - Random (randread, randwrite, randrw), random_distribution=random: by
//    default every block is visited exactly once per pass, in a new random
//    order each pass (fio's random map; here a keyed permutation, no bitmap).
//    norandommap: independent uniform draws, repeats allowed.
//  - zipf/pareto/normal: fio's generators (skew_distribution.hpp); like fio,
//    they never use the random map.
//  - Mixed modes pick the direction per I/O: read with probability
//    rwmixread %.
// Blocks are whole: a region that is not a multiple of bs leaves its tail
// unused. When read and write bs are equal, random modes share one block
// space (one random map for both directions, as fio's per-file map); when
// they differ each direction has its own, in its own bs.
//
//  - Variable block sizes (bsrange, bssplit): each I/O's length is drawn as
//    fio's get_next_buflen draws it, among the sizes that fit before the
//    region's end. Random offsets are in min-bs units; with the random map
//    (the default) a block already done moves on to the next free one and
//    the I/O is cut short where it meets done blocks (fio's axmap and
//    mark_random_map), so a pass does every byte once, ending in many
//    short I/Os. With norandommap, or a blockalign other than the smallest
//    bs, offsets are uniform. Sequential I/O continues where the last one
//    ended.
//  - zonemode=strided: offsets (sequential or random) inside the current
//    zone of zonerange bytes; after zonesize bytes the zone moves by
//    zonerange + zoneskip, back to the region's start past its end.
//  - random_distribution=zoned: a zone drawn by its access share, then a
//    uniform offset inside it (no random map, as in fio).
//  - rw=read:N / read:-N (fio's ddir_seq_add): the next sequential I/O starts
//    N bytes after (before) where the last one ended, wrapping as fio's
//    get_next_seq_offset does.
// Deterministic: the same job and seed give the same sequence. next() takes
// no lock and allocates nothing.
#pragma once
#include <array>
#include <cstdint>
#include <optional>

#include "base/result.hpp"
#include "workload/block_map.hpp"
#include "workload/job_options.hpp"
#include "workload/rand.hpp"
#include "workload/skew_distribution.hpp"

namespace rs::workload {

struct IoRequest {
  uint64_t offset = 0;  // bytes into the target
  uint32_t length = 0;  // bytes: the direction's bs
  bool is_write = false;
  // fio's end of file: a sequential job with holes (rw=read:N) whose next
  // I/O would run past the region's end, not time based. Nothing to issue;
  // the next request starts over at the region's start (the next pass).
  bool eof = false;
};

// The seed for one job instance, following fio's randrepeat/randseed rules:
// with randseed= given, or randrepeat=1 (the default), it is derived from
// randseed and job_index, so reruns repeat; with randrepeat=0 and no randseed
// it comes from the OS's entropy. job_index: the instance's position among
// all job instances of the run, numjobs clones counted (fio's thread
// number), so clones differ.
uint64_t job_seed(const JobOptions& job, unsigned job_index);

class OffsetGenerator {
 public:
  // `job` must be resolved (validate_against_target): size > 0, no
  // percentages, every used bs <= size. If not, status() says why
  // (Errc::invalid_argument) and next() yields only empty requests
  // (length 0): the driver fails the job instead of issuing them.
  OffsetGenerator(const JobOptions& job, uint64_t seed);

  const Status& status() const { return status_; }
  IoRequest next() noexcept;

 private:
  enum class Pattern { sequential, random_map, uniform, skewed, zoned };

  struct Stream {
    uint32_t bs = 0;  // the smallest block
    uint32_t max_bs = 0;
    const std::vector<JobOptions::BsShare>* split = nullptr;  // bssplit, or null
    uint64_t blocks = 0;
    uint64_t next_byte = 0;  // byte-wise sequential: where the next I/O starts
    bool started = false;
    uint64_t pos = 0;  // sequential: next block; random map: index into the permutation
    RandomPermutation perm;
    std::optional<SkewDistribution> skew;
  };

  uint64_t next_block(Stream& s) noexcept;
  // zoned: a zone by its access share, then a slot uniformly inside it.
  uint64_t next_zoned(uint64_t slots) noexcept;
  // At most max_len (>= s.bs): fio draws again until the size fits.
  uint32_t next_length(Stream& s, uint64_t max_len = ~uint64_t{0}) noexcept;
  // Variable sizes on the random map: the block, its length cut to the free run.
  IoRequest next_mapped(Stream& s, bool write) noexcept;
  // Variable sizes or a sequence postfix: the offset, in bytes into the region.
  // kEof: fio's end of file (ends_at_eof_).
  static constexpr uint64_t kEof = ~uint64_t{0};
  uint64_t next_byte_offset(Stream& s, uint32_t length) noexcept;
  static uint64_t end_of_file(Stream& s) noexcept;

  Pattern pattern_;
  RwMode rw_;
  unsigned rwmixread_;
  uint64_t region_offset_;
  uint64_t region_size_;
  int64_t seq_add_;
  bool ends_at_eof_ = false;  // seq_add_ > 0 and not time based: fio's EOF instead of a wrap
  // zonemode=strided: the current zone and the bytes done in it.
  uint64_t zone_size_ = 0, zone_range_ = 0, zone_step_ = 0;
  uint64_t zone_start_ = 0, zone_done_ = 0;
  bool bytewise_;       // variable block sizes, a sequence postfix, or blockalign
  uint32_t align_ = 0;  // bytewise random offsets: multiples of this (blockalign, else the smallest bs)
  std::vector<JobOptions::Zone> zones_;
  BlockMap map_;           // variable sizes with the random map: done blocks
  uint32_t map_unit_ = 0;  // its block: the smallest bs (0: no map)
  bool shared_;            // both directions draw from streams_[0]
  std::array<Stream, 2> streams_;
  Rng offset_rng_;
  Rng direction_rng_;
  Rng length_rng_;
  Status status_;  // not ok: the job was not resolved, and nothing is generated
};

}  // namespace rs::workload
