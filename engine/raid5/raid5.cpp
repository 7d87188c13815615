#include "raid5/raid5.hpp"

#include "layout/layout_names.hpp"
#include "raid5/raid5_internal.hpp"

namespace rs::raid5 {

using raid::MemberState;

Raid5Personality::Raid5Personality(const raid::Shape& shape, const StripeGeometry& geometry,
                                   raid::ArrayCore& core)
    : shape_(shape),
      geo_(geometry),
      core_(core),
      cache_(geometry.raid_disks),
      streams_(row_sectors()),  // geo_ is set by now (declared first)
      all_readable_(size_t(geometry.raid_disks), 1),
      towrite_scratch_(size_t(geometry.raid_disks), 0) {}

uint64_t Raid5Personality::array_sectors() const { return geo_.array_sectors(); }

std::string Raid5Personality::describe() const {
  return "layout " + layout_name() + ", chunk " + std::to_string(geo_.chunk_sectors / 2) + "K, " +
         std::to_string(geo_.data_disks()) + (geo_.level == 6 ? " data + P + Q" : " data + 1 parity") +
         " per stripe";
}

std::string Raid5Personality::layout_name() const { return geo_.layout_name(); }

// md runs raid5 with at most one member short of in sync, raid6 with two
// (max_degraded).
bool Raid5Personality::can_run(const raid::MemberTable& table, const std::vector<uint64_t>&) const {
  int short_of_sync = 0;
  for (int i = 0; i < geo_.raid_disks; ++i) {
    const raid::Member& m = table[i];
    if (!m.present() || m.state != MemberState::in_sync) ++short_of_sync;
  }
  return short_of_sync <= geo_.max_degraded();
}

// Parity can be made to agree only with every member in sync (md's
// raid5_sync_request gives up on a degraded array).
bool Raid5Personality::can_resync(const raid::MemberTable& table) const {
  for (int i = 0; i < geo_.raid_disks; ++i)
    if (!table[i].present() || table[i].state != MemberState::in_sync) return false;
  return true;
}

// ---- the write-intent bitmap: md's raid5 counts per-member stripe sectors ----

uint64_t Raid5Personality::bitmap_sectors() const {
  return geo_.dev_sectors / geo_.chunk_sectors * geo_.chunk_sectors;
}

std::pair<uint64_t, uint64_t> Raid5Personality::bitmap_range(uint64_t array_lo, uint64_t array_hi) const {
  if (array_hi <= array_lo) return {0, 0};
  const uint64_t chunk = geo_.chunk_sectors, row = row_sectors();
  const uint64_t first = array_lo / row, last = (array_hi - 1) / row;
  // Within one chunk: exactly the sectors written; otherwise whole chunks
  // of the stripes touched (every member's part of those stripes).
  if (array_lo / chunk == (array_hi - 1) / chunk)
    return {first * chunk + array_lo % chunk, first * chunk + (array_hi - 1) % chunk + 1};
  return {first * chunk, (last + 1) * chunk};
}

std::pair<uint64_t, uint64_t> Raid5Personality::array_range_of_bitmap(uint64_t lo, uint64_t hi) const {
  if (hi <= lo) return {0, 0};
  const uint64_t chunk = geo_.chunk_sectors, row = row_sectors();
  return {lo / chunk * row, std::min(array_sectors(), ((hi - 1) / chunk + 1) * row)};
}

// ---- tunables and telemetry ----

void Raid5Personality::register_tunables(telemetry::TunableRegistry& reg) {
  using telemetry::TunableSpec;
  using telemetry::TunableType;
  // md's limits: raid5_store_stripe_cache_size refuses <= 16 and > 32768.
  reg.add(
      TunableSpec{"stripe_cache_size",
                  TunableType::integer,
                  17,
                  32768,
                  {},
                  "stripes",
                  "stripe heads (one 4 KiB page per member) the stripe cache may hold"},
      [this](int) { return std::to_string(stripe_cache_size()); },
      [this](int, const telemetry::TunableValue& v) {
        cache_size_.store(int(v.number), std::memory_order_relaxed);
        raid5d(nullptr);  // at once: the cache shrinks or grows now
        return Status{};
      });
  TunableSpec bypass{"preread_bypass_threshold",
                     TunableType::integer,
                     0,
                     32768,
                     {},
                     "stripes",
                     "priority scheduling: times a stripe needing pre-reads may be passed over by "
                     "full-stripe writes (0: it waits until no full-stripe write is pending)"};
  // md: 0..stripe_cache_size (raid5_store_preread_threshold).
  bypass.check = [this](int64_t v) -> Status {
    const int size = stripe_cache_size();
    if (v <= size) return {};
    return make_error(Errc::invalid_argument, "above stripe_cache_size (" + std::to_string(size) +
                                                  "): valid 0.." + std::to_string(size));
  };
  reg.add(
      bypass, [this](int) { return std::to_string(bypass_threshold()); },
      [this](int, const telemetry::TunableValue& v) {
        bypass_threshold_.store(int(v.number), std::memory_order_relaxed);
        raid5d(nullptr);  // at once: a waiting pre-read stripe it lets pass is handled now
        return Status{};
      });
  reg.add(
      TunableSpec{"stripe_scheduling",
                  TunableType::choice,
                  0,
                  0,
                  {scheduling_name(Scheduling::legacy), scheduling_name(Scheduling::priority)},
                  "",
                  "which stripe raid5d handles next: legacy (in arrival order) or priority "
                  "(full-stripe writes first; stripes needing pre-reads wait, see "
                  "preread_bypass_threshold)"},
      [this](int) { return std::string(scheduling_name(scheduling())); },
      [this](int, const telemetry::TunableValue& v) {
        // The choice's index is the enum (the names are listed in its order).
        scheduling_.store(uint8_t(v.number), std::memory_order_relaxed);
        raid5d(nullptr);  // at once: to legacy, hold_list's stripes go to handle_list now
        return Status{};
      });
  reg.add(
      TunableSpec{"hold_stream_stripes",
                  TunableType::boolean,
                  0,
                  1,
                  {},
                  "",
                  "sequential writes: a stripe the writer is still filling waits for its next write "
                  "instead of reading the rest of the stripe back first (off: it is read back as soon "
                  "as the queue is unplugged)"},
      [this](int) { return std::string(hold_stream_stripes() ? "on" : "off"); },
      [this](int, const telemetry::TunableValue& v) {
        // Held stripes are let go at the next unplug, which the end of the
        // member I/O in flight brings (nothing is held without any).
        hold_streams_.store(v.number != 0, std::memory_order_relaxed);
        return Status{};
      });
}

void Raid5Personality::read_sections(std::vector<telemetry::Section>& out) const {
  telemetry::Section s;
  s.name = geo_.level == 6 ? "raid6" : "raid5";
  const auto full = counters_.full_stripe.load(std::memory_order_relaxed);
  const auto rmw = counters_.rmw.load(std::memory_order_relaxed);
  const auto rcw = counters_.rcw.load(std::memory_order_relaxed);
  const auto pre = counters_.prereads.load(std::memory_order_relaxed);
  {
    // The stripe cache's lists as they are now (md's sysfs shows
    // stripe_cache_active; the rest is what raid5d's queues hold).
    std::lock_guard lock(mutex_);
    s.values = {{"handle", double(queues_.handle_len())},
                {"hold", double(queues_.hold_len())},
                {"delayed", double(queues_.delayed_len())},
                {"inactive", double(cache_.free_heads())},
                {"active_stripes", double(cache_.active())},
                {"handling", double(in_round_)},
                {"waiting_writes", double(waiters_.size())},
                {"preread_active_stripes", double(queues_.preread_active_stripes())},
                {"bypass_count", double(queues_.bypass_count())},
                {"pending_full_writes", double(queues_.pending_full_writes())},
                {"delayed_released_total", double(queues_.released_total())}};
  }
  s.values.insert(s.values.end(), {{"stripe_cache_size", double(stripe_cache_size())},
                                   {"preread_bypass_threshold", double(bypass_threshold())},
                                   {"stripe_scheduling", scheduling() == Scheduling::priority ? 1.0 : 0.0},
                                   {"hold_stream_stripes", hold_stream_stripes() ? 1.0 : 0.0},
                                   // per interval (since the previous sample)
                                   {"full_stripe_writes", double(full - last_full_)},
                                   {"rmw_writes", double(rmw - last_rmw_)},
                                   {"rcw_writes", double(rcw - last_rcw_)},
                                   {"prereads", double(pre - last_prereads_)},
                                   // since the array started
                                   {"full_stripe_writes_total", double(full)},
                                   {"rmw_writes_total", double(rmw)},
                                   {"rcw_writes_total", double(rcw)},
                                   {"prereads_total", double(pre)},
                                   {"degraded_reads_total",
                                    double(counters_.degraded_reads.load(std::memory_order_relaxed))}});
  if (geo_.level == 6) {  // which syndrome check found wrong, in 4 KiB pages
    s.values.push_back({"check_p_mismatch_pages_total", double(counters_.p_mismatches.load())});
    s.values.push_back({"check_q_mismatch_pages_total", double(counters_.q_mismatches.load())});
  }
  last_full_ = full;
  last_rmw_ = rmw;
  last_rcw_ = rcw;
  last_prereads_ = pre;
  out.push_back(std::move(s));
}

// ---- factory ----

Result<std::unique_ptr<raid::Personality>> make_raid5(const raid::Shape& shape, raid::ArrayCore& core) {
  auto g = stripe_geometry(shape.level, shape.layout, shape.raid_disks, shape.chunk_sectors, shape.dev_sectors);
  if (!g) return g.take_error();
  auto p = std::unique_ptr<Raid5Personality>(new Raid5Personality(shape, *g, core));
  if (Status s = p->cache_.reserve(); !s) return s.error();
  return std::unique_ptr<raid::Personality>(std::move(p));
}

Result<uint64_t> raid5_used_dev_sectors(const raid::Shape& shape, uint64_t member_sectors) {
  if (auto g = stripe_geometry(shape.level, shape.layout, shape.raid_disks, shape.chunk_sectors, member_sectors);
      !g)
    return g.take_error();
  const uint64_t used = member_sectors / shape.chunk_sectors * shape.chunk_sectors;  // md: whole chunks
  if (used == 0)
    return make_error(Errc::invalid_argument,
                      "the chunk (" + std::to_string(uint64_t(shape.chunk_sectors) * 512) +
                          " bytes) is larger than a member's data area (" +
                          std::to_string(member_sectors * 512) + " bytes): the array would hold nothing");
  return used;
}

}  // namespace rs::raid5
