#include "raid/bitmap_stage.hpp"

#include <algorithm>
#include <cstring>

namespace rs::raid {

using ondisk::kBitmapPageBytes;
using ondisk::kBitmapSuperBytes;

WriteIntentBitmap::WriteIntentBitmap(const BitmapLayout& layout, const ondisk::BitmapSuper& sb,
                                     std::vector<uint8_t> image)
    : layout_(layout), sb_(sb) {
  chunks_ = ondisk::bitmap_chunks(layout.sync_size, layout.chunk_bytes);
  const uint64_t npages = ondisk::bitmap_pages(chunks_);
  image_ = std::move(image);
  image_.resize(npages * kBitmapPageBytes, 0);
  // Bits past the last chunk mean nothing: keep them clear.
  for (uint64_t c = chunks_; c < (npages * kBitmapPageBytes - kBitmapSuperBytes) * 8; ++c) put_bit(c, false);
  counters_.assign(chunks_, 0);
  idle_since_.assign(chunks_, 0);
  uint64_t dirty = 0;
  for (uint64_t c = 0; c < chunks_; ++c) dirty += get_bit(c);
  dirty_ = dirty;
  for (uint64_t p = 0; p < npages; ++p) pages_.push_back(std::make_unique<Page>());
  daemon_sleep_s = sb.daemon_sleep;
}

uint32_t WriteIntentBitmap::page_bytes(uint64_t p) const {
  const uint64_t total = ondisk::bitmap_bytes(chunks_);
  if (p + 1 < pages_.size()) return kBitmapPageBytes;
  const uint64_t last = total - p * kBitmapPageBytes;
  return uint32_t(std::min<uint64_t>(last, kBitmapPageBytes));
}

bool WriteIntentBitmap::bit(uint64_t chunk) const {
  auto& pg = *pages_[page_index(chunk)];
  std::lock_guard lock(pg.m);
  return get_bit(chunk);
}

void WriteIntentBitmap::put_bit(uint64_t chunk, bool v) {
  uint8_t& byte = image_[kBitmapSuperBytes + chunk / 8];
  const uint8_t mask = uint8_t(1u << (chunk % 8));
  const bool was = byte & mask;
  if (v == was) return;
  byte = v ? uint8_t(byte | mask) : uint8_t(byte & ~mask);
  if (chunk < chunks_) dirty_.fetch_add(v ? 1 : uint64_t(-1), std::memory_order_relaxed);
}

std::vector<std::pair<uint64_t, uint64_t>> WriteIntentBitmap::start_write(uint64_t lo, uint64_t hi) {
  std::vector<std::pair<uint64_t, uint64_t>> wait;
  const uint64_t cs = chunk_sectors();
  const uint64_t c0 = lo / cs, c1 = std::min<uint64_t>((hi + cs - 1) / cs, chunks_);
  for (uint64_t c = c0; c < c1;) {
    const uint64_t p = page_index(c);
    Page& pg = *pages_[p];
    std::lock_guard lock(pg.m);
    for (; c < c1 && page_index(c) == p; ++c) {
      ++counters_[c];
      if (!get_bit(c)) {
        put_bit(c, true);
        ++pg.content;
      }
    }
    // md_bitmap_startwrite + unplug: the write goes once the page holding
    // its bits is on disk.
    if (pg.durable < pg.content) wait.emplace_back(p, pg.content);
  }
  return wait;
}

void WriteIntentBitmap::end_write(uint64_t lo, uint64_t hi, uint64_t now_ns, bool keep_bits) {
  const uint64_t cs = chunk_sectors();
  const uint64_t c0 = lo / cs, c1 = std::min<uint64_t>((hi + cs - 1) / cs, chunks_);
  for (uint64_t c = c0; c < c1;) {
    const uint64_t p = page_index(c);
    Page& pg = *pages_[p];
    std::lock_guard lock(pg.m);
    for (; c < c1 && page_index(c) == p; ++c) {
      if (counters_[c]) --counters_[c];
      if (keep_bits || idle_since_[c] == kNeedsResync)
        idle_since_[c] = kNeedsResync;
      else
        idle_since_[c] = now_ns;
    }
  }
}

uint64_t WriteIntentBitmap::content_epoch(uint64_t p) const {
  std::lock_guard lock(pages_[p]->m);
  return pages_[p]->content;
}

void WriteIntentBitmap::when_durable(uint64_t p, uint64_t e, std::function<void()> fn) {
  Page& pg = *pages_[p];
  {
    std::lock_guard lock(pg.m);
    if (pg.durable < e) {
      pg.waiters.push_back({e, std::move(fn)});
      return;
    }
  }
  fn();
}

bool WriteIntentBitmap::take_page(uint64_t p, uint64_t events, io::AlignedBuffer& out) {
  Page& pg = *pages_[p];
  std::lock_guard lock(pg.m);
  if (pg.writing || pg.durable >= pg.content) return false;
  pg.writing = pg.content;
  std::memset(out.data(), 0, out.size());
  std::memcpy(out.data(), image_.data() + p * kBitmapPageBytes, kBitmapPageBytes);
  if (p == 0) {
    ondisk::BitmapSuper sb = super();
    sb.events = events;
    const auto head = ondisk::encode_bitmap(sb);
    std::memcpy(out.data(), head.data(), head.size());
  }
  return true;
}

bool WriteIntentBitmap::page_written(uint64_t p) {
  Page& pg = *pages_[p];
  std::vector<std::function<void()>> ready;
  bool again;
  {
    std::lock_guard lock(pg.m);
    pg.durable = std::max(pg.durable, pg.writing);
    pg.writing = 0;
    for (auto it = pg.waiters.begin(); it != pg.waiters.end();) {
      if (it->epoch <= pg.durable) {
        ready.push_back(std::move(it->fn));
        it = pg.waiters.erase(it);
      } else {
        ++it;
      }
    }
    again = pg.durable < pg.content;
  }
  for (auto& fn : ready) fn();
  return again;
}

std::pair<uint64_t, uint64_t> WriteIntentBitmap::page_chunks(uint64_t p) const {
  const uint64_t first = p == 0 ? 0 : (p * kBitmapPageBytes - kBitmapSuperBytes) * 8;
  return {first, std::min<uint64_t>(((p + 1) * kBitmapPageBytes - kBitmapSuperBytes) * 8, chunks_)};
}

std::vector<uint64_t> WriteIntentBitmap::clear_idle(uint64_t idle_before_ns) {
  std::vector<uint64_t> changed;
  for (uint64_t p = 0; p < pages_.size(); ++p) {
    Page& pg = *pages_[p];
    std::lock_guard lock(pg.m);
    const auto [first, last] = page_chunks(p);
    bool any = false;
    for (uint64_t c = first; c < last; ++c)
      if (idle(c, idle_before_ns)) {
        put_bit(c, false);
        any = true;
      }
    if (any) {
      ++pg.content;
      changed.push_back(p);
    }
  }
  return changed;
}

bool WriteIntentBitmap::any_idle(uint64_t idle_before_ns) const {
  for (uint64_t p = 0; p < pages_.size(); ++p) {
    std::lock_guard lock(pages_[p]->m);
    const auto [first, last] = page_chunks(p);
    for (uint64_t c = first; c < last; ++c)
      if (idle(c, idle_before_ns)) return true;
  }
  return false;
}

std::vector<uint8_t> WriteIntentBitmap::snapshot_bits() const {
  std::vector<uint8_t> bits((chunks_ + 7) / 8);
  for (uint64_t p = 0; p < pages_.size(); ++p) {
    std::lock_guard lock(pages_[p]->m);
    const uint64_t from = std::max<uint64_t>(p * kBitmapPageBytes, kBitmapSuperBytes);
    const uint64_t to = std::min<uint64_t>((p + 1) * kBitmapPageBytes, kBitmapSuperBytes + bits.size());
    for (uint64_t b = from; b < to; ++b) bits[b - kBitmapSuperBytes] = image_[b];
  }
  return bits;
}

void WriteIntentBitmap::count_write(uint32_t bytes) {
  std::lock_guard lock(meta_);
  ++sizes_[bytes];
}

std::map<uint32_t, uint64_t> WriteIntentBitmap::write_sizes() const {
  std::lock_guard lock(meta_);
  return sizes_;
}

ondisk::BitmapSuper WriteIntentBitmap::super() const {
  std::lock_guard lock(meta_);
  ondisk::BitmapSuper sb = sb_;
  sb.daemon_sleep = daemon_sleep_s.load();
  return sb;
}

bool WriteIntentBitmap::set_events_cleared(uint64_t e) {
  {
    std::lock_guard lock(meta_);
    if (sb_.events_cleared == e) return false;
    sb_.events_cleared = e;
  }
  Page& pg = *pages_[0];
  std::lock_guard lock(pg.m);
  ++pg.content;
  return true;
}

uint64_t WriteIntentBitmap::touch_super() {
  Page& pg = *pages_[0];
  std::lock_guard lock(pg.m);
  return ++pg.content;
}

}  // namespace rs::raid
