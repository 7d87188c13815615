#include "workload/zbd_zones.hpp"

#include <algorithm>
#include <chrono>
#include <climits>

namespace rs::workload {

namespace {
constexpr size_t kNone = ~size_t{0};
unsigned write_count(double frequency) {
  return frequency > 0 ? unsigned(std::min(1.0 / frequency, double(UINT_MAX))) : UINT_MAX;
}
}  // namespace

ZbdZones::ZbdZones(uint64_t target_bytes, const Options& options) : opt_(options) {
  const uint64_t n = (target_bytes + opt_.zone_size - 1) / opt_.zone_size;
  zones_.resize(n);
  for (uint64_t i = 0; i < n; ++i) {
    Zone& z = zones_[i];
    z.start = z.wp = i * opt_.zone_size;
    z.end = std::min(target_bytes, z.start + opt_.zone_size);
  }
  write_cnt_ = write_count(opt_.reset_frequency);
}

void ZbdZones::take(Zone& z, const void* owner) {
  z.owner = owner;
  ++z.holds;
}

void ZbdZones::reset(Zone& z) {
  data_bytes_ -= z.wp - z.start;
  z.wp = z.start;
}

size_t ZbdZones::find_zone_with_data(size_t from, uint32_t min_bs) const {
  // fio's zbd_find_zone: the nearest zone above or below with data.
  for (size_t d = 1; d <= zones_.size(); ++d) {
    if (from + d < zones_.size() && zones_[from + d].wp >= zones_[from + d].start + min_bs) return from + d;
    if (d <= from && zones_[from - d].wp >= zones_[from - d].start + min_bs) return from - d;
  }
  return kNone;
}

bool ZbdZones::open_zone(Zone& z) {
  if (!opt_.max_open_zones) return true;
  if (z.open) return z.wp < z.end;  // full by writes in flight: as a full zone
  if (open_count_ >= opt_.max_open_zones) return false;
  z.open = true;
  ++open_count_;
  return true;
}

ZbdZones::Verdict ZbdZones::adjust(const void* owner, const Request& req, uint64_t& offset, uint32_t& length,
                                   bool* reset_done) {
  *reset_done = false;
  if (req.ddir == 0 && req.read_beyond_wp) return Verdict::accept;  // no zone held
  std::lock_guard<std::mutex> lock(mu_);
  size_t zi = std::min<size_t>(offset / opt_.zone_size, zones_.size() - 1);
  if (!free_for(zones_[zi], owner)) return Verdict::busy;
  Zone* z = &zones_[zi];
  const uint64_t min_bs = req.min_bs;
  if (req.ddir == 0) {
    const Zone& orig = *z;
    uint64_t range = z->wp - z->start;
    if (range < min_bs || (!req.random && offset + min_bs > z->wp)) {
      const size_t found = find_zone_with_data(zi, req.min_bs);
      if (found == kNone) return Verdict::eof;
      if (!free_for(zones_[found], owner)) return Verdict::busy;
      z = &zones_[found];
      range = z->wp - z->start;
      if (!req.random) offset = z->start;
    }
    if (range <= length)
      offset = z->start;
    else if (req.random)
      offset = z->start + ((offset - orig.start) % (range - length)) / min_bs * min_bs;
    const uint64_t len = std::min<uint64_t>(length, z->wp - offset) / min_bs * min_bs;
    length = uint32_t(len);
    take(*z, owner);
    return Verdict::accept;
  }
  if (req.ddir == 2) {
    if (req.random && z->wp == z->start) {
      const size_t found = find_zone_with_data(zi, 1);
      if (found == kNone) return Verdict::eof;
      if (!free_for(zones_[found], owner)) return Verdict::busy;
      z = &zones_[found];
      offset = z->start;
    }
    if (offset != z->start) return Verdict::eof;  // fio: "Trim offset not at zone start" (EINVAL)
    if (z->wp != z->start) {
      reset(*z);
      *reset_done = true;
    }
    take(*z, owner);
    return Verdict::accept;
  }
  // A write.
  if (length > opt_.zone_size) return Verdict::eof;  // fio: "I/O buflen exceeds zone size"
  if (!open_zone(*z)) {
    // fio's zbd_convert_to_open_zone: an open zone this job may use.
    Zone* other = nullptr;
    for (Zone& c : zones_)
      if (c.open && c.wp < c.end && free_for(c, owner)) {
        other = &c;
        break;
      }
    if (!other) return Verdict::busy;
    z = other;
  }
  bool must_reset = false;
  if (opt_.reset_frequency > 0 && double(data_bytes_) >= double(opt_.region_bytes) * opt_.reset_threshold) {
    if (--write_cnt_ == 0) {
      write_cnt_ = write_count(opt_.reset_frequency);
      must_reset = true;
    }
  }
  if (must_reset || z->wp + min_bs > z->end) {
    // fio quiesces the job's I/O before a reset (io_u_quiesce).
    if (req.has_inflight) {
      if (must_reset) ++write_cnt_;  // counted again when asked again
      return Verdict::drain;
    }
    if (z->wp != z->start) {
      reset(*z);
      *reset_done = true;
    }
  }
  offset = z->wp;
  const uint64_t len = std::min<uint64_t>(length, z->end - z->wp) / min_bs * min_bs;
  if (len < min_bs) return Verdict::eof;  // fio: "zone remainder too small"
  length = uint32_t(len);
  z->wp += len;
  data_bytes_ += len;
  if (z->open && z->wp >= z->end) {  // fio closes a zone that is full
    z->open = false;
    --open_count_;
  }
  take(*z, owner);
  return Verdict::accept;
}

void ZbdZones::release(const void* owner, uint64_t offset) {
  std::lock_guard<std::mutex> lock(mu_);
  Zone& z = zones_[std::min<size_t>(offset / opt_.zone_size, zones_.size() - 1)];
  if (z.owner != owner || z.holds == 0) return;
  if (--z.holds == 0) {
    z.owner = nullptr;
    freed_.notify_all();
  }
}

void ZbdZones::wait_free(const void* owner, uint64_t offset, uint64_t deadline_ns) {
  std::unique_lock<std::mutex> lock(mu_);
  const Zone& z = zones_[std::min<size_t>(offset / opt_.zone_size, zones_.size() - 1)];
  const auto deadline = std::chrono::steady_clock::time_point(std::chrono::nanoseconds(deadline_ns));
  // A short bound too: the zone a request ends up needing may be another
  // one (a read or trim sent elsewhere), so the caller asks again.
  const auto bound = std::min(deadline, std::chrono::steady_clock::now() + std::chrono::milliseconds(10));
  freed_.wait_until(lock, bound, [&] { return free_for(z, owner); });
}

}  // namespace rs::workload
