// io::monotonic_ns: CLOCK_MONOTONIC read through the time-stamp counter
// once its rate is measured (io/clock.hpp). It must never go back on a
// thread and must stay on CLOCK_MONOTONIC across the switch to the counter
// (after 20 ms) and the first re-measure (after 1 s).
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <ctime>
#include <thread>
#include <vector>

#include "io/clock.hpp"

namespace {
uint64_t gettime() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000ull + uint64_t(ts.tv_nsec);
}
}  // namespace

TEST_CASE("io clock: never goes back and follows CLOCK_MONOTONIC across calibration", "[io][clock]") {
  const uint64_t t0 = gettime();
  uint64_t last = rs::io::monotonic_ns();
  uint64_t worst_gap = 0, readings = 0, backwards = 0;
  // 1.2 s of readings: the switch to the counter and the first re-measure.
  while (gettime() - t0 < 1'200'000'000ull) {
    for (int i = 0; i < 1000; ++i) {
      const uint64_t now = rs::io::monotonic_ns();
      backwards += now < last;
      last = now;
      ++readings;
    }
    const uint64_t before = gettime();
    const uint64_t ours = rs::io::monotonic_ns();
    const uint64_t after = gettime();
    // Between two CLOCK_MONOTONIC readings, give or take 50 us of rate error.
    const uint64_t gap = ours < before ? before - ours : ours > after ? ours - after : 0;
    if (gap > worst_gap) worst_gap = gap;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  INFO(readings << " readings, worst distance from CLOCK_MONOTONIC " << worst_gap << " ns");
  CHECK(backwards == 0);
  CHECK(worst_gap < 50'000);
  CHECK(readings > 10'000);
}

TEST_CASE("io clock: threads read the same clock", "[io][clock]") {
  // Readings from two threads, each bracketed by CLOCK_MONOTONIC, line up
  // with it: no thread has its own offset.
  std::vector<std::thread> threads;
  std::atomic<uint64_t> worst{0};
  for (int t = 0; t < 2; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 2000; ++i) {
        const uint64_t before = gettime();
        const uint64_t ours = rs::io::monotonic_ns();
        const uint64_t after = gettime();
        const uint64_t gap = ours < before ? before - ours : ours > after ? ours - after : 0;
        uint64_t w = worst.load();
        while (gap > w && !worst.compare_exchange_weak(w, gap)) {
        }
        std::this_thread::sleep_for(std::chrono::microseconds(50));
      }
    });
  for (auto& t : threads) t.join();
  CHECK(worst.load() < 50'000);
}
