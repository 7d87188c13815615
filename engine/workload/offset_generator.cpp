#include "workload/offset_generator.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>
#include <string>

namespace rs::workload {

uint64_t job_seed(const JobOptions& job, unsigned job_index) {
  if (!job.randrepeat && !job.randseed_given) {
    std::random_device rd;
    return (static_cast<uint64_t>(rd()) << 32) ^ rd();
  }
  return mix64(job.randseed ^ mix64(0x5bd1e995ULL + job_index));
}

OffsetGenerator::OffsetGenerator(const JobOptions& job, uint64_t seed)
    : rw_(job.rw),
      rwmixread_(job.rwmixread),
      region_offset_(job.offset),
      region_size_(job.size),
      seq_add_(is_random(job.rw) ? 0 : job.seq_add),
      zone_size_(job.zonesize),
      zone_range_(job.zonesize ? std::min(job.size, job.zonerange ? job.zonerange : job.zonesize) : 0),
      zone_step_(zone_range_ + job.zoneskip),
      bytewise_(!fixed_bs(job) || seq_add_ != 0 || job.zonesize != 0 ||
                (is_random(job.rw) && job.blockalign && job.blockalign != std::min(job.bs[0], job.bs[1]))),
      zones_(job.zones),
      offset_rng_(seed),
      direction_rng_(mix64(seed ^ 0xd1b54a32d192ed03ULL)),
      length_rng_(mix64(seed ^ 0x9e3779b97f4a7c15ULL)) {
  ends_at_eof_ = seq_add_ > 0 && !job.time_based;
  if (job.size == 0 || job.size_percent || job.offset_percent) {
    status_ = make_error(Errc::invalid_argument,
                         "job '" + job.name + "': size/offset not resolved against the target");
    return;
  }

  if (!is_random(rw_))
    pattern_ = Pattern::sequential;
  else if (job.random_distribution == Distribution::zoned)
    pattern_ = Pattern::zoned;
  else if (job.random_distribution != Distribution::random)
    pattern_ = Pattern::skewed;
  else
    pattern_ = job.norandommap && !job.lfsr ? Pattern::uniform : Pattern::random_map;

  align_ = job.blockalign ? job.blockalign : std::min(job.bs[0], job.bs[1]);
  if (bytewise_ && pattern_ == Pattern::random_map) {
    // fio's map marks in units of the smallest bs: offsets must be drawn in
    // those units (blockalign unset) and both directions must share them.
    bool one_unit = job.zonesize == 0;
    for (int d : {kDdirRead, kDdirWrite})
      if ((d == kDdirRead ? does_read(rw_) : does_write(rw_)) && job.bs[d] != align_) one_unit = false;
    if (one_unit && job.size / align_ > 0) {
      map_unit_ = align_;
      map_.reset(job.size / align_);
    } else {
      pattern_ = Pattern::uniform;
    }
  }
  shared_ = pattern_ != Pattern::sequential && job.bs[kDdirRead] == job.bs[kDdirWrite] && fixed_bs(job);
  for (int d : {kDdirRead, kDdirWrite}) {
    if (shared_ && d == kDdirWrite) continue;
    bool used = shared_ || (d == kDdirRead ? does_read(rw_) : does_write(rw_));
    if (!used) continue;
    Stream& s = streams_[d];
    s.bs = job.bs[d];
    s.max_bs = max_bs(job, d);
    if (!job.bssplit[size_t(d)].empty()) s.split = &job.bssplit[size_t(d)];
    s.blocks = s.bs ? job.size / s.bs : 0;
    if (s.blocks == 0) {
      status_ = make_error(Errc::invalid_argument, "job '" + job.name + "': bs " + std::to_string(s.bs) +
                                                       " does not fit in size " + std::to_string(job.size));
      return;
    }
    if (pattern_ == Pattern::random_map && !map_unit_) s.perm.reset(s.blocks, offset_rng_.next());
    if (pattern_ == Pattern::skewed)
      s.skew.emplace(job.random_distribution, s.blocks, job.distribution_param, job.distribution_center,
                     offset_rng_);
  }
}

uint64_t OffsetGenerator::next_block(Stream& s) noexcept {
  switch (pattern_) {
    case Pattern::sequential: {
      uint64_t b = s.pos;
      if (++s.pos == s.blocks) s.pos = 0;
      return b;
    }
    case Pattern::random_map: {
      uint64_t b = s.perm.map(s.pos);
      if (++s.pos == s.blocks) {
        s.pos = 0;
        s.perm.rekey(offset_rng_.next());
      }
      return b;
    }
    case Pattern::uniform:
      return offset_rng_.below(s.blocks);
    case Pattern::skewed:
      return s.skew->next(offset_rng_);
    case Pattern::zoned:
      return next_zoned(s.blocks);
  }
  return 0;
}

uint64_t OffsetGenerator::next_zoned(uint64_t slots) noexcept {
  double access_total = 0;
  for (const auto& z : zones_) access_total += z.access_percent;
  const double u = double(offset_rng_.next() >> 11) / double(1ull << 53) * access_total;
  double access = 0, region_start = 0;
  for (const auto& z : zones_) {
    const double region_end = region_start + z.region_percent;
    access += z.access_percent;
    if (u < access && z.region_percent > 0) {
      uint64_t lo = uint64_t(double(slots) * region_start / 100.0);
      uint64_t hi = std::min<uint64_t>(slots, uint64_t(double(slots) * region_end / 100.0));
      if (hi <= lo) hi = std::min<uint64_t>(lo + 1, slots);
      if (lo >= slots) lo = slots - 1;
      return lo + offset_rng_.below(hi - lo);
    }
    region_start = region_end;
  }
  return offset_rng_.below(slots);
}

uint32_t OffsetGenerator::next_length(Stream& s, uint64_t max_len) noexcept {
  if (s.max_bs == s.bs) return s.bs;
  max_len = std::max<uint64_t>(max_len, s.bs);
  uint64_t len = s.bs;
  do {
    const double u = double(length_rng_.next() >> 11) / double(1ull << 53);  // [0, 1)
    if (!s.split) {
      len = s.bs + uint64_t(double(s.max_bs) * u);  // fio's formula, capped below
    } else {
      // Sorted by percent: the first whose running sum passes u, and that
      // fits, wins.
      unsigned sum = 0;
      for (const auto& e : *s.split) {
        if (!e.percent) continue;
        len = e.bs;
        sum += e.percent;
        if (u * 100.0 < double(sum) && len <= max_len) break;
      }
    }
    if ((s.bs & (s.bs - 1)) == 0)
      len &= ~uint64_t(s.bs - 1);
    else
      len -= len % s.bs;
    if (len > s.max_bs) len = s.max_bs;
    if (len < s.bs) len = s.bs;
    if (len > region_size_) len = s.bs;
  } while (len > max_len);
  return uint32_t(len);
}

IoRequest OffsetGenerator::next_mapped(Stream& s, bool write) noexcept {
  if (map_.full()) map_.clear();  // the next pass
  uint64_t block = offset_rng_.below(map_.size());
  if (map_.is_set(block)) block = map_.next_free(block);
  uint64_t length = next_length(s, (map_.size() - block) * map_unit_);
  const uint64_t units = (length + map_unit_ - 1) / map_unit_;
  length = std::min(length, map_.set_run(block, units) * map_unit_);
  return IoRequest{region_offset_ + block * map_unit_, uint32_t(length), write};
}

uint64_t OffsetGenerator::next_byte_offset(Stream& s, uint32_t length) noexcept {
  if (zone_size_ && length <= zone_range_) {
    if (zone_done_ >= zone_size_) {  // on to the next zone
      zone_done_ = 0;
      zone_start_ += zone_step_;
      if (zone_start_ + length > region_size_) zone_start_ = 0;
      s.next_byte = 0;
    }
    zone_done_ += length;
    const uint64_t span = std::min(zone_range_, region_size_ - zone_start_);
    uint64_t in_zone = 0;
    if (pattern_ == Pattern::sequential) {
      in_zone = s.next_byte + length > span ? 0 : s.next_byte;
      s.next_byte = in_zone + length;
    } else {
      in_zone = offset_rng_.below((span - length) / align_ + 1) * align_;
    }
    return zone_start_ + in_zone;
  }
  if (pattern_ != Pattern::sequential) {
    const uint64_t slots = (region_size_ - length) / align_ + 1;
    uint64_t slot = 0;
    if (pattern_ == Pattern::skewed)
      slot = s.skew->next(offset_rng_) % slots;
    else if (pattern_ == Pattern::zoned)
      slot = next_zoned(slots);
    else
      slot = offset_rng_.below(slots);
    return slot * align_;
  }
  uint64_t pos = s.next_byte;
  if (s.started && seq_add_ != 0) {
    // fio: move by the postfix; past either end, wrap (forwards to the
    // start, backwards to the end plus the postfix).
    // fio's get_next_seq_offset: the last I/O ended at the file's end.
    if (ends_at_eof_ && pos >= region_size_) return end_of_file(s);
    const int64_t moved = int64_t(pos) + seq_add_;
    if (moved < 0 || uint64_t(moved) >= region_size_)
      pos = seq_add_ > 0 ? 0 : uint64_t(std::max<int64_t>(int64_t(region_size_) + seq_add_, 0));
    else
      pos = uint64_t(moved);
  }
  if (pos + length > region_size_) {
    // fio's fill_io_u: an I/O running past the file's end is the job's end.
    if (ends_at_eof_) return end_of_file(s);
    pos = 0;
  }
  s.started = true;
  s.next_byte = pos + length;
  return pos;
}

// fio's EOF for a sequential job with holes, not time based (fio wraps
// only a time based one): nothing this pass; the next starts at 0.
uint64_t OffsetGenerator::end_of_file(Stream& s) noexcept {
  s.started = false;
  s.next_byte = 0;
  return kEof;
}

IoRequest OffsetGenerator::next() noexcept {
  if (!status_) return {};  // nothing to generate in (status() says why)
  bool write;
  switch (rw_) {
    case RwMode::read:
    case RwMode::randread:
      write = false;
      break;
    case RwMode::write:
    case RwMode::randwrite:
      write = true;
      break;
    default:
      write = direction_rng_.below(100) >= rwmixread_;
      break;
  }
  Stream& s = streams_[shared_ ? kDdirRead : (write ? kDdirWrite : kDdirRead)];
  if (map_unit_) return next_mapped(s, write);
  if (bytewise_) {
    // fio's get_next_buflen (io_u_fits): a sequential job's next length fits
    // in what is left of the region, so the last bytes are done too.
    uint64_t room = ~uint64_t{0};
    if (pattern_ == Pattern::sequential && !zone_size_ && seq_add_ == 0 && s.next_byte < region_size_)
      room = region_size_ - s.next_byte;
    const uint32_t length = next_length(s, room);
    const uint64_t at = next_byte_offset(s, length);
    if (at == kEof) return IoRequest{0, 0, write, true};
    return IoRequest{region_offset_ + at, length, write};
  }
  return IoRequest{region_offset_ + next_block(s) * s.bs, s.bs, write};
}

}  // namespace rs::workload
