// The telemetry sampler: at a fixed rate it reads the session's counters,
// turns them into a per-interval Sample and publishes it.
//
// Readers never slow the I/O path: the I/O path only bumps relaxed atomic
// counters and single-writer histogram buckets; the sampler (its own thread)
// reads them, builds an immutable Sample and publishes it into a ring of
// slots, from which any number of readers take shared_ptr copies (latest()
// or everything since a seq). A slot is a shared_ptr under its own mutex,
// held for the pointer copy or swap only (never while a Sample is built or
// freed). Not std::atomic<std::shared_ptr>: libstdc++ 12's load() releases
// its spin bit with memory_order_relaxed, a data race that TSan reports
// (google/sanitizers#1558). Listeners (the CLI's JSONL writer) run on the sampler
// thread. Nobody reads: the sampler is not started and costs nothing.
//
// Per interval (between two samples, or the baseline taken by begin() and
// the first sample):
// - member counts, bytes and errors are differences of the cumulative
//   readings; a member is matched to its previous reading by position and
//   name, else by name, else (added or replaced) counted from zero; a
//   counter lower than before (restarted) counts from zero too;
// - read_share = member reads / all members' reads (0 when none);
// - avg_pending = the increase of MemberCountersSnapshot::pending_time_at(now)
//   / the interval, so the sampler's clock must be the one the counters are
//   stamped with (CLOCK_MONOTONIC for the io_uring backends, the virtual
//   clock for simulated sessions);
// - array IOPS and bytes/s from read_array() differences / the interval;
// - clat p50/p99 from the interval's buckets (cumulative minus previous);
// - events recorded since the previous sample, t relative to the start (so
//   the EventLog's clock must be the sampler's too).
// An interval of zero length has zero rates and avg_pending.
//
// Control (begin, start, stop, sample_now, add_listener) belongs to one
// thread, the session's owner; latest(), since(), last_seq(), start_ns(),
// rate_hz(), set_rate() and sample_on_thread() may be called from any thread.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/result.hpp"
#include "telemetry/event_log.hpp"
#include "telemetry/live_histogram.hpp"
#include "telemetry/member_counters.hpp"
#include "telemetry/sample.hpp"

namespace rs::telemetry {

// What the sampler reads. Implemented by the array front (members, tasks,
// the personality's section) and by plain targets (a file: one member).
// Called on the sampler's thread while I/O runs: must be thread-safe and
// must not block on I/O.
class TelemetrySource {
 public:
  struct MemberReading {
    std::string name, state;
    MemberCountersSnapshot counters;  // cumulative
  };
  virtual ~TelemetrySource() = default;
  virtual std::vector<MemberReading> read_members() const = 0;
  // Array-level I/O completed so far (cumulative): reads, writes, bytes.
  virtual MemberCountersSnapshot read_array() const = 0;
  virtual std::vector<TaskSample> read_tasks() const { return {}; }
  virtual std::vector<Section> read_sections() const { return {}; }
};

struct SamplerOptions {
  unsigned rate_hz = 10;  // 1..50
  size_t history = 3000;  // samples kept (5 minutes at 10 Hz), at least 1
  Clock clock_ns;         // empty: CLOCK_MONOTONIC
};

class Sampler {
 public:
  using Listener = std::function<void(const Sample&)>;
  static constexpr unsigned kMinRateHz = 1, kMaxRateHz = 50;

  // The options start() refuses (Errc::invalid_argument naming the option,
  // the value and the valid range); the CLI checks --telemetry-rate early.
  static Status check(const SamplerOptions& options);

  // `latencies` and `events` may be null. The source, latencies and events
  // must outlive the sampler.
  Sampler(const TelemetrySource& source, const LiveLatencySet* latencies, const EventLog* events,
          SamplerOptions options = {});
  ~Sampler();  // stop(): the tail sample's listeners are called
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  // Listeners are added before start() (ignored while running). They run on the sampler thread (on
  // the caller's for sample_now()) and must not throw: an exception is
  // caught and dropped so that it cannot end the process; a listener
  // reports its own failures (the JSONL writer keeps its stream's state).
  void add_listener(Listener l);

