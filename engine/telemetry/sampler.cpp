#include "telemetry/sampler.hpp"

#include <algorithm>
#include <chrono>

namespace rs::telemetry {

namespace {

// The increase of a cumulative counter; one that went down was restarted
// (a replaced member's new counters), so all of its value is new.
uint64_t grown(uint64_t now, uint64_t before) {
  return now >= before ? now - before : now;
}

double per_second(uint64_t count, uint64_t interval_ns) {
  return interval_ns ? double(count) * 1e9 / double(interval_ns) : 0.0;
}

}  // namespace

Sampler::PreviousMember Sampler::remember(const TelemetrySource::MemberReading& r, uint64_t now) {
  const auto& c = r.counters;
  return {r.name,        c.reads,  c.writes, c.read_bytes, c.write_bytes, c.errors, c.pending_time_at(now),
          c.read_errors, c.corrected_errors};
}

Status Sampler::check(const SamplerOptions& options) {
  if (options.rate_hz < kMinRateHz || options.rate_hz > kMaxRateHz)
    return make_error(Errc::invalid_argument, "telemetry rate " + std::to_string(options.rate_hz) +
                                                  " Hz: out of range " + std::to_string(kMinRateHz) + ".." +
                                                  std::to_string(kMaxRateHz) + " Hz");
  if (options.history == 0)
    return make_error(Errc::invalid_argument, "telemetry history 0: must keep at least 1 sample");
  return {};
}

Sampler::Sampler(const TelemetrySource& source, const LiveLatencySet* latencies, const EventLog* events,
                 SamplerOptions options)
    : source_(source),
      latencies_(latencies),
      events_(events),
      opt_(std::move(options)),
      ring_(std::max<size_t>(opt_.history, 1)),
      rate_hz_(opt_.rate_hz) {
  if (!opt_.clock_ns) opt_.clock_ns = monotonic_now_ns;
}

Sampler::~Sampler() {
  stop();
}

void Sampler::add_listener(Listener l) {
  if (!running()) listeners_.push_back(std::move(l));
}

void Sampler::begin(uint64_t start_ns) {
  if (running()) return;
  const uint64_t now = opt_.clock_ns();
  prev_ns_ = start_ns ? start_ns : now;
  start_ns_.store(prev_ns_, std::memory_order_relaxed);
  prev_members_.clear();
  for (const auto& r : source_.read_members()) prev_members_.push_back(remember(r, now));
  prev_array_ = source_.read_array();
  prev_latency_ = latencies_ ? latencies_->cumulative() : std::vector<uint64_t>{};
  prev_event_seq_ = events_ ? events_->last_seq() : 0;
  begun_ = true;
}

Status Sampler::start(uint64_t start_ns) {
  SamplerOptions now = opt_;
  now.rate_hz = rate_hz();
  if (Status st = check(now); !st) return st;
  if (running()) return make_error(Errc::busy, "telemetry sampler: already running");
  if (!begun_) begin(start_ns);
  {
    std::lock_guard lock(stop_mutex_);
    stopping_ = false;
    thread_done_ = false;
  }
  running_.store(true, std::memory_order_release);
  thread_ = std::thread([this] { run(); });
  return {};
}

void Sampler::stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard lock(stop_mutex_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  thread_.join();
  running_.store(false, std::memory_order_release);
}

Status Sampler::set_rate(unsigned rate_hz) {
  SamplerOptions o = opt_;
  o.rate_hz = rate_hz;
  if (Status st = check(o); !st) return st;
  {
    std::lock_guard lock(stop_mutex_);
    rate_hz_.store(rate_hz, std::memory_order_relaxed);
    rate_changed_ = true;
  }
  stop_cv_.notify_all();
  return {};
}

std::shared_ptr<const Sample> Sampler::sample_on_thread() {
  std::unique_lock lock(stop_mutex_);
  if (!running() || thread_done_) return nullptr;
  const uint64_t ticket = ++asked_;
  stop_cv_.notify_all();
  answered_cv_.wait(lock, [&] { return answered_ >= ticket || thread_done_; });
  return answered_ >= ticket ? latest() : nullptr;
}

void Sampler::run() {
  using Steady = std::chrono::steady_clock;
  auto period_of = [this] { return std::chrono::nanoseconds(1'000'000'000 / rate_hz()); };
  auto period = period_of();
  auto next = Steady::now() + period;
  std::unique_lock lock(stop_mutex_);
  for (;;) {
    stop_cv_.wait_until(lock, next, [this] { return stopping_ || rate_changed_ || asked_ > answered_; });
    if (stopping_) break;
    if (rate_changed_) {
      rate_changed_ = false;
      period = period_of();
      next = Steady::now() + period;
    }
    const uint64_t ticket = asked_;
    const bool due = Steady::now() >= next;
    if (!due && ticket == answered_) continue;  // only the rate changed
    lock.unlock();
    take_sample();
    lock.lock();
    answered_ = ticket;
    answered_cv_.notify_all();
    if (!due) continue;  // asked between two ticks: the schedule stands
    next += period;
    // Overran (a slow listener, a descheduled thread): skip the missed
    // ticks rather than sample in a burst.
    if (const auto now = Steady::now(); next <= now) next = now + period;
  }
  lock.unlock();
  take_sample();  // the tail of the run
  lock.lock();
  answered_ = asked_;
  thread_done_ = true;
  answered_cv_.notify_all();
}

std::shared_ptr<const Sample> Sampler::sample_now() {
  if (running()) return nullptr;
  if (!begun_) begin();
  return take_sample();
}

std::shared_ptr<const Sample> Sampler::take_sample() {
  std::shared_ptr<const Sample> s = std::make_shared<const Sample>(build(opt_.clock_ns()));
  publish(s);
  for (const auto& listener : listeners_) {
    try {
      listener(*s);
    } catch (...) {
      // Nothing may leave the sampler thread; see add_listener().
    }
  }
  return s;
}

Sample Sampler::build(uint64_t now) {
  Sample s;
  s.seq = last_seq_.load(std::memory_order_relaxed) + 1;
  const uint64_t start = start_ns();
  s.t_ns = now > start ? now - start : 0;
  s.interval_ns = now > prev_ns_ ? now - prev_ns_ : 0;
  build_members(s, now);
  build_array(s);
  s.sections = source_.read_sections();
  build_events(s);
  prev_ns_ = now;
  return s;
}

void Sampler::build_members(Sample& s, uint64_t now) {
  const auto readings = source_.read_members();
  std::vector<PreviousMember> current;
  current.reserve(readings.size());
  uint64_t all_reads = 0;
  for (size_t i = 0; i < readings.size(); ++i) {
    const auto& r = readings[i];
    const auto& c = r.counters;
    current.push_back(remember(r, now));
    const PreviousMember& cur = current.back();

    // Same position and name, else the same name elsewhere (a member
    // removed before it), else a new member: counted from zero.
    const PreviousMember* before = nullptr;
    if (i < prev_members_.size() && prev_members_[i].name == r.name) {
      before = &prev_members_[i];
    } else {
      const auto it = std::find_if(prev_members_.begin(), prev_members_.end(),
                                   [&](const PreviousMember& p) { return p.name == r.name; });
      if (it != prev_members_.end()) before = &*it;
    }
    static const PreviousMember kZero;
    if (!before) before = &kZero;

    MemberSample m;
    m.name = r.name;
    m.state = r.state;
    m.reads = grown(cur.reads, before->reads);
    m.writes = grown(cur.writes, before->writes);
    m.read_bytes = grown(cur.read_bytes, before->read_bytes);
    m.write_bytes = grown(cur.write_bytes, before->write_bytes);
    m.errors = grown(cur.errors, before->errors);
    m.read_errors = grown(cur.read_errors, before->read_errors);
    m.corrected_errors = grown(cur.corrected_errors, before->corrected_errors);
    m.nr_pending = c.nr_pending;
    m.avg_pending = s.interval_ns
                        ? double(grown(cur.pending_time_ns, before->pending_time_ns)) / double(s.interval_ns)
                        : 0.0;
    all_reads += m.reads;
    s.members.push_back(std::move(m));
  }
  for (auto& m : s.members) m.read_share = all_reads ? double(m.reads) / double(all_reads) : 0.0;
  prev_members_ = std::move(current);
}

void Sampler::build_array(Sample& s) {
  const MemberCountersSnapshot a = source_.read_array();
  ArraySample& out = s.array;
  out.read_iops = per_second(grown(a.reads, prev_array_.reads), s.interval_ns);
  out.write_iops = per_second(grown(a.writes, prev_array_.writes), s.interval_ns);
  out.read_bw_bytes = per_second(grown(a.read_bytes, prev_array_.read_bytes), s.interval_ns);
  out.write_bw_bytes = per_second(grown(a.write_bytes, prev_array_.write_bytes), s.interval_ns);
  prev_array_ = a;
  out.tasks = source_.read_tasks();

  if (!latencies_) return;
  std::vector<uint64_t> cumulative = latencies_->cumulative();
  std::vector<uint64_t> interval(cumulative.size(), 0);
  for (size_t i = 0; i < cumulative.size(); ++i) {
    interval[i] = grown(cumulative[i], i < prev_latency_.size() ? prev_latency_[i] : 0);
    out.clat_samples += interval[i];
  }
  static constexpr double kPercentiles[] = {50.0, 99.0};
  const auto p = percentiles_of(interval, kPercentiles);
  out.clat_p50_ns = p[0];
  out.clat_p99_ns = p[1];
  prev_latency_ = std::move(cumulative);
}

void Sampler::build_events(Sample& s) {
  if (!events_) return;
  const uint64_t start = start_ns();
  s.events = events_->since(prev_event_seq_);
  for (auto& e : s.events) {
    e.t_ns = e.t_ns > start ? e.t_ns - start : 0;
    prev_event_seq_ = e.seq;
  }
}

std::shared_ptr<const Sample> Sampler::Slot::load() const {
  std::lock_guard lock(mutex_);
  return sample_;
}

void Sampler::Slot::store(std::shared_ptr<const Sample> s) {
  {
    std::lock_guard lock(mutex_);
    sample_.swap(s);
  }
  // `s` now holds the sample this slot dropped, freed here without the lock.
}

void Sampler::publish(std::shared_ptr<const Sample> s) {
  const uint64_t seq = s->seq;
  ring_[(seq - 1) % ring_.size()].store(std::move(s));
  last_seq_.store(seq, std::memory_order_release);
}

std::shared_ptr<const Sample> Sampler::latest() const {
  const uint64_t seq = last_seq_.load(std::memory_order_acquire);
  if (seq == 0) return nullptr;
  return ring_[(seq - 1) % ring_.size()].load();
}

std::vector<std::shared_ptr<const Sample>> Sampler::since(uint64_t after) const {
  const uint64_t last = last_seq_.load(std::memory_order_acquire);
  const uint64_t n = ring_.size();
  const uint64_t oldest_kept = last > n ? last - n + 1 : 1;
  std::vector<std::shared_ptr<const Sample>> out;
  for (uint64_t seq = std::max(after + 1, oldest_kept); seq <= last; ++seq) {
    auto s = ring_[(seq - 1) % n].load();
    if (s && s->seq == seq) out.push_back(std::move(s));  // else overwritten by a newer one meanwhile
  }
  return out;
}

}  // namespace rs::telemetry
