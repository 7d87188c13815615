#include "io/hdd_model.hpp"

#include <algorithm>
#include <cmath>

#include "io/model_time.hpp"

namespace rs::io {

using namespace model_time;

namespace {
constexpr double kTicksPerMs = 1e6 * double(kTicksPerNs);
}

HddModel::HddModel(const DeviceProfile& p)
    : rotational_(p.rotational),
      io_opt_(p.io_opt),
      logical_block_size_(p.logical_block_size),
      curve_(SeekCurve::fit(p.track_to_track_ms, p.avg_seek_ms, p.full_stroke_ms).value_or(SeekCurve{})),
      rotation_ms_(p.rpm > 0 ? 60e3 / p.rpm : 0),
      time_stretch_(p.scale > 0 ? 1.0 / p.scale : 1.0),
      // A track is what the head reads in one turn; `scale` slows the
      // platter and the rate alike, so the geometry does not change.
      track_bytes_(std::max(p.seq_read_bw * rotation_ms_ * 1e-3, 1.0)),
      capacity_(double(std::max<uint64_t>(p.capacity_bytes, 1))) {
  const double ticks_per_s = 1e9 * double(kTicksPerNs);
  // A zero rate (an unvalidated profile) means "no limit", never a division by zero.
  ticks_per_byte_[0] = p.seq_read_bw > 0 ? ticks_per_s / p.seq_read_bw * time_stretch_ : 0;
  ticks_per_byte_[1] = p.seq_write_bw > 0 ? ticks_per_s / p.seq_write_bw * time_stretch_ : 0;
  bytes_per_tick_ = ticks_per_byte_[0] > 0 ? 1.0 / ticks_per_byte_[0] : 0;
  base_ticks_[0] = ticks_from_us(p.base_read_latency_us);
  base_ticks_[1] = ticks_from_us(p.base_write_latency_us);
  rotation_ticks_ = std::max<uint64_t>(uint64_t(rotation_ms_ * kTicksPerMs * time_stretch_ + 0.5), 1);
  penalty_ticks_ = uint64_t(double(ticks_from_us(p.sub4k_write_penalty_us)) * time_stretch_ + 0.5);
  readahead_bytes_ = p.readahead_bytes;
  ncq_depth_ = std::max<uint32_t>(p.ncq_depth, 1);
  queue_.reserve(std::max<size_t>(ncq_depth_, 64));
}

uint64_t HddModel::readahead_end(uint64_t at) const {
  if (readahead_bytes_ == 0 || at <= actuator_free_) return head_;
  const double streamed = double(at - actuator_free_) * bytes_per_tick_;
  const uint64_t limit = cache_start_ + readahead_bytes_;
  if (head_ >= limit) return head_;
  return head_ + std::min<uint64_t>(uint64_t(streamed), limit - head_);
}

uint64_t HddModel::service_ticks(uint64_t at, const Command& c) const {
  const int w = c.write ? 1 : 0;
  uint64_t xfer = uint64_t(double(c.length) * ticks_per_byte_[w] + 0.5);
  if (partial_4k_write(c.write, c.offset, c.length)) xfer += penalty_ticks_;

  const uint64_t ra_end = readahead_end(at);
  // Cached (read-ahead) data: no positioning; the uncached tail streams on.
  if (!c.write && c.offset >= cache_start_ && c.offset <= ra_end && ra_end > head_) {
    const uint64_t end = c.offset + c.length;
    return end > ra_end ? uint64_t(double(end - ra_end) * ticks_per_byte_[0] + 0.5) : 0;
  }

  // Is the head reading (in step with the platter) at `at`? Right when the
  // last command ends, and while read-ahead streams.
  const bool streaming = at == actuator_free_ || ra_end > head_;
  const uint64_t h = ra_end;
  uint64_t best = UINT64_MAX;
  if (streaming && c.offset >= h) best = uint64_t(double(c.offset - h) * ticks_per_byte_[0] + 0.5);

  const double from_track = std::floor(double(h) / track_bytes_);
  const double to_track = std::floor(double(c.offset) / track_bytes_);
  uint64_t seek = 0;
  if (to_track != from_track) {
    const double d = std::fabs(to_track - from_track) * track_bytes_ / capacity_;
    seek = uint64_t(curve_.ms(d) * kTicksPerMs * time_stretch_ + 0.5);
  }
  // Wait at the target track until its sector comes round.
  const uint64_t arrive_at = at + seek;
  const double target = std::fmod(double(c.offset), track_bytes_) / track_bytes_;
  const double platter = double(arrive_at % rotation_ticks_) / double(rotation_ticks_);
  double wait = target - platter;
  if (wait < 0) wait += 1.0;
  const uint64_t positioned = seek + uint64_t(wait * double(rotation_ticks_) + 0.5);
  best = std::min(best, positioned);
  return best + xfer;
}

uint64_t HddModel::start(uint64_t at, const Command& c, uint64_t service) {
  const uint64_t ra_end = readahead_end(at);
  const uint64_t end = c.offset + c.length;
  const bool cached = !c.write && c.offset >= cache_start_ && c.offset <= ra_end && ra_end > head_;
  if (cached) {
    // Read from the cache; the head has read at least up to what it served.
    head_ = std::max(ra_end, end);
  } else {
    head_ = end;
  }
  // What is left in the cache starts after this read (a write empties it).
  cache_start_ = c.write ? head_ : end;
  actuator_free_ = at + service;
  return actuator_free_;
}

uint64_t HddModel::schedule(uint64_t now_ns, bool write, uint64_t offset, uint32_t length) {
  const uint64_t now = ticks(now_ns);
  std::lock_guard lock(mu_);
  const Command c{0, offset, now, length, write};
  const uint64_t at = std::max(now, actuator_free_);
  const uint64_t end = start(at, c, service_ticks(at, c));
  return ns_ceil(end + base_ticks_[write ? 1 : 0]);
}

void HddModel::complete(uint64_t offset, uint32_t length) {
  head_position_.store(offset + length, std::memory_order_relaxed);
}

void HddModel::settle(uint64_t now, EventSink& sink) {
  while (!queue_.empty()) {
    // The next decision: when the actuator frees, or when the first command
    // arrives at an idle drive.
    const uint64_t at = std::max(actuator_free_, queue_.front().arrival);
    if (at > now) break;  // the delivery of the command in service touches us then
    // Commands that have arrived by then form a prefix (arrival order); the
    // drive sees the first ncq_depth of them.
    size_t visible = 0;
    while (visible < queue_.size() && visible < ncq_depth_ && queue_[visible].arrival <= at) ++visible;
    size_t pick = 0;
    uint64_t best = service_ticks(at, queue_[0]);
    for (size_t i = 1; i < visible; ++i) {
      const uint64_t s = service_ticks(at, queue_[i]);
      if (s < best) best = s, pick = i;
    }
    const Command c = queue_[pick];
    queue_.erase(queue_.begin() + ptrdiff_t(pick));
    const uint64_t end = start(at, c, best);
    sink.complete_at(c.token, ns_ceil(end + base_ticks_[c.write ? 1 : 0]));
  }
}

void HddModel::arrive(uint64_t now_ns, uint64_t token, bool write, uint64_t offset, uint32_t length,
                      EventSink& sink) {
  const uint64_t now = ticks(now_ns);
  queue_.push_back({token, offset, now, length, write});
  settle(now, sink);
}

void HddModel::delivered(uint64_t now_ns, uint64_t token, EventSink& sink) {
  (void)token;
  settle(ticks(now_ns), sink);
}

}  // namespace rs::io
