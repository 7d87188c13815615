// The resync barrier in md's buckets (raid1.c's barrier[] hashing): a
// piece holds writes only in the buckets of its 64 MiB barrier units and
// waits for the writes already counted there; writes elsewhere pass.
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "../../common/wait_until.hpp"
#include "raid/barrier.hpp"

using rs::raid::ArrayIo;
using rs::raid::ResyncBarrier;
using rs::test::wait_until;

namespace {

constexpr uint64_t kUnitSectors = uint64_t(1) << 17;  // md's BARRIER_UNIT_SECTOR_SIZE

ArrayIo write_at(uint64_t sector, uint32_t bytes = 4096) {
  ArrayIo io;
  io.write = true;
  io.offset = sector * 512;
  io.length = bytes;
  return io;
}

// Far longer than any wait here takes on a loaded host, far shorter than
// the ctest timeout: a barrier that never wakes a piece fails the case
// with a message instead of hanging it.
constexpr std::chrono::seconds kDeadline{20};

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
  // Shared with the piece's thread, which may outlive this case: a barrier
  // that never wakes the piece leaves it blocked, and the case detaches it
  // rather than hang to the ctest timeout.
  struct Shared {
    ResyncBarrier b;
    std::atomic<bool> up{false}, lowered{false}, task_timed_out{false};
  };
  auto sh = std::make_shared<Shared>();
  ResyncBarrier& b = sh->b;
  b.set_resume([](ArrayIo&) {});
  // A write crossing from unit 0 into unit 1 counts in both buckets.
  ArrayIo crossing = write_at(kUnitSectors - 4, 4096);
  ArrayIo elsewhere = write_at(other_unit() * kUnitSectors + 64);
  REQUIRE(b.enter(crossing));
  REQUIRE(b.enter(elsewhere));
  std::thread task([sh] {
    ResyncBarrier::Piece piece(sh->b, kUnitSectors, kUnitSectors + 64);  // unit 1 only
    sh->up = true;
    // Held until the main thread has looked, which it does within its own
    // deadline; past this one it has given up on the case.
    if (!wait_until([&] { return sh->lowered.load(); }, 2 * kDeadline)) sh->task_timed_out = true;
  });
  // The write in another bucket finishing does not raise the piece ...
  b.leave(elsewhere);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  CHECK_FALSE(sh->up.load());
  // ... the crossing write, counted in unit 1's bucket too, does.
  b.leave(crossing);
  if (!wait_until([&] { return sh->up.load(); }, kDeadline)) {
    task.detach();
    FAIL("the piece over unit 1 was still waiting " << kDeadline.count()
                                                    << " s after the last write counted in its bucket left");
  }
  sh->lowered = true;
  task.join();
  CHECK_FALSE(sh->task_timed_out.load());
}
