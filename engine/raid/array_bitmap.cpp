// The write-intent bitmap in the front: loading and creating it, the write
// gate's bitmap stage, page writes and the daemon on the bitmap context,
// the final flush at a clean stop, its tunables and telemetry.
#include <algorithm>
#include <condition_variable>
#include <cstring>

#include "io/uring_backend.hpp"
#include "raid/array.hpp"
#include "raid/array_port.hpp"

namespace rs::raid {

namespace {
uint64_t round_up(uint64_t v, uint64_t to) {
  return to ? (v + to - 1) / to * to : v;
}
}  // namespace

Result<Array::BitmapImage> Array::read_bitmap(io::MemberDevice& dev, const ondisk::Superblock& sb,
                                              uint64_t sync_size) {
  BitmapImage img;
  BitmapLayout& layout = img.layout;
  layout.offset_bytes = (sb.super_offset + uint64_t(int64_t(sb.bitmap_offset))) * kSectorBytes;
  layout.space_bytes = sb.data_offset * kSectorBytes - layout.offset_bytes;
  auto head = io::AlignedBuffer::allocate(4096);
  if (!head) return head.take_error();
  if (Status s = dev.read_at(layout.offset_bytes, head->data(), 4096); !s) return s.error();
  auto dec = ondisk::decode_bitmap({head->data(), 4096}, sb.set_uuid, layout.space_bytes);
  if (!dec) return make_error(Errc::corrupt, dev.path() + ": bitmap: " + dec.error().message);
  if (dec->sync_size != sync_size)
    return make_error(Errc::corrupt, dev.path() + ": bitmap: it covers " + std::to_string(dec->sync_size) +
                                         " sectors but the array has " + std::to_string(sync_size));
  layout.sync_size = sync_size;
  layout.chunk_bytes = dec->chunksize;
  img.sb = *dec;
  const uint64_t pages = ondisk::bitmap_pages(ondisk::bitmap_chunks(sync_size, dec->chunksize));
  auto image = io::AlignedBuffer::allocate(pages * ondisk::kBitmapPageBytes);
  if (!image) return image.take_error();
  if (Status s = dev.read_at(layout.offset_bytes, image->data(), image->size()); !s) return s.error();
  img.bytes.assign(image->data(), image->data() + image->size());
  return img;
}

// md reads the bitmap from one member. A power cut can leave a page written
// to some members only, so the bits of every member in the array are
// joined: a chunk set on any of them may differ. A member whose bitmap
// cannot be read leaves the union unknown: a pending resync then covers
// everything.
Status Array::load_bitmap(const std::vector<MemberCandidate>& cands, size_t fresh) {
  const uint64_t sync_size = personality_->bitmap_sectors();
  auto img = read_bitmap(*cands[fresh].dev, sb_, sync_size);
  if (!img) return img.error();
  bool complete = true;
  const TableRef t = table();
  for (const Member& m : t->members) {
    if (!m.dev || m.dev == cands[fresh].dev) continue;
    auto other = read_bitmap(*m.dev, sb_, sync_size);
    if (!other || other->layout.chunk_bytes != img->layout.chunk_bytes ||
        other->bytes.size() != img->bytes.size()) {
      complete = false;
      events_.record(
          {0, 0, "bitmap", m.name, "not read",
           (other ? std::string("another chunk size") : other.error().message) + "; a resync covers all"});
      continue;
    }
    for (size_t b = ondisk::kBitmapSuperBytes; b < img->bytes.size(); ++b) img->bytes[b] |= other->bytes[b];
  }
  bitmap_ = std::make_unique<WriteIntentBitmap>(img->layout, img->sb, std::move(img->bytes));
  register_bitmap_tunables();
  // After an unclean stop only the chunks whose bits are set differ.
  if (resync_pending() && complete) resync_bits_ = bitmap_->snapshot_bits();
  return {};
}

Status Array::start_bitmap_thread() {
  // Each page's write buffer, made now so that a page write never needs
  // memory: a whole page, the last one up to the data (seed 001 may round
  // its write up to the member's io_opt), at most 1 MiB.
  page_writes_.resize(bitmap_->pages());
  const BitmapLayout& lay = bitmap_->layout();
  for (uint64_t p = 0; p < page_writes_.size(); ++p) {
    const uint64_t room = lay.space_bytes - p * ondisk::kBitmapPageBytes;
    const bool last = p + 1 == page_writes_.size();
    auto buf =
        io::AlignedBuffer::allocate(last ? std::min<uint64_t>(room, 1 << 20) : ondisk::kBitmapPageBytes);
    if (!buf) return buf.take_error();
    page_writes_[p].buf = std::move(*buf);
  }
  if (simulated_) return {};  // attach_bitmap_context() gives it the simulator's context
  bitmap_thread_ = std::make_unique<io::ContextThread>("md-bitmap", [this] { return make_backend(4); });
  if (!bitmap_thread_->status()) return bitmap_thread_->status().error();
  std::mutex m;
  std::condition_variable cv;
  bool ready = false;
  bitmap_thread_->post([&] {
    bitmap_ctx_ = &bitmap_thread_->context();
    bitmap_port_ = std::make_unique<ArrayPort>(*this, *bitmap_ctx_);
    arm_bitmap_daemon();
    std::lock_guard lock(m);
    ready = true;
    cv.notify_all();
  });
  std::unique_lock lock(m);
  cv.wait(lock, [&] { return ready; });
  std::lock_guard live(bitmap_live_mutex_);
  bitmap_live_ = true;
  return {};
}

void Array::attach_bitmap_context(io::IoContext& context) {
  if (!bitmap_) return;
  bitmap_ctx_ = &context;
  bitmap_port_ = std::make_unique<ArrayPort>(*this, context);
  arm_bitmap_daemon();
}

void Array::register_bitmap_tunables() {
  using telemetry::TunableSpec;
  using telemetry::TunableType;
  tunables_.add(
      TunableSpec{"daemon_sleep",
                  TunableType::integer,
                  1,
                  86400,
                  {},
                  "seconds",
                  "write-intent bitmap: a chunk's bit is cleared once it had no writes this long"},
      [this](int) { return std::to_string(bitmap_->daemon_sleep_s.load()); },
      [this](int, const telemetry::TunableValue& v) {
        {
          // Under the daemon's lock: it is waiting, or has not yet
          // computed its next wake, so the new value counts at once.
          std::lock_guard lock(daemon_mutex_);
          bitmap_->daemon_sleep_s = uint32_t(v.number);
        }
        daemon_cv_.notify_all();
        return Status{};
      });
  tunables_.add(
      TunableSpec{"bitmap_io_opt",
                  TunableType::boolean,
                  0,
                  1,
                  {},
                  "",
                  "write-intent bitmap: round the last page's write up to the member's "
                  "io_opt when it fits (a write of part of a device's unit costs it a "
                  "read-modify-write)"},
      [this](int) { return std::string(bitmap_->io_opt_sizing.load() ? "on" : "off"); },
      [this](int, const telemetry::TunableValue& v) {
        bitmap_->io_opt_sizing = v.number != 0;
        return Status{};
      });
}

// md keeps the bits a missing or recovering member needs, and those of
// chunks a resync still has to cover (NEEDED until md_bitmap_end_sync):
// cleared, a crash would leave the resync nothing to do there.
bool Array::may_clear_bits() const {
  const TableRef t = table();
  return t->count(MemberState::in_sync) == raid_disks() && !resync_pending();
}

// ---- the write gate's stage ----

bool Array::bitmap_gate(ArrayIo& io) {
  if (!io.bitmap_counted) {
    const auto [lo, hi] =
        personality_->bitmap_range(io.offset / kSectorBytes, (io.offset + io.length) / kSectorBytes);
    io.bitmap_lo = lo;
    io.bitmap_hi = hi;
    const auto waits = bitmap_->start_write(lo, hi);
    io.bitmap_counted = true;
    io.bitmap_wait_n = 0;
    io.bitmap_wait_i = 0;
    for (const auto& [p, e] : waits) {
      // A write spans at most two pages of bits (a page covers 32768
      // chunks); past that it waits for the latest content, never less.
      const uint8_t k = std::min<uint8_t>(io.bitmap_wait_n, 1);
      io.bitmap_wait_page[k] = p;
      io.bitmap_wait_epoch[k] = std::max(e, io.bitmap_wait_n > 1 ? io.bitmap_wait_epoch[1] : 0);
      io.bitmap_wait_n = uint8_t(std::min(io.bitmap_wait_n + 1, 2));
    }
  }
  if (io.bitmap_wait_i < io.bitmap_wait_n) {
    const uint64_t p = io.bitmap_wait_page[io.bitmap_wait_i], e = io.bitmap_wait_epoch[io.bitmap_wait_i];
    ++io.bitmap_wait_i;
    ArrayPort* port = io.port;
    // Wake the bitmap context to write the page; come back when it is on disk.
    bitmap_ctx_->post([this, p] { write_bitmap_page(p); });
    bitmap_->when_durable(p, e,
                          [port, &io] { port->context().post([port, &io] { port->array().resubmit(io); }); });
    return false;
  }
  return true;
}

// ---- page writes (bitmap context) ----

// md's __write_sb_page: a whole page, or the last page rounded up to the
// logical block size, or (seed 001) to the member's io_opt when that still
// fits in `fits` bytes (up to the data, and the buffer).
uint64_t Array::bitmap_write_bytes(const Member& mem, int m, uint64_t p, uint64_t fits) const {
  if (p + 1 != bitmap_->pages()) return ondisk::kBitmapPageBytes;
  const uint32_t content = bitmap_->page_bytes(p);
  const uint32_t lbs = mem.model ? mem.model->logical_block_size()
                       : mem.dev ? mem.dev->info().logical_block_size
                                 : 512;
  const uint32_t override_bytes = runtime(m).io_opt_override.load(std::memory_order_relaxed);
  const uint32_t io_opt = override_bytes ? override_bytes : mem.io_opt();
  if (bitmap_->io_opt_sizing.load() && io_opt > lbs && round_up(content, io_opt) <= fits)
    return round_up(content, io_opt);
  return round_up(content, lbs);
}

void Array::write_bitmap_page(uint64_t p) {
  PageWrite& w = page_writes_[p];
  if (w.outstanding) return;  // the write in flight takes the page again when it ends
  const uint64_t events = [&] {
    std::lock_guard lock(meta_mutex_);
    return sb_.events;
  }();
  const BitmapLayout& lay = bitmap_->layout();
  const uint64_t start = lay.offset_bytes + p * ondisk::kBitmapPageBytes;
  const uint64_t room = lay.space_bytes - p * ondisk::kBitmapPageBytes;  // up to the data
  if (!bitmap_->take_page(p, events, w.buf)) return;
  bitmap_port_->refresh();
  w.table = bitmap_port_->tables_.back().table;
  const MemberTable& t = *w.table;
  w.ios.resize(size_t(t.size()));
  for (int m = 0; m < t.size(); ++m) {
    const Member& mem = t[m];
    if (!mem.writable()) continue;
    const uint64_t size = bitmap_write_bytes(mem, m, p, std::min<uint64_t>(room, w.buf.size()));
    if (size > room) continue;  // cannot happen for a bitmap validated at create/assemble
    BitmapPageIo& io = w.ios[size_t(m)];
    io.array = this;
    io.page = p;
    io.member = m;
    io.write = true;
    io.offset = start;
    io.length = uint32_t(size);
    io.buffer = w.buf.data();
    io.emulated = mem.model.get();
    // On the media when it completes (md writes bitmap pages PREFLUSH|FUA):
    // the data writes it guards go only after that.
    io.dsync = true;
    io.done = &Array::bitmap_page_done;
    ++w.outstanding;
    bitmap_->count_write(uint32_t(size));
    bitmap_ctx_->backend().queue(io);
  }
  bitmap_ctx_->backend().submit();
  if (w.outstanding == 0) {  // no member to write to: nothing will ever make it durable
    w.table.reset();
    if (bitmap_->page_written(p)) write_bitmap_page(p);
  }
}

void Array::bitmap_page_done(io::MemberIo& mio, int result) {
  auto& io = static_cast<BitmapPageIo&>(mio);
  Array& self = *io.array;
  PageWrite& w = self.page_writes_[io.page];
  if (result != int(io.length)) {
    // md fails a member it cannot write the bitmap to.
    self.runtime(io.member).counters.errors.fetch_add(1, std::memory_order_relaxed);
    std::lock_guard lock(self.meta_mutex_);
    (void)self.fail_locked(
        io.member,
        "bitmap write failed: " + std::string(result < 0 ? std::strerror(-result) : "short transfer"));
  }
  if (--w.outstanding > 0) return;
  w.table.reset();
  if (self.bitmap_->page_written(io.page)) self.write_bitmap_page(io.page);
}

// ---- the daemon ----
// It wakes every half daemon_sleep, so a chunk idle for daemon_sleep is
// cleared at most 1.5 x daemon_sleep after its last write (md's daemon works
// in two passes too). On real arrays a small thread of its own posts the
// pass to the bitmap context (and stops at once at close); in virtual time
// a backend timer on the simulator's context does.

uint64_t Array::bitmap_half_sleep_ns() const {
  return uint64_t(bitmap_->daemon_sleep_s.load()) * 500'000'000ull;
}

// On the bitmap context: clears the bits of chunks idle since before
// `idle_before_ns` and returns the pages to write. A page saying a chunk is
// clean may land only once the chunk's data is on every member's media
// (else a power cut leaves copies that differ and a bitmap that hides
// them): every member is flushed first, and only chunks whose last write
// completed before that flush started are cleared. md's events_cleared
// records when (the bitmap superblock, page 0, is written with them).
std::vector<uint64_t> Array::clear_clean_chunks(uint64_t idle_before_ns) {
  if (!may_clear_bits() || !bitmap_->any_idle(idle_before_ns)) return {};
  const uint64_t flush_start = bitmap_ctx_->backend().now_ns();
  if (Status s = flush(); !s) {
    events_.record({0, 0, "bitmap", "", "bits kept", "flushing the members failed: " + s.error().message});
    return {};
  }
  auto changed = bitmap_->clear_idle(std::min(idle_before_ns, flush_start));
  if (changed.empty()) return changed;
  uint64_t events;
  {
    std::lock_guard lock(meta_mutex_);
    events = sb_.events;
  }
  if (bitmap_->set_events_cleared(events) && changed.front() != 0) changed.insert(changed.begin(), 0);
  return changed;
}

void Array::bitmap_daemon_pass() {
  if (bitmap_stopping_.load()) return;
  const uint64_t now = bitmap_ctx_->backend().now_ns();
  const uint64_t sleep_ns = 2 * bitmap_half_sleep_ns();
  for (uint64_t p : clear_clean_chunks(now > sleep_ns ? now - sleep_ns : 0)) write_bitmap_page(p);
}

void Array::arm_bitmap_daemon() {
  if (bitmap_thread_) {
    daemon_thread_ = std::thread([this] {
      std::unique_lock lock(daemon_mutex_);
      auto next = std::chrono::steady_clock::now() + std::chrono::nanoseconds(bitmap_half_sleep_ns());
      while (!bitmap_stopping_.load()) {
        if (daemon_cv_.wait_until(lock, next) == std::cv_status::timeout) {
          bitmap_thread_->post([this] { bitmap_daemon_pass(); });
          next = std::chrono::steady_clock::now() + std::chrono::nanoseconds(bitmap_half_sleep_ns());
        } else {  // woken: stopping, or daemon_sleep changed (a shorter one counts from now)
          next = std::min(
              next, std::chrono::steady_clock::now() + std::chrono::nanoseconds(bitmap_half_sleep_ns()));
        }
      }
    });
    return;
  }
  daemon_timer_.array = this;
  daemon_timer_.done = &Array::bitmap_daemon_tick;
  bitmap_ctx_->backend().queue_timer(daemon_timer_, bitmap_half_sleep_ns());
}

void Array::bitmap_daemon_tick(io::MemberIo& mio, int) {
  Array& self = *static_cast<BitmapPageIo&>(mio).array;
  if (self.bitmap_stopping_.load()) return;
  self.bitmap_daemon_pass();
  self.bitmap_ctx_->backend().queue_timer(self.daemon_timer_, self.bitmap_half_sleep_ns());
}

// ---- stopping ----

// A clean stop leaves a clean bitmap, as md's final flush does: every chunk
// without a write in flight is cleared and its page written.
Status Array::flush_bitmap_for_close() {
  if (!bitmap_ || !bitmap_ctx_ || simulated_ || read_only_) return {};
  std::mutex m;
  std::condition_variable cv;
  uint64_t waiting = 0;
  bool posted = false;
  bitmap_thread_->post([&] {
    for (uint64_t p : clear_clean_chunks(~uint64_t{0})) {
      {
        std::lock_guard lock(m);
        ++waiting;
      }
      write_bitmap_page(p);
    }
    std::lock_guard lock(m);
    posted = true;
    cv.notify_all();
  });
  {
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return posted; });
  }
  // Wait for every page to be as durable as its content now is.
  for (uint64_t p = 0; p < bitmap_->pages(); ++p) {
    bool done = false;
    bitmap_ctx_->post([this, p] { write_bitmap_page(p); });
    bitmap_->when_durable(p, bitmap_->content_epoch(p), [&] {
      std::lock_guard lock(m);
      done = true;
      cv.notify_all();
    });
    std::unique_lock lock(m);
    cv.wait(lock, [&] { return done; });
  }
  return {};
}

