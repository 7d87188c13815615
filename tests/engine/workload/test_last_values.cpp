// LastValues: verify_state_save's ring of a file's last write completions
// (fio keeps the last iodepth of them, newest first, per file).
#include <catch2/catch.hpp>

#include "workload/verify_state.hpp"

using rs::workload::LastValues;

TEST_CASE("last values: the last `capacity` pushed, newest first", "[verify_state]") {
  LastValues ring(3);
  CHECK(ring.size() == 0);
  ring.push(10);
  ring.push(20);
  REQUIRE(ring.size() == 2);
  CHECK(ring.newest(0) == 20);
  CHECK(ring.newest(1) == 10);
  // Full, then past full twice: 30, 40 and 50 push 10 and 20 out.
  for (uint64_t v : {30, 40, 50}) ring.push(v);
  REQUIRE(ring.size() == 3);
  CHECK(ring.newest(0) == 50);
  CHECK(ring.newest(1) == 40);
  CHECK(ring.newest(2) == 30);
}

TEST_CASE("last values: a ring of one keeps the last push; of none, nothing", "[verify_state]") {
  LastValues one(1);
  for (uint64_t v : {7, 8, 9}) one.push(v);
  REQUIRE(one.size() == 1);
  CHECK(one.newest(0) == 9);
  LastValues none;
  none.push(1);
  CHECK(none.size() == 0);
}
