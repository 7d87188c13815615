// The telemetry sampler: at a fixed rate it reads the session's counters,
// turns them into a per-interval Sample and publishes it.
//
// Readers never slow the I/O path: the I/O path only bumps relaxed atomic
// counters and single-writer histogram buckets; the sampler (its own thread)
// reads them, builds an immutable Sample and publishes it into a ring of
// std::atomic<std::shared_ptr<const Sample>> slots, from which any number of
// readers take shared_ptr copies (latest() or everything since a seq).
// Listeners (the CLI's JSONL writer) run on the sampler thread.
// Nobody reads: the sampler is not started and costs nothing.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "telemetry/event_log.hpp"
#include "telemetry/live_histogram.hpp"
#include "telemetry/member_counters.hpp"
#include "telemetry/sample.hpp"

namespace rs::telemetry {

// What the sampler reads. Implemented by the array front (members, tasks,
// the personality's section) and by plain targets (a file: one member).
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
  unsigned rate_hz = 10;             // 1..50
  size_t history = 3000;             // samples kept (5 minutes at 10 Hz)
  uint64_t (*clock_ns)() = nullptr;  // default CLOCK_MONOTONIC
};

class Sampler {
 public:
  using Listener = std::function<void(const Sample&)>;

  // `latencies` and `events` may be null. The source must outlive the sampler.
  Sampler(const TelemetrySource& source, const LiveLatencySet* latencies, const EventLog* events,
          SamplerOptions options = {});
  ~Sampler();  // stop()

  // Listeners are added before start(); they run on the sampler thread.
  void add_listener(Listener l);
  // Starts the thread; t = 0 is now (or `start_ns` on the sampler's clock).
  void start(uint64_t start_ns = 0);
  // Takes one last sample (the tail of the run) and stops the thread.
  void stop();
  // Builds and publishes one sample now, on the caller's thread (tests, and
  // simulated sessions that sample in virtual time). Not while started.
  void sample_now();

  // Any thread, lock-free for readers of the ring.
  std::shared_ptr<const Sample> latest() const;
  // Samples with seq > after still in the ring, oldest first.
  std::vector<std::shared_ptr<const Sample>> since(uint64_t after) const;
  uint64_t start_ns() const { return start_ns_; }

 private:
  void run();
  Sample build(uint64_t now);
  void publish(std::shared_ptr<const Sample> s);

  const TelemetrySource& source_;
  const LiveLatencySet* latencies_;
  const EventLog* events_;
  SamplerOptions opt_;
  std::vector<Listener> listeners_;
  std::vector<std::atomic<std::shared_ptr<const Sample>>> ring_;
  std::atomic<uint64_t> last_seq_{0};
  uint64_t start_ns_ = 0;

  // Previous cumulative readings (sampler thread only).
  uint64_t prev_ns_ = 0;
  std::vector<MemberCountersSnapshot> prev_members_;
  MemberCountersSnapshot prev_array_;
  std::vector<uint64_t> prev_latency_;
  uint64_t prev_event_seq_ = 0;

  std::thread thread_;
  std::mutex stop_mutex_;
  std::condition_variable stop_cv_;
  bool stopping_ = false;
};

}  // namespace rs::telemetry
