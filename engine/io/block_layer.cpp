#include "io/block_layer.hpp"

#include <algorithm>
#include <functional>

namespace rs::io {

namespace {

template <typename T>
uint32_t take(std::vector<T>& pool, std::vector<uint32_t>& free, const T& value) {
  if (!free.empty()) {
    const uint32_t i = free.back();
    free.pop_back();
    pool[i] = value;
    return i;
  }
  pool.push_back(value);
  return uint32_t(pool.size() - 1);
}

}  // namespace

BlockLimits BlockLimits::of(const DeviceProfile& p) {
  BlockLimits l;
  const uint32_t lbs = std::max<uint32_t>(p.logical_block_size, 512);
  l.max_bytes = std::max(p.max_sectors_kb * 1024 / lbs * lbs, lbs);
  l.queue_depth = std::max<uint32_t>(p.queue_depth, 1);
  l.nr_requests = std::max<uint32_t>(p.effective_nr_requests(), 1);
  l.scheduler = p.scheduler;
  return l;
}

BlockLayer::BlockLayer(std::unique_ptr<DeviceModel> inner, const BlockLimits& limits)
    : inner_(std::move(inner)), inner_events_(dynamic_cast<EventDevice*>(inner_.get())), limits_(limits) {
  inner_sink_.self = this;
  const size_t expect = size_t(limits_.queue_depth) + limits_.nr_requests + 64;
  parents_.reserve(expect);
  bios_.reserve(expect);
  requests_.reserve(expect);
  retire_.reserve(limits_.queue_depth + 1);
  sched_.reserve(limits_.nr_requests);
  tag_free_.reserve(limits_.queue_depth + 1);
}

// ---- DeviceModel path ----

uint64_t BlockLayer::schedule(uint64_t now_ns, bool write, uint64_t offset, uint32_t length) {
  std::lock_guard lock(mu_);
  const auto later = std::greater<uint64_t>();
  while (!tag_free_.empty() && tag_free_.front() <= now_ns) {
    std::pop_heap(tag_free_.begin(), tag_free_.end(), later);
    tag_free_.pop_back();
  }
  uint64_t done = now_ns;
  const uint64_t end = offset + length;
  uint64_t o = offset;
  do {
    const uint32_t piece = uint32_t(std::min<uint64_t>(limits_.max_bytes, end - o));
    uint64_t start = now_ns;
    if (tag_free_.size() >= limits_.queue_depth) {
      // Every tag is held: this request goes when the first one frees.
      std::pop_heap(tag_free_.begin(), tag_free_.end(), later);
      start = std::max(start, tag_free_.back());
      tag_free_.pop_back();
    }
    const uint64_t t = inner_->schedule(start, write, o, piece);
    tag_free_.push_back(t);
    std::push_heap(tag_free_.begin(), tag_free_.end(), later);
    done = std::max(done, t);
    o += piece;
  } while (o < end);
  return done;
}

// ---- Event path ----

uint32_t BlockLayer::new_request(uint32_t bio, bool write, uint64_t offset, uint32_t length) {
  return take(requests_, free_requests_, Request{offset, length, write, bio, bio});
}

// Merges request `from` into `into` when one continues the other, same
// direction, within max_bytes. `from` is freed when merged.
bool BlockLayer::try_merge(uint32_t into, uint32_t from, bool write, uint64_t offset, uint32_t length) {
  Request& a = requests_[into];
  if (a.write != write || uint64_t(a.length) + length > limits_.max_bytes) return false;
  const Request b = requests_[from];
  if (a.offset + a.length == offset) {  // back merge
    bios_[a.last_bio].next = b.first_bio;
    a.last_bio = b.last_bio;
  } else if (offset + length == a.offset) {  // front merge
    bios_[b.last_bio].next = a.first_bio;
    a.first_bio = b.first_bio;
    a.offset = offset;
  } else {
    return false;
  }
  a.length += length;
  free_requests_.push_back(from);
  return true;
}

void BlockLayer::arrive(uint64_t now_ns, uint64_t token, bool write, uint64_t offset, uint32_t length,
                        EventSink& sink) {
  outer_ = &sink;
  ++arrived_;
  retire(now_ns);
  const uint32_t parent = take(parents_, free_parents_, Parent{token, 0, 0});
  const uint64_t end = offset + length;
  uint64_t o = offset;
  do {
    const uint32_t piece = uint32_t(std::min<uint64_t>(limits_.max_bytes, end - o));
    const uint32_t bio = take(bios_, free_bios_, Bio{parent, kNone});
    ++parents_[parent].pieces_left;
    const uint32_t req = new_request(bio, write, o, piece);
    if (plug_.empty() || !try_merge(plug_.back(), req, write, o, piece)) plug_.push_back(req);
    o += piece;
  } while (o < end);
}

void BlockLayer::flush(uint64_t now_ns, EventSink& sink) {
  outer_ = &sink;
  retire(now_ns);
  for (uint32_t req : plug_) enqueue(now_ns, req);
  plug_.clear();
  dispatch_waiting(now_ns);
}

void BlockLayer::enqueue(uint64_t now, uint32_t req) {
  if (!waiting() && in_flight_ < limits_.queue_depth) return dispatch(now, req);
  const Request r = requests_[req];
  if (overflow_head_ == overflow_.size())
    for (uint32_t s : sched_)
      if (try_merge(s, req, r.write, r.offset, r.length)) return;
  if (sched_.size() < limits_.nr_requests && overflow_head_ == overflow_.size())
    sched_.push_back(req);
  else
    overflow_.push_back(req);
  // Make sure someone touches us when the first tag frees (the deliveries
  // of what completes then may not be ours to see).
  if (!retire_.empty()) outer_->wake_at(retire_.front().at);
}

void BlockLayer::dispatch(uint64_t now, uint32_t req) {
  ++in_flight_;
  ++dispatched_;
  const Request r = requests_[req];
  last_dispatch_end_ = r.offset + r.length;
  if (inner_events_)
    inner_events_->arrive(now, req, r.write, r.offset, r.length, inner_sink_);
  else
    request_done(req, inner_->schedule(now, r.write, r.offset, r.length));
}

void BlockLayer::dispatch_waiting(uint64_t now) {
  for (;;) {
    // Submitters blocked on a full scheduler queue get in as room frees.
    while (sched_.size() < limits_.nr_requests && overflow_head_ < overflow_.size())
      sched_.push_back(overflow_[overflow_head_++]);
    if (overflow_head_ == overflow_.size()) overflow_.clear(), overflow_head_ = 0;
    if (sched_.empty() || in_flight_ >= limits_.queue_depth) return;
    size_t pick = 0;
    if (limits_.scheduler == Scheduler::MqDeadline) {
      // The next request at or after the sweep position; else start over.
      size_t ahead = sched_.size(), lowest = 0;
      for (size_t i = 0; i < sched_.size(); ++i) {
        const uint64_t off = requests_[sched_[i]].offset;
        if (off < requests_[sched_[lowest]].offset) lowest = i;
        if (off >= last_dispatch_end_ && (ahead == sched_.size() || off < requests_[sched_[ahead]].offset))
          ahead = i;
      }
      pick = ahead < sched_.size() ? ahead : lowest;
    }
    const uint32_t req = sched_[pick];
    sched_.erase(sched_.begin() + ptrdiff_t(pick));
    dispatch(now, req);
  }
}

void BlockLayer::request_done(uint32_t req, uint64_t at) {
  retire_.push_back({at, req});
  std::push_heap(retire_.begin(), retire_.end(), std::greater<Retire>());
  bool delivered_then = false;
  for (uint32_t b = requests_[req].first_bio; b != kNone; b = bios_[b].next) {
    Parent& p = parents_[bios_[b].parent];
    p.done_ns = std::max(p.done_ns, at);
    if (--p.pieces_left == 0) {
      outer_->complete_at(p.token, p.done_ns);
      delivered_then = delivered_then || p.done_ns == at;
      free_parents_.push_back(bios_[b].parent);
    }
  }
  // The tag frees at `at`: be there if requests wait for it, or if the
  // device needs the touch (an event device decides its next command then)
  // and no delivery of ours happens at that instant.
  if (waiting() || (inner_events_ && !delivered_then)) outer_->wake_at(at);
}

void BlockLayer::retire(uint64_t now) {
  bool freed = false;
  while (!retire_.empty() && retire_.front().at <= now) {
    std::pop_heap(retire_.begin(), retire_.end(), std::greater<Retire>());
    const Retire r = retire_.back();
    retire_.pop_back();
    --in_flight_;
    freed = true;
    if (inner_events_) inner_events_->delivered(r.at, r.request, inner_sink_);
    for (uint32_t b = requests_[r.request].first_bio; b != kNone;) {
      const uint32_t next = bios_[b].next;
      free_bios_.push_back(b);
      b = next;
    }
    free_requests_.push_back(r.request);
  }
  if (freed) dispatch_waiting(now);
}

void BlockLayer::delivered(uint64_t now_ns, uint64_t token, EventSink& sink) {
  (void)token;  // reported and forgotten when it was decided
  outer_ = &sink;
  retire(now_ns);
}

void BlockLayer::wake(uint64_t now_ns, EventSink& sink) {
  outer_ = &sink;
  retire(now_ns);
  if (inner_events_) inner_events_->wake(now_ns, inner_sink_);
  dispatch_waiting(now_ns);
}

}  // namespace rs::io