void Array::stop_bitmap() {
  {
    std::lock_guard lock(daemon_mutex_);
    bitmap_stopping_ = true;
  }
  daemon_cv_.notify_all();
  if (daemon_thread_.joinable()) daemon_thread_.join();
  {  // after a superblock update waiting for a page write, if one is
    std::lock_guard live(bitmap_live_mutex_);
    bitmap_live_ = false;
  }
  if (!bitmap_thread_) {
    bitmap_port_.reset();
    return;
  }
  // The port goes on its own thread; the timer and writes drain with it.
  bitmap_thread_->post([this] { bitmap_port_.reset(); });
  bitmap_thread_->stop();
  bitmap_thread_.reset();
}

// md writes the bitmap superblock with every superblock update, and the
// kernel resyncs the whole array when the bitmap's events are older than
// the array's (md_bitmap_read_sb: "bitmap file is out of date"). Written
// first, as md does: a crash in between leaves the bitmap ahead, which is
// fine. While the bitmap thread runs it owns the page writes (a page is
// never written twice at once), so it writes page 0 and this waits.
std::vector<std::pair<int, std::string>> Array::write_bitmap_super() {
  std::vector<std::pair<int, std::string>> failed;
  if (!bitmap_ || simulated_) return failed;
  std::lock_guard live(bitmap_live_mutex_);
  const uint64_t epoch = bitmap_->touch_super();
  if (bitmap_live_) {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    bitmap_ctx_->post([this] { write_bitmap_page(0); });
    bitmap_->when_durable(0, epoch, [&] {
      std::lock_guard lock(mu);
      done = true;
      cv.notify_all();
    });
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return done; });
    return failed;
  }
  // No bitmap thread (before it starts at create or assemble, after it
  // stopped at close): nothing else writes bitmap pages now.
  const uint64_t events = [&] {
    std::lock_guard lock(meta_mutex_);
    return sb_.events;
  }();
  const BitmapLayout& lay = bitmap_->layout();
  auto page = io::AlignedBuffer::allocate(ondisk::kBitmapPageBytes);
  if (!page) {  // no member is at fault: each is told why its bitmap was not written
    for (int m = 0; m < table()->size(); ++m)
      failed.emplace_back(m, "bitmap write failed: " + page.error().message);
    return failed;
  }
  io::AlignedBuffer& buf = *page;
  if (!bitmap_->take_page(0, events, buf)) return failed;
  const TableRef t = table();
  for (int m = 0; m < t->size(); ++m) {
    const Member& mem = (*t)[m];
    if (!mem.dev || !mem.writable()) continue;
    const uint64_t size = bitmap_write_bytes(mem, m, 0, std::min<uint64_t>(lay.space_bytes, buf.size()));
    Status st = mem.dev->write_at(lay.offset_bytes, buf.data(), size);
    if (st) st = mem.dev->flush();
    if (!st) failed.emplace_back(m, "bitmap write failed: " + st.error().message);
  }
  (void)bitmap_->page_written(0);  // no writer runs to take it again
  return failed;
}

}  // namespace rs::raid