  // t = 0 at `start_ns` on the sampler's clock (0: now), and the baseline
  // readings every first-interval difference starts from: counters and
  // latencies as they are now, events after the last one recorded. Not
  // while started. start() calls it unless it was called before.
  void begin(uint64_t start_ns = 0);
  // Checks the options, begin()s if needed and starts the thread, which
  // samples every 1/rate_hz seconds (on the steady clock, without drift).
  // Errc::invalid_argument for bad options, Errc::busy when started.
  Status start(uint64_t start_ns = 0);
  // Takes one last sample (the tail of the run, on the sampler thread, its
  // listeners called) and joins the thread. No-op when not started.
  void stop();
  bool running() const { return running_.load(std::memory_order_acquire); }

  // Builds and publishes one sample now, on the caller's thread (tests, and
  // simulated sessions that sample in virtual time), begin()ning first if
  // nobody did (that first sample then covers an empty interval). Returns
  // the sample; null (and nothing sampled) while the thread runs.
  std::shared_ptr<const Sample> sample_now();

  // Any thread. Changes the rate, at once when the thread runs (the next
  // sample is one new period after the change): an open array session
  // samples for as long as it is open and its viewers change the rate.
  // Errc::invalid_argument outside kMinRateHz..kMaxRateHz.
  Status set_rate(unsigned rate_hz);
  unsigned rate_hz() const { return rate_hz_.load(std::memory_order_relaxed); }
  // Any thread. While the thread runs, asks it for one sample now (between
  // its periodic ones, its listeners called) and returns once that sample
  // is published: a workload that ends gets the tail of its run without
  // stopping the sampler. Null when the thread does not run.
  std::shared_ptr<const Sample> sample_on_thread();

  // Any thread; never waits for a sample being built.
  std::shared_ptr<const Sample> latest() const;  // null before the first sample
  // Samples with seq > after still in the ring, oldest first.
  std::vector<std::shared_ptr<const Sample>> since(uint64_t after) const;
  uint64_t last_seq() const { return last_seq_.load(std::memory_order_acquire); }
  uint64_t start_ns() const { return start_ns_.load(std::memory_order_relaxed); }

 private:
  struct PreviousMember {
    std::string name;
    uint64_t reads = 0, writes = 0, read_bytes = 0, write_bytes = 0, errors = 0;
    uint64_t pending_time_ns = 0;  // pending_time_at() the reading's time
    uint64_t read_errors = 0, corrected_errors = 0;
  };

  static PreviousMember remember(const TelemetrySource::MemberReading& r, uint64_t now);
  void run();
  std::shared_ptr<const Sample> take_sample();  // build + publish + listeners
  Sample build(uint64_t now);
  void build_members(Sample& s, uint64_t now);
  void build_array(Sample& s);
  void build_events(Sample& s);
  void publish(std::shared_ptr<const Sample> s);

  const TelemetrySource& source_;
  const LiveLatencySet* latencies_;
  const EventLog* events_;
  SamplerOptions opt_;
  std::vector<Listener> listeners_;
  // One published sample; load() and store() from any thread.
  class Slot {
   public:
    std::shared_ptr<const Sample> load() const;
    void store(std::shared_ptr<const Sample> s);  // frees the previous sample outside the lock

   private:
    mutable std::mutex mutex_;
    std::shared_ptr<const Sample> sample_;
  };

  std::vector<Slot> ring_;
  std::atomic<uint64_t> last_seq_{0};
  std::atomic<uint64_t> start_ns_{0};
  bool begun_ = false;

  // Previous cumulative readings (the thread that samples only).
  uint64_t prev_ns_ = 0;
  std::vector<PreviousMember> prev_members_;
  MemberCountersSnapshot prev_array_;
  std::vector<uint64_t> prev_latency_;
  uint64_t prev_event_seq_ = 0;

  std::thread thread_;
  std::atomic<bool> running_{false};
  std::atomic<unsigned> rate_hz_;
  // Under stop_mutex_: the thread's wake-up reasons and the answers to
  // sample_on_thread() (asked_ counts the requests, answered_ those served).
  std::mutex stop_mutex_;
  std::condition_variable stop_cv_, answered_cv_;
  bool stopping_ = false;
  bool rate_changed_ = false;
  bool thread_done_ = false;
  uint64_t asked_ = 0, answered_ = 0;
};

}  // namespace rs::telemetry
