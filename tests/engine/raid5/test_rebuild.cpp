// RAID5 rebuild as a task: cancelled half way it is recorded (the
// recovering member serves the stripes below its recovery point, the rest
// is reconstructed), resumed after a reassemble from where it stopped, and
// writes running during a rebuild reach the new member (check finds none
// missing).
#include <atomic>
#include <cstring>
#include <thread>

#include "raid5_test_util.hpp"

using namespace rs;
using namespace rs::raid5::test;

namespace {}  // namespace

TEST_CASE("raid5: an interrupted rebuild is recorded and resumes where it stopped", "[raid5][rebuild]") {
  const Geometry g = GENERATE(Geometry{3, 0}, Geometry{4, 2}, Geometry{5, 3});
  INFO(g.disks << " members, " << kLayoutNames[g.layout]);
  TempDir dir;
  auto paths = member_paths(dir, g.disks);
  auto arr = create_raid5(g, paths);
  std::mt19937_64 rng(31);
  auto model = random_bytes(rng, arr->size_bytes());
  require_ok(array_write(*arr, 0, model.data(), model.size()));
  const int bad = 1;
  require_ok(arr->fail_member(bad, "test"));
  const std::string fresh = dir.file("fresh.img");
  const uint64_t total = arr->shape().dev_sectors * raid::kSectorBytes;

  uint64_t stopped_at = 0;
  raid::Array* a = arr.get();
  arr->set_piece_hook([&](const std::string& kind, uint64_t done) {
    if (kind != "rebuild" || stopped_at || done < total / 2) return;
    stopped_at = done;
    for (auto& t : a->running_tasks()) t.task->cancel();
  });
  raid::AddOptions ao;
  ao.create_files_bytes = kRaid5MemberBytes;
  auto task = arr->start_add(fresh, ao);
  REQUIRE(task.ok());
  CHECK((*task)->wait().error().code == Errc::cancelled);
  arr->set_piece_hook(nullptr);
  REQUIRE(stopped_at > 0);
  REQUIRE(stopped_at < total);
  CHECK(state(*arr, bad) == raid::MemberState::recovering);
  CHECK(arr->runtime(bad).recovery_offset.load() * raid::kSectorBytes == stopped_at);
  read_matches(*arr, model);
  // A write across the recovery point while it stands (device offset
  // stopped_at starts the stripe at array offset stopped_at x data members).
  auto data = random_bytes(rng, 300000);
  const uint64_t at = stopped_at * uint64_t(g.disks - 1) - 150000;
  require_ok(array_write(*arr, at, data.data(), data.size()));
  std::memcpy(model.data() + at, data.data(), data.size());
  read_matches(*arr, model);

  paths[size_t(bad)] = fresh;
  arr.reset();
  arr = assemble(paths);
  CHECK(state(*arr, bad) == raid::MemberState::recovering);
  CHECK(arr->runtime(bad).recovery_offset.load() * raid::kSectorBytes == stopped_at);
  read_matches(*arr, model);
  // Resumed: the progress starts where it stopped.
  uint64_t first_done = 0;
  arr->set_piece_hook([&](const std::string& kind, uint64_t done) {
    if (kind == "rebuild" && !first_done) first_done = done;
  });
  require_ok(add_member(*arr, fresh));
  arr->set_piece_hook(nullptr);
  CHECK(first_done > stopped_at);
  CHECK(state(*arr, bad) == raid::MemberState::in_sync);
  CHECK(check_ok(*arr, false) == 0);
  read_matches(*arr, model);
}

TEST_CASE("raid5: writes during a rebuild reach the rebuilt member", "[raid5][rebuild]") {
  TempDir dir;
  auto paths = member_paths(dir, 4);
  auto arr = create_raid5({4, 2}, paths);
  std::mt19937_64 rng(32);
  auto model = random_bytes(rng, arr->size_bytes());
  require_ok(array_write(*arr, 0, model.data(), model.size()));
  require_ok(arr->fail_member(2, "test"));
  std::atomic<bool> stop{false};
  std::vector<uint8_t> written = model;
  std::string error;
  // The writer rewrites the whole array in 36 KiB pieces (partial stripes:
  // pre-reads from the member being rebuilt are not allowed above its
  // recovery point) while the rebuild runs.
  std::thread writer([&] {
    std::mt19937_64 wrng(33);
    for (int pass = 0; pass < 3 && !stop.load(); ++pass)
      for (uint64_t off = 0; off + 36864 <= written.size() && !stop.load(); off += 36864) {
        auto d = random_bytes(wrng, 36864);
        if (Status s = array_write(*arr, off, d.data(), d.size()); !s) {
          error = s.error().message;
          return;
        }
        std::memcpy(written.data() + off, d.data(), d.size());
      }
  });
  raid::AddOptions ao;
  ao.create_files_bytes = kRaid5MemberBytes;
  Status rebuilt = add_member(*arr, dir.file("fresh.img"), ao);
  stop = true;
  writer.join();
  require_ok(rebuilt);
  INFO(error);
  CHECK(error.empty());
  CHECK(check_ok(*arr, false) == 0);
  read_matches(*arr, written);
}
