// Writers on several contexts sharing stripes (their regions interleave
// page by page, so every stripe has writers from every thread and rmw/rcw
// must not mix their half-written stripes), a member failed while they
// run, then rebuilt: every byte reads back, and check finds parity right.
// A ThreadSanitizer target.
#include "raid5_test_util.hpp"

using namespace rs;
using namespace rs::raid5::test;

TEST_CASE("concurrent writers, a member failed mid-run, rebuilt: nothing lost", "[raid5][concurrency]") {
  const Geometry g{4, 2};
  TempDir dir;
  auto paths = member_paths(dir, g.disks);
  auto arr = create_raid5(g, paths);
  const uint64_t size = arr->size_bytes();
  std::mt19937_64 rng(7);
  std::vector<uint8_t> model = random_bytes(rng, size), back(size, 0);
  require_writers_ok(writers_with_failures(*arr, model, back, rng, {1}));
  CHECK(first_diff(back, model) == -1);
  CHECK(personality(*arr).active_stripes() == 0);

  raid::AddOptions ao;
  ao.create_files_bytes = kRaid5MemberBytes;
  require_ok(add_member(*arr, dir.file("new.img"), ao));
  CHECK(check_ok(*arr, false) == 0);
  std::vector<uint8_t> again(size);
  require_ok(array_read(*arr, 0, again.data(), size));
  CHECK(first_diff(again, model) == -1);
}
