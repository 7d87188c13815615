// md's handle_stripe_dirtying choice, on hand-counted stripes: rmw reads the
// written blocks and the parity, rcw the data blocks not written; a block
// that cannot be read costs 2 x disks; rmw only when strictly cheaper.
#include <catch2/catch.hpp>
#include <vector>

#include "raid5/write_plan.hpp"

using namespace rs::raid5;

namespace {
WriteChoice choose(int pd, std::vector<uint8_t> written, std::vector<uint8_t> readable) {
  return choose_write(pd, written, readable);
}
}  // namespace

TEST_CASE("full-stripe writes need no pre-reads", "[raid5][plan]") {
  auto c = choose(3, {1, 1, 1, 0}, {1, 1, 1, 1});
  CHECK(c.method == WriteMethod::full_stripe);
  CHECK(c.prereads == 0);
  CHECK(c.possible);
}

TEST_CASE("rmw vs rcw by counting pre-reads", "[raid5][plan]") {
  // 4 members, one block written: rmw 2 (it + parity), rcw 2 (the other two): a tie is rcw.
  auto c = choose(3, {1, 0, 0, 0}, {1, 1, 1, 1});
  CHECK(c.method == WriteMethod::rcw);
  CHECK(c.prereads == 2);
  // 5 members, one written: rmw 2 < rcw 3.
  c = choose(0, {0, 0, 1, 0, 0}, {1, 1, 1, 1, 1});
  CHECK(c.method == WriteMethod::rmw);
  CHECK(c.prereads == 2);
  // 5 members, two written: rmw 3 > rcw 2.
  c = choose(4, {1, 1, 0, 0, 0}, {1, 1, 1, 1, 1});
  CHECK(c.method == WriteMethod::rcw);
  CHECK(c.prereads == 2);
  // 3 members, one written: rmw 2 > rcw 1.
  c = choose(1, {1, 0, 0}, {1, 1, 1});
  CHECK(c.method == WriteMethod::rcw);
  CHECK(c.prereads == 1);
}

TEST_CASE("degraded stripes avoid the block that cannot be read", "[raid5][plan]") {
  // The written block's member failed: rmw would need its old data (8 + 1), rcw reads 3.
  auto c = choose(4, {1, 0, 0, 0, 0}, {0, 1, 1, 1, 1});
  CHECK(c.method == WriteMethod::rcw);
  CHECK(c.prereads == 3);
  CHECK(c.possible);
  // A block not written is missing: rcw would need it (8 + 2), rmw reads 2.
  c = choose(4, {1, 0, 0, 0, 0}, {1, 0, 1, 1, 1});
  CHECK(c.method == WriteMethod::rmw);
  CHECK(c.prereads == 2);
  // Parity missing: rcw (3 reads), the parity write then goes nowhere.
  c = choose(4, {1, 0, 0, 0, 0}, {1, 1, 1, 1, 0});
  CHECK(c.method == WriteMethod::rcw);
  CHECK(c.prereads == 3);
  // Two members missing under one stripe: nothing works.
  c = choose(3, {1, 0, 0, 0}, {0, 0, 1, 1});
  CHECK_FALSE(c.possible);
}
