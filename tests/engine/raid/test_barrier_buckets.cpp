// The resync barrier in md's buckets (raid1.c's barrier[] hashing): a
// piece holds writes only in the buckets of its 64 MiB barrier units and
// waits for the writes already counted there; writes elsewhere pass.
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <thread>
#include <vector>

#include "raid/barrier.hpp"

using rs::raid::ArrayIo;
using rs::raid::ResyncBarrier;

namespace {

constexpr uint64_t kUnitSectors = uint64_t(1) << 17;  // md's BARRIER_UNIT_SECTOR_SIZE

ArrayIo write_at(uint64_t sector, uint32_t bytes = 4096) {
  ArrayIo io;
  io.write = true;
  io.offset = sector * 512;
  io.length = bytes;
  return io;
}

// A unit whose bucket is neither unit 0's nor unit 1's.
uint64_t other_unit() {
  uint64_t u = 2;
  while (ResyncBarrier::bucket_of(u * kUnitSectors) == ResyncBarrier::bucket_of(0) ||
         ResyncBarrier::bucket_of(u * kUnitSectors) == ResyncBarrier::bucket_of(kUnitSectors))
    ++u;
  return u;
}

}  // namespace

TEST_CASE("barrier buckets: a piece parks writes in its unit only, and resumes them when lowered",
          "[barrier]") {
  ResyncBarrier b;
  std::vector<ArrayIo*> resumed;
  b.set_resume([&](ArrayIo& io) { resumed.push_back(&io); });
  ArrayIo inside = write_at(8), same_unit = write_at(kUnitSectors - 8),
          elsewhere = write_at(other_unit() * kUnitSectors);
  {
    ResyncBarrier::Piece piece(b, 0, 128);
    CHECK_FALSE(b.enter(inside));
    // md's granularity: the whole 64 MiB unit is held, not just the piece.
    CHECK_FALSE(b.enter(same_unit));
    // Another bucket: passes, and leaves without a lock.
    CHECK(b.enter(elsewhere));
    CHECK(elsewhere.barrier == ArrayIo::Gate::counted);
    b.leave(elsewhere);
    CHECK(resumed.empty());
  }
  REQUIRE(resumed.size() == 2);
  CHECK(((resumed[0] == &inside && resumed[1] == &same_unit) ||
         (resumed[0] == &same_unit && resumed[1] == &inside)));
  // Lowered: the same write passes now.
  CHECK(b.enter(inside));
  b.leave(inside);
}

TEST_CASE("barrier buckets: a piece waits for the writes counted in its buckets, not for others",
          "[barrier][threads]") {
  ResyncBarrier b;
  b.set_resume([](ArrayIo&) {});
  // A write crossing from unit 0 into unit 1 counts in both buckets.
  ArrayIo crossing = write_at(kUnitSectors - 4, 4096);
  ArrayIo elsewhere = write_at(other_unit() * kUnitSectors + 64);
  REQUIRE(b.enter(crossing));
  REQUIRE(b.enter(elsewhere));
  std::atomic<bool> up{false}, lowered{false};
  std::thread task([&] {
    ResyncBarrier::Piece piece(b, kUnitSectors, kUnitSectors + 64);  // unit 1 only
    up = true;
    while (!lowered.load()) std::this_thread::yield();
  });
  // The write in another bucket finishing does not raise the piece ...
  b.leave(elsewhere);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK_FALSE(up.load());
  // ... the crossing write, counted in unit 1's bucket too, does.
  b.leave(crossing);
  while (!up.load()) std::this_thread::yield();
  lowered = true;
  task.join();
}
