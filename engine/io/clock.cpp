#include "io/clock.hpp"

#include <atomic>
#include <cstdlib>
#include <ctime>
#include <mutex>

#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

namespace rs::io {
namespace {

// When the counter's rate is measured against clock_gettime (since the
// first reading): first after 20 ms, so that a short run is mostly on the
// counter, then again after 1 s and 30 s, each time from the first reading,
// so the rate's error (the readings' jitter, tens of ns, over the interval)
// falls to a few parts per billion and the clock stays within microseconds
// of CLOCK_MONOTONIC, which the telemetry sampler reads.
constexpr uint64_t kCalibrationNs[] = {20'000'000, 1'000'000'000, 30'000'000'000};
constexpr int kStages = 3;

uint64_t gettime_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000ull + uint64_t(ts.tv_nsec);
}

#if defined(__x86_64__)
bool tsc_invariant() noexcept {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) || eax < 0x80000007u) return false;
  if (!__get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx)) return false;
  return (edx & (1u << 8)) != 0;
}
uint64_t read_tsc() noexcept {
  return __rdtsc();
}
#else
bool tsc_invariant() noexcept {
  return false;
}
uint64_t read_tsc() noexcept {
  return 0;
}
#endif

// A (CLOCK_MONOTONIC, tsc) pair: the tsc read between two clock readings,
// taken where those two are closest. A thread preempted between the
// readings would pair them a scheduling slice apart (milliseconds: a rate
// off by percents after 20 ms); the closest of several tries is not.
struct Pair {
  uint64_t ns = 0, tsc = 0;
};
Pair sample_pair() noexcept {
  constexpr uint64_t kGoodGapNs = 2'000;
  uint64_t best_gap = ~uint64_t{0};
  Pair best;
  for (int i = 0; i < 32 && best_gap > kGoodGapNs; ++i) {
    const uint64_t a = gettime_ns();
    const uint64_t t = read_tsc();
    const uint64_t b = gettime_ns();
    if (b - a < best_gap) best_gap = b - a, best = {a + (b - a) / 2, t};
  }
  return best;
}

// The counter's mapping to nanoseconds, immutable once published:
// ns = anchor_ns + ((tsc - anchor_tsc) * mult >> 32).
struct TscMapping {
  uint64_t anchor_ns = 0;
  uint64_t anchor_tsc = 0;
  uint64_t mult = 0;      // ns per tick, 32.32 fixed point
  uint64_t next_tsc = 0;  // when to measure the rate again
};

class Clock {
 public:
  Clock() : usable_(tsc_invariant() && std::getenv("RAIDSCOPE_CLOCK_GETTIME") == nullptr) {
    const Pair p = sample_pair();
    start_ns_ = p.ns;
    start_tsc_ = p.tsc;
  }

  uint64_t now() noexcept {
    if (const TscMapping* m = map_.load(std::memory_order_acquire)) {
      const uint64_t tsc = read_tsc();
      if (tsc >= m->next_tsc) [[unlikely]]
        return calibrate();
      // 128-bit product: 32.32 overflows 64 bits after a few seconds of ticks.
      return m->anchor_ns + uint64_t((unsigned __int128)(tsc - m->anchor_tsc) * m->mult >> 32);
    }
    const uint64_t ns = gettime_ns();
    if (usable_.load(std::memory_order_relaxed) && ns - start_ns_ >= kCalibrationNs[0]) return calibrate();
    return ns;
  }

 private:
  // Publishes the next mapping, anchored at a fresh clock_gettime reading
  // (so the clock stays on CLOCK_MONOTONIC), and returns that reading.
  uint64_t calibrate() noexcept {
    std::lock_guard lock(mutex_);
    const auto [ns, tsc] = sample_pair();
    const TscMapping* current = map_.load(std::memory_order_relaxed);
    if (stage_ >= kStages || (current && tsc < current->next_tsc)) return ns;  // another thread did it
    if (tsc <= start_tsc_ || ns <= start_ns_) {
      // A counter that did not move forward: stay on clock_gettime.
      usable_.store(false, std::memory_order_relaxed);
      map_.store(nullptr, std::memory_order_release);
      stage_ = kStages;
      return ns;
    }
    TscMapping& m = maps_[stage_];
    m.mult = uint64_t(((unsigned __int128)(ns - start_ns_) << 32) / (tsc - start_tsc_));
    m.anchor_ns = ns;
    m.anchor_tsc = tsc;
    m.next_tsc = ~uint64_t{0};
    if (stage_ + 1 < kStages && m.mult)
      m.next_tsc = start_tsc_ + uint64_t(((unsigned __int128)kCalibrationNs[stage_ + 1] << 32) / m.mult);
    ++stage_;
    map_.store(&m, std::memory_order_release);
    return ns;
  }

  std::atomic<bool> usable_;
  uint64_t start_ns_ = 0, start_tsc_ = 0;
  TscMapping maps_[kStages];  // one per stage: a reader may still hold the last one
  int stage_ = 0;
  std::atomic<const TscMapping*> map_{nullptr};
  std::mutex mutex_;
};

Clock& clock() noexcept {
  static Clock c;
  return c;
}

}  // namespace

uint64_t monotonic_ns() noexcept {
  thread_local uint64_t last = 0;
  const uint64_t now = clock().now();
  if (now > last) last = now;
  return last;
}

}  // namespace rs::io
