// RAID1 address maths: every mirror at the same device sector.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "../../common/result_helpers.hpp"
#include "layout/raid1.hpp"

using namespace rs::layout;

TEST_CASE("raid1 maps an array sector to the same sector on every mirror", "[raid1]") {
  for (int disks = 1; disks <= 4; ++disks) {
    const auto g = raid1_geometry(disks, 1000);
    REQUIRE(g);
    CHECK(raid1_array_sectors(*g) == 1000);
    for (uint64_t s : {uint64_t{0}, uint64_t{7}, uint64_t{999}}) {
      std::vector<DevAddress> out(static_cast<size_t>(disks));
      REQUIRE(raid1_map(*g, s, out.data()) == disks);
      for (int d = 0; d < disks; ++d) {
        CHECK(out[static_cast<size_t>(d)] == DevAddress{d, s});
        CHECK(raid1_find_virt(*g, d, s) == s);
      }
    }
    CHECK(raid1_find_virt(*g, 0, 1000) >= raid1_array_sectors(*g));
  }
  std::string err;
  err = rs::test::error_text(raid1_geometry(0, 1000));
  CHECK_FALSE(err.empty());
  CHECK_THAT(err, Catch::Contains("at least 1"));
}
