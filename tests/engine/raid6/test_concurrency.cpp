// RAID6 writers on several contexts sharing stripes (their regions
// interleave page by page, so every stripe has writers from every thread
// and rmw/rcw must not mix half-written stripes), two members failed one
// after the other while they run, then both rebuilt in one pass: every byte
// reads back and check finds P and Q right. A ThreadSanitizer target.
#include "raid6_test_util.hpp"

using namespace rs;
using namespace rs::raid6::test;

TEST_CASE("raid6 concurrent writers, two members failed mid-run, rebuilt: nothing lost",
          "[raid6][concurrency]") {
  TempDir dir;
  auto paths = member_paths(dir, 8);  // 8 members: single-page writes go by rmw
  auto arr = create_raid6({8, 2}, paths);
  const uint64_t size = arr->size_bytes();
  std::mt19937_64 rng(66);
  std::vector<uint8_t> model = random_bytes(rng, size), back(size, 0);
  require_writers_ok(writers_with_failures(*arr, model, back, rng, {1, 4}));
  CHECK(first_diff(back, model) == -1);
  CHECK(personality(*arr).active_stripes() == 0);
  CHECK(personality(*arr).counters().rmw.load() > 0);

  raid::AddOptions ao;
  ao.create_files_bytes = kRaid6MemberBytes;
  require_ok(add_members(*arr, {dir.file("new1.img"), dir.file("new4.img")}, ao));
  CHECK_FALSE(arr->degraded());
  CHECK(check_ok(*arr, false) == 0);
  std::vector<uint8_t> again(size);
  require_ok(array_read(*arr, 0, again.data(), size));
  CHECK(first_diff(again, model) == -1);
}
