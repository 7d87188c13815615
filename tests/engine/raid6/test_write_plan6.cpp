// md's RAID6 write choice (write_plan.hpp with a Q member): rmw reads the
// old data, P and Q; rcw the data not written; rmw only when strictly
// cheaper. Counts worked by hand.
#include <catch2/catch.hpp>
#include <vector>

#include "raid5/write_plan.hpp"

using namespace rs::raid5;

namespace {
WriteChoice choose6(int pd, int qd, std::vector<uint8_t> written, std::vector<uint8_t> readable = {}) {
  if (readable.empty()) readable.assign(written.size(), 1);
  return choose_write(pd, written, readable, {}, false, qd);
}
}  // namespace

TEST_CASE("raid6 write choice: rmw reads data, P and Q, rcw the data not written") {
  // 8 members, P on 6, Q on 7, one block written: rmw reads 3, rcw 5.
  WriteChoice c = choose6(6, 7, {1, 0, 0, 0, 0, 0, 0, 0});
  CHECK(c.method == WriteMethod::rmw);
  CHECK(c.prereads == 3);
  // 6 members, one written: rmw 3, rcw 3: md takes rcw unless rmw is strictly cheaper.
  c = choose6(0, 1, {0, 0, 1, 0, 0, 0});
  CHECK(c.method == WriteMethod::rcw);
  CHECK(c.prereads == 3);
  // 4 members (2 data), one written: rcw reads the other data block only.
  c = choose6(3, 0, {0, 1, 0, 0});
  CHECK(c.method == WriteMethod::rcw);
  CHECK(c.prereads == 1);
  // Every data block written: a full-stripe write, nothing read.
  c = choose6(2, 3, {1, 1, 0, 0, 1, 1});
  CHECK(c.method == WriteMethod::full_stripe);
  CHECK(c.prereads == 0);
}

TEST_CASE("raid6 write choice around members that cannot be read") {
  // 8 members, Q unreadable: rmw cannot run, rcw can (it does not read Q).
  WriteChoice c = choose6(6, 7, {1, 0, 0, 0, 0, 0, 0, 0}, {1, 1, 1, 1, 1, 1, 1, 0});
  CHECK(c.method == WriteMethod::rcw);
  CHECK(c.possible);
  // A data block not written is unreadable and so is P: neither method can
  // read what it needs; the head recovers the missing blocks first
  // (stripe_batch6.cpp).
  c = choose6(6, 7, {1, 0, 0, 0, 0, 0, 0, 0}, {1, 0, 1, 1, 1, 1, 0, 1});
  CHECK_FALSE(c.possible);
}
