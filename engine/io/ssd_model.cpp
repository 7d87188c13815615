#include "io/ssd_model.hpp"

#include <algorithm>
#include <functional>

#include "io/model_time.hpp"

namespace rs::io {

using namespace model_time;

SsdModel::SsdModel(const DeviceProfile& p)
    : rotational_(p.rotational), io_opt_(p.io_opt), logical_block_size_(p.logical_block_size) {
  const double s = p.scale;
  const double ticks_per_s = 1e9 * double(kTicksPerNs);
  // A zero rate (an unvalidated profile) means "no limit", never a division by zero.
  auto per = [&](double rate) { return rate > 0 ? ticks_per_s / (rate * s) : 0.0; };
  // A die's time per page scales with the rest of the device.
  auto page = [&](double us) { return uint64_t(double(ticks_from_us(us)) / s + 0.5); };
  dir_[0] = {per(p.seq_read_bw), uint64_t(per(p.read_iops) + 0.5), ticks_from_us(p.base_read_latency_us),
             page(p.die_read_us)};
  dir_[1] = {per(p.seq_write_bw), uint64_t(per(p.write_iops) + 0.5), ticks_from_us(p.base_write_latency_us),
             page(p.die_write_us)};
  penalty_ticks_ = ticks_from_us(p.sub4k_write_penalty_us);
  slots_ = std::max<uint32_t>(p.parallelism, 1);
  busy_.reserve(std::min<size_t>(slots_, 4096) + 1);
  die_free_.assign(std::max<uint32_t>(p.dies, 1), 0);
  page_shift_ = 0;
  while ((uint64_t(1) << page_shift_) < std::max<uint32_t>(p.die_page_bytes, 1)) ++page_shift_;
}

uint64_t SsdModel::dies_done(uint64_t start, uint64_t offset, uint32_t length, uint64_t page_ticks) {
  if (page_ticks == 0 || length == 0) return start;
  const uint64_t first = offset >> page_shift_;
  const uint64_t pages = ((offset + length - 1) >> page_shift_) - first + 1;
  const uint64_t dies = die_free_.size();
  // Page first+k goes to die (first+k) mod dies: with more pages than dies,
  // each die serves pages/dies of them (one more for the first pages%dies).
  const uint64_t touched = pages < dies ? pages : dies;
  const uint64_t each = pages / dies, extra = pages % dies;
  uint64_t die = first % dies;
  uint64_t done = start;
  for (uint64_t k = 0; k < touched; ++k) {
    uint64_t& free = die_free_[die];
    free = std::max(start, free) + (each + (k < extra ? 1 : 0)) * page_ticks;
    done = std::max(done, free);
    if (++die == dies) die = 0;
  }
  return done;
}

uint64_t SsdModel::schedule(uint64_t now_ns, bool write, uint64_t offset, uint32_t length) {
  const Direction& d = dir_[write ? 1 : 0];
  const uint64_t now = ticks(now_ns);
  const uint64_t xfer = uint64_t(double(length) * d.ticks_per_byte + 0.5);
  uint64_t extra = d.base_ticks;
  if (partial_4k_write(write, offset, length)) extra += penalty_ticks_;

  std::lock_guard lock(mu_);
  // Slots still held at `now`; with all of them held, this I/O takes the
  // one that frees first.
  const auto later = std::greater<uint64_t>();
  while (!busy_.empty() && busy_.front() <= now) {
    std::pop_heap(busy_.begin(), busy_.end(), later);
    busy_.pop_back();
  }
  uint64_t slot = now;
  if (busy_.size() >= slots_) {
    std::pop_heap(busy_.begin(), busy_.end(), later);
    slot = busy_.back();
    busy_.pop_back();
  }
  const uint64_t start = std::max({now, slot, cmd_free_});
  cmd_free_ = start + d.cmd_ticks;
  const uint64_t xfer_end = std::max(start, pipe_free_) + xfer;
  pipe_free_ = xfer_end;
  const uint64_t done = std::max(xfer_end, dies_done(start, offset, length, d.page_ticks)) + extra;
  busy_.push_back(done);
  std::push_heap(busy_.begin(), busy_.end(), later);
  return ns_ceil(done);
}

}  // namespace rs::io
