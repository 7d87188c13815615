// A RAID5 tunable change takes effect at once, on the stripes already
// waiting: lowering preread_bypass_threshold below the count of full-stripe
// writes that passed a stripe waiting for its pre-reads hands that stripe
// to raid5d there and then, with no new write to trigger a pass (md reads
// conf->bypass_threshold on every __get_priority_stripe; here the change
// runs a pass of its own).
#include <catch2/catch.hpp>
#include <cstring>

#include "gated_port.hpp"

using namespace rs;
using namespace rs::raid5;
using namespace rs::raid5::test;

TEST_CASE("raid5: lowering preread_bypass_threshold takes the waiting pre-read stripe at once, no new write",
          "[raid5][scheduler][tunables]") {
  TempDir dir;
  auto arr = create_raid5({3, 2}, member_paths(dir, 3));
  REQUIRE(arr->tunables().set("stripe_scheduling", "priority").ok());
  REQUIRE(arr->tunables().set("preread_bypass_threshold", "100").ok());
  auto gated = std::make_unique<GateBackend>(arr->make_backend(8));
  GateBackend& gate = *gated;
  TestPort tp(*arr, std::move(gated));
  std::mt19937_64 rng(3);
  const uint32_t row =
      2 * kChunkBytes;  // a full chunk row of a 3-member RAID5: every stripe in it fully written
  const auto full1 = random_bytes(rng, row), small = random_bytes(rng, 4096), full2 = random_bytes(rng, row);

  // Full-stripe writes in flight (held at the disks), then a 4 KiB write
  // that needs pre-reads: it waits on hold_list while full writes are
  // pending, and the later full writes pass it (bypass_count grows).
  Write w1(tp, 0, full1);
  REQUIRE(settle_until(tp, [&] { return gate.held() > 0; }));
  Write w2(tp, 1 << 20, small);
  REQUIRE(settle_until(tp, [&] { return raid5_value(*arr, "hold") == 1; }));
  const size_t w1_held = gate.held();
  Write w3(tp, 2 << 20, full2);
  REQUIRE(settle_until(tp, [&] { return gate.held() > w1_held; }));
  REQUIRE(raid5_value(*arr, "hold") == 1);
  const double passed = raid5_value(*arr, "bypass_count");
  REQUIRE(passed > 1);
  REQUIRE(passed <= 100);  // not enough to pass the threshold of 100: it keeps waiting
  const size_t held = gate.held();

  // The change alone takes it: bypass_count > 1 now lets it go first.
  REQUIRE(arr->tunables().set("preread_bypass_threshold", "1").ok());
  CHECK(raid5_value(*arr, "hold") == 0);
  CHECK(settle_until(tp, [&] { return gate.held() > held; }));  // its pre-reads went to the disks
  CHECK_FALSE(w2.c.done);

  gate.open();
  while (!(w1.c.done && w2.c.done && w3.c.done)) tp.turn();
  CHECK(w1.c.result == int(row));
  CHECK(w2.c.result == 4096);
  CHECK(w3.c.result == int(row));
  std::vector<uint8_t> back(4096);
  REQUIRE(array_read(*arr, 1 << 20, back.data(), back.size()).ok());
  CHECK(first_diff(back, small) == -1);
}
