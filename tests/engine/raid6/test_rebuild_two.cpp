// Two members of a RAID6 replaced together are rebuilt in one recovery
// pass, as md's sync thread recovers every spare it started with: one piece
// per chunk of the member (each stripe read once), progress running once
// from 0 to the member size, a stop recording one recovery point for both,
// and the resume finishing both from there.
#include "raid6_test_util.hpp"

using namespace rs;
using namespace rs::raid6::test;

namespace {

struct Progress {
  std::vector<uint64_t> done;  // every rebuild piece's progress, in order
  int restarts() const {       // times progress went back: a second pass
    int n = 0;
    for (size_t i = 1; i < done.size(); ++i) n += done[i] <= done[i - 1];
    return n;
  }
};

void watch_rebuild(raid::Array& arr, Progress& p, std::function<void(uint64_t)> also = {}) {
  arr.set_piece_hook([&p, also](const std::string& kind, uint64_t done) {
    if (kind != "rebuild") return;
    p.done.push_back(done);
    if (also) also(done);
  });
}

}  // namespace

TEST_CASE(
    "raid6 rebuilds two added members in one pass: one piece per chunk, progress once from 0 to the end",
    "[raid6][rebuild]") {
  const uint32_t layout = GENERATE(2u, 17u);  // left-symmetric, and one with Q on the last member
  INFO("layout " << layout);
  TempDir dir;
  auto paths = member_paths(dir, 5);
  auto arr = create_raid6({5, layout}, paths);
  std::vector<uint8_t> model(arr->size_bytes(), 0);
  std::mt19937_64 rng(0x2b2u + layout);
  write_random(*arr, model, rng, 10);
  require_ok(arr->fail_member(1, "test"));
  require_ok(arr->fail_member(3, "test"));
  const uint64_t member_bytes = arr->shape().dev_sectors * 512;
  Progress progress;
  watch_rebuild(*arr, progress);
  raid::AddOptions ao;
  ao.create_files_bytes = kRaid6MemberBytes;
  paths[1] = dir.file("new1.img");
  paths[3] = dir.file("new3.img");
  require_ok(add_members(*arr, {paths[1], paths[3]}, ao));
  arr->set_piece_hook({});
  // One sync pass handles each stripe once: 4 MiB of member data in 64 KiB
  // chunks is 64 pieces (two passes, one per member, would be 128).
  CHECK(progress.done.size() == member_bytes / kChunkBytes);
  CHECK(progress.restarts() == 0);
  for (int k : {1, 3}) CHECK(state(*arr, k) == raid::MemberState::in_sync);
  REQUIRE_FALSE(progress.done.empty());
  CHECK(progress.done.back() == member_bytes);
  REQUIRE_FALSE(arr->degraded());
  CHECK(check_ok(*arr, false) == 0);
  read_matches(*arr, model);
  arr.reset();
  arr = assemble(paths);
  read_matches(*arr, model);
}

TEST_CASE("raid6 two-member rebuild stopped halfway records one point for both and resumes there in one pass",
          "[raid6][rebuild]") {
  TempDir dir;
  auto paths = member_paths(dir, 6);
  auto arr = create_raid6({6, 2}, paths);
  std::vector<uint8_t> model(arr->size_bytes(), 0);
  std::mt19937_64 rng(0x2b3u);
  write_random(*arr, model, rng, 10);
  require_ok(arr->fail_member(0, "test"));
  require_ok(arr->fail_member(4, "test"));
  const uint64_t member_bytes = arr->shape().dev_sectors * 512;
  raid::AddOptions ao;
  ao.create_files_bytes = kRaid6MemberBytes;
  paths[0] = dir.file("new0.img");
  paths[4] = dir.file("new4.img");
  Progress first;
  // Stopped from the hook, on the task's thread: the task as the array lists it.
  raid::Array* a = arr.get();
  watch_rebuild(*arr, first, [a, member_bytes](uint64_t done) {
    if (done < member_bytes / 2) return;
    for (auto& t : a->running_tasks())
      if (t.kind == "rebuild") t.task->cancel();
  });
  auto started = arr->start_add(std::vector<std::string>{paths[0], paths[4]}, ao);
  require_ok(started ? Status{} : Status(started.error()));
  const Status stopped = (*started)->wait();
  REQUIRE_FALSE(stopped);
  CHECK(stopped.error().code == Errc::cancelled);
  arr->set_piece_hook({});
  arr.reset();
  // Both come back recovering, at the same point past the half.
  arr = assemble(paths);
  const uint64_t at = arr->runtime(0).recovery_offset.load();
  CHECK(state(*arr, 0) == raid::MemberState::recovering);
  CHECK(state(*arr, 4) == raid::MemberState::recovering);
  CHECK(arr->runtime(4).recovery_offset.load() == at);
  CHECK(at * 512 >= member_bytes / 2);
  CHECK(at * 512 < member_bytes);
  read_matches(*arr, model);
  Progress second;
  watch_rebuild(*arr, second);
  require_ok(add_members(*arr, {paths[0], paths[4]}));
  arr->set_piece_hook({});
  CHECK(second.done.size() == (member_bytes - at * 512) / kChunkBytes);  // the rest, once
  CHECK(second.restarts() == 0);
  REQUIRE_FALSE(second.done.empty());
  CHECK(second.done.front() > at * 512);
  REQUIRE_FALSE(arr->degraded());
  CHECK(check_ok(*arr, false) == 0);
  read_matches(*arr, model);
}

TEST_CASE("raid6 add of two members refuses when only one is missing, adding nothing", "[raid6][rebuild]") {
  TempDir dir;
  auto paths = member_paths(dir, 4);
  auto arr = create_raid6({4, 2}, paths);
  require_ok(arr->fail_member(2, "test"));
  raid::AddOptions ao;
  ao.create_files_bytes = kRaid6MemberBytes;
  const std::vector<std::string> two = {dir.file("a.img"), dir.file("b.img")};
  auto refused = arr->start_add(two, ao);
  REQUIRE_FALSE(refused);
  CHECK(refused.error().message.find("1 missing") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(two[0]));
  CHECK_FALSE(std::filesystem::exists(two[1]));
  CHECK(state(*arr, 2) != raid::MemberState::recovering);
}
