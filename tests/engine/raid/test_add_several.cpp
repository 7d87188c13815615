// One add of two members on the mirror levels: both are rebuilt by one task
// in one pass over the device sectors (raid10's two targets hold different
// data, so each piece is copied for each in turn), and the data reads back.
#include "raid_test_util.hpp"

using namespace rs;
using namespace rs::raid;
using namespace rs::raid::test;

TEST_CASE("one add of two members rebuilds both in one pass on raid10 and raid1", "[raid][manage][rebuild]") {
  const Config c = GENERATE(Config{"raid10 n2 x4", 10, 4, "n2"}, Config{"raid10 f2 x4", 10, 4, "f2"},
                            Config{"raid1 x3", 1, 3, ""});
  INFO(c.name);
  TempDir dir;
  auto paths = member_paths(dir, c.disks);
  auto arr = create_array(c, paths);
  std::mt19937_64 rng(0xadd2);
  const auto model = fill_region(*arr, rng, 64 * 1024);
  // raid10 n2/f2 x4: members 0 and 2 hold no copy in common; raid1: any two.
  require_ok(arr->fail_member(0, "test"));
  require_ok(arr->fail_member(2, "test"));
  std::vector<uint64_t> progress;
  arr->set_piece_hook([&](const std::string& kind, uint64_t done) {
    if (kind == "rebuild") progress.push_back(done);
  });
  AddOptions ao;
  ao.create_files_bytes = kMemberBytes;
  paths[0] = dir.file("new0.img");
  paths[2] = dir.file("new2.img");
  auto task = arr->start_add(std::vector<std::string>{paths[0], paths[2]}, ao);
  require_ok(task ? (*task)->wait() : Status(task.error()));
  arr->set_piece_hook({});
  REQUIRE_FALSE(progress.empty());
  CHECK(std::is_sorted(progress.begin(), progress.end()));  // one pass: progress never goes back
  CHECK(progress.back() == arr->shape().dev_sectors * kSectorBytes);
  CHECK(state(*arr, 0) == MemberState::in_sync);
  CHECK(state(*arr, 2) == MemberState::in_sync);
  CHECK(check_ok(*arr, false) == 0);
  std::vector<uint8_t> back(model.size());
  require_ok(array_read(*arr, 0, back.data(), back.size()));
  CHECK(first_diff(back, model) == -1);
  // Both survive a reassemble as in-sync members.
  arr.reset();
  arr = assemble(paths);
  CHECK_FALSE(arr->degraded());
}
