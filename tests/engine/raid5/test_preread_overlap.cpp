// md's handle_stripe clears a stripe's STRIPE_PREREAD_ACTIVE once its
// parity is computed, before its writes go out (reconstruct_state
// drain_result), and wakes raid5d: a stripe delayed for its pre-reads
// (released only while no stripe is pre-read active, IO_THRESHOLD 1) may
// start them while the earlier stripe's writes are still at the disks.
#include <catch2/catch.hpp>

#include "gated_port.hpp"

using namespace rs;
using namespace rs::raid5;
using namespace rs::raid5::test;

TEST_CASE("raid5: a delayed stripe's pre-reads start while the earlier stripe's writes are in flight",
          "[raid5][scheduler]") {
  TempDir dir;
  auto arr = create_raid5({4, 2}, member_paths(dir, 4));
  auto gated = std::make_unique<GateBackend>(arr->make_backend(8));
  GateBackend& gate = *gated;
  gate.reads_pass = true;  // the disks hold writes only
  TestPort tp(*arr, std::move(gated));
  std::mt19937_64 rng(5);
  const auto a = random_bytes(rng, 4096), b = random_bytes(rng, 4096);

  // A 4 KiB write needs pre-reads: it waits on delayed_list, an unplug
  // releases it, its pre-reads pass, and its writes stop at the disks.
  Write wa(tp, 0, a);
  REQUIRE(settle_until(tp, [&] { return gate.held() > 0; }));
  const size_t a_writes = gate.held();
  CHECK(raid5_value(*arr, "preread_active_stripes") == 0);  // its parity is computed
  // A second one, on another stripe: released with A's writes still held.
  Write wb(tp, 1 << 20, b);
  CHECK(settle_until(tp, [&] { return gate.held() > a_writes; }));
  CHECK(raid5_value(*arr, "delayed") == 0);
  CHECK_FALSE(wa.c.done);

  gate.open();
  while (!(wa.c.done && wb.c.done)) tp.turn();
  CHECK(wa.c.result == 4096);
  CHECK(wb.c.result == 4096);
  std::vector<uint8_t> back(4096);
  REQUIRE(array_read(*arr, 0, back.data(), back.size()).ok());
  CHECK(first_diff(back, a) == -1);
  REQUIRE(array_read(*arr, 1 << 20, back.data(), back.size()).ok());
  CHECK(first_diff(back, b) == -1);
}
