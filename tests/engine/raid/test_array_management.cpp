// fail_member's last-copy guard, and add_member's rebuild (fresh file,
// re-added former member, interrupted and resumed rebuild).
#include <chrono>
#include <filesystem>
#include <optional>
#include <thread>

#include "../../common/result_helpers.hpp"
#include "io/member_device.hpp"
#include "ondisk/superblock.hpp"
#include "raid/member_superblock.hpp"
#include "raid_test_util.hpp"

using namespace rs;
using namespace rs::raid;
using namespace rs::raid::test;

namespace {

struct FailStep {
  int slot;
  bool allowed;
};

struct FailCase {
  Config cfg;
  std::vector<FailStep> steps;
};

// Which failures each layout survives: a member may go unless some data
// would be left without an in-sync copy.
std::vector<FailCase> fail_cases() {
  const auto c = all_configs();
  return {
      {c[0], {{0, true}, {1, false}}},                         // raid1 x2
      {c[1], {{0, true}, {1, true}, {2, false}}},              // raid1 x3
      {c[2], {{0, true}, {1, false}, {2, true}, {3, false}}},  // n2 x4: near pairs (0,1) (2,3)
      {c[3], {{0, true}, {1, false}, {2, true}, {3, false}}},  // f2 x4: far copy one member to the right
      {c[4], {{0, true}, {1, false}, {2, true}, {3, false}}},  // o2 x4: likewise
      {c[5], {{0, true}, {1, false}, {2, false}}},             // n2 x3: every pair of members shares a chunk
  };
}

// Fills the whole array with random bytes through Array::submit.
std::vector<uint8_t> fill_array(Array& arr, std::mt19937_64& rng) {
  constexpr uint32_t kIo = 256 * 1024;
  auto model = random_bytes(rng, arr.size_bytes());
  TestPort tp(arr);
  Pipeline p(tp, 8, kIo);
  std::vector<Request> reqs;
  for (uint64_t off = 0; off < model.size(); off += kIo)
    reqs.push_back({true, off, uint32_t(std::min<uint64_t>(kIo, model.size() - off)), model.data() + off, 0});
  for (int r : p.run(reqs)) REQUIRE(r > 0);
  return model;
}

void check_reads_back(Array& arr, const std::vector<uint8_t>& model) {
  std::vector<uint8_t> back(model.size());
  require_ok(array_read(arr, 0, back.data(), back.size()));
  REQUIRE(first_diff(back, model) == -1);
}

// Records what a rebuild reports, piece by piece, and checks it only moves
// forward to the end.
struct ProgressLog {
  std::vector<uint64_t> calls;
  void attach(Array& arr) {
    arr.set_piece_hook([this](const std::string& kind, uint64_t done) {
      if (kind == "rebuild") calls.push_back(done);
    });
  }
  void check_complete(uint64_t total, uint64_t started_at = 0) const {
    REQUIRE_FALSE(calls.empty());
    uint64_t last = started_at;
    for (uint64_t done : calls) {
      CHECK(done > last);
      last = done;
    }
    CHECK(calls.back() == total);
  }
};

// Adds `path` and waits; the task's own progress must end at `total`.
Status add_and_wait(Array& arr, const std::string& path, uint64_t create_bytes = 0, bool force = false) {
  AddOptions o;
  o.create_files_bytes = create_bytes;
  o.force = force;
  return add_member(arr, path, o);
}

}  // namespace

TEST_CASE("fail_member refuses to fail the last copy of any data", "[raid][manage]") {
  const FailCase fc = GENERATE(from_range(fail_cases()));
  INFO(fc.cfg.name);
  TempDir dir;
  auto paths = member_paths(dir, fc.cfg.disks);
  auto arr = create_array(fc.cfg, paths);
  std::vector<bool> failed(size_t(fc.cfg.disks), false);
  for (const auto& step : fc.steps) {
    INFO("fail member " << step.slot);
    const uint64_t events = arr->superblock().events;
    const int working = arr->working_members();
    const Status st = arr->fail_member(step.slot, "by the test");
    const bool ok = st.ok();
    const std::string error = ok ? "" : st.error().message;
    REQUIRE(ok == step.allowed);
    if (ok) {
      failed[size_t(step.slot)] = true;
      CHECK(state(*arr, step.slot) == MemberState::faulty);
      CHECK(arr->member_note(step.slot) == "by the test");
      CHECK(arr->working_members() == working - 1);
      CHECK(arr->superblock().events > events);  // recorded in the others' superblocks
      // Failing it again changes nothing and is not an error.
      CHECK(arr->fail_member(step.slot, "again").ok());
      CHECK(arr->member_note(step.slot) == "by the test");
    } else {
      CHECK(error.find("last working copy") != std::string::npos);
      CHECK(error.find(paths[size_t(step.slot)]) != std::string::npos);
      // Nothing moved: state, note, counts, metadata.
      CHECK(state(*arr, step.slot) == MemberState::in_sync);
      CHECK(arr->member_note(step.slot).empty());
      CHECK(arr->working_members() == working);
      CHECK(arr->superblock().events == events);
    }
  }
  // The superblocks agree with what happened.
  arr.reset();
  arr = assemble(paths);
  for (int i = 0; i < fc.cfg.disks; ++i) {
    INFO("member " << i);
    CHECK(state(*arr, i) == (failed[size_t(i)] ? MemberState::missing : MemberState::in_sync));
  }
  CHECK(arr->rejected().size() == size_t(std::count(failed.begin(), failed.end(), true)));
  // A role nobody holds cannot be failed.
  const Status nobody = arr->fail_member(0, "x");
  REQUIRE_FALSE(nobody.ok());
  CHECK(nobody.error().message.find("no member") != std::string::npos);
}

TEST_CASE("add_member rebuilds a failed member onto a fresh file", "[raid][manage][rebuild]") {
  const Config cfg = GENERATE(from_range(all_configs()));
  INFO(cfg.name);
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  auto arr = create_array(cfg, paths);
  std::mt19937_64 rng(21);
  auto model = fill_array(*arr, rng);
  const int bad = 1;
  require_ok(arr->fail_member(bad, "test"));
  // Data written while degraded must reach the new member too.
  auto late = random_bytes(rng, 300000);
  require_ok(array_write(*arr, 777777, late.data(), late.size()));
  std::memcpy(model.data() + 777777, late.data(), late.size());

  // A file that does not exist needs create_bytes.
  const std::string fresh = dir.file("fresh.img");
  const Status missing = add_and_wait(*arr, fresh);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message.find("does not exist") != std::string::npos);
  // Nor may an active member be added again.
  CHECK_FALSE(add_and_wait(*arr, paths[0]).ok());

  ProgressLog log;
  log.attach(*arr);
  require_ok(add_and_wait(*arr, fresh, kMemberBytes));
  log.check_complete(arr->shape().dev_sectors * kSectorBytes);
  CHECK(arr->slot_of(fresh) == bad);
  CHECK(state(*arr, bad) == MemberState::in_sync);
  CHECK(arr->working_members() == cfg.disks);
  CHECK(arr->state_text() == "active");  // written since assemble, not yet stopped
  CHECK(check_ok(*arr, false) == 0);
  check_reads_back(*arr, model);

  // The new member is a full member after a restart; the old one is out.
  paths[size_t(bad)] = fresh;
  paths.push_back(dir.file("m" + std::to_string(bad) + ".img"));
  arr.reset();
  arr = assemble(paths);
  CHECK(arr->working_members() == cfg.disks);
  REQUIRE(arr->rejected().size() == 1);
  CHECK(arr->rejected()[0].path == paths.back());
  CHECK(arr->state_text() == "clean");
  // With nothing missing, there is nowhere to add.
  CHECK_FALSE(add_and_wait(*arr, dir.file("spare.img"), kMemberBytes).ok());
  check_reads_back(*arr, model);
}

TEST_CASE("a former member is re-added and rebuilt after a restart", "[raid][manage][rebuild]") {
  const Config cfg = GENERATE(from_range(all_configs()));
  INFO(cfg.name);
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  auto arr = create_array(cfg, paths);
  std::mt19937_64 rng(22);
  auto model = fill_array(*arr, rng);
  const int bad = cfg.disks - 1;
  require_ok(arr->fail_member(bad, "test"));
  // Its copy goes stale while it is out.
  auto late = random_bytes(rng, 123456);
  require_ok(array_write(*arr, 4242, late.data(), late.size()));
  std::memcpy(model.data() + 4242, late.data(), late.size());
  arr.reset();
  arr = assemble(paths);
  REQUIRE(arr->rejected().size() == 1);
  // Its superblock names this array: no --force needed.
  ProgressLog log;
  log.attach(*arr);
  require_ok(add_and_wait(*arr, paths[size_t(bad)]));
  log.check_complete(arr->shape().dev_sectors * kSectorBytes);
  CHECK(arr->slot_of(paths[size_t(bad)]) == bad);
  CHECK(check_ok(*arr, false) == 0);
  arr.reset();
  arr = assemble(paths);
  CHECK(arr->rejected().empty());
  CHECK(arr->working_members() == cfg.disks);
  check_reads_back(*arr, model);
}

TEST_CASE("an interrupted rebuild is recorded and resumes where it stopped", "[raid][manage][rebuild]") {
  const Config cfg = GENERATE(from_range(all_configs()));
  INFO(cfg.name);
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  auto arr = create_array(cfg, paths);
  std::mt19937_64 rng(23);
  auto model = fill_array(*arr, rng);
  const int bad = 0;
  require_ok(arr->fail_member(bad, "test"));
  const std::string fresh = dir.file("fresh.img");
  const uint64_t total = arr->shape().dev_sectors * kSectorBytes;

  // Cancel the rebuild about half way, at a piece boundary.
  uint64_t stopped_at = 0;
  Array* a = arr.get();
  arr->set_piece_hook([&](const std::string& kind, uint64_t done) {
    if (kind != "rebuild" || stopped_at || done < total / 2) return;
    stopped_at = done;
    for (auto& t : a->running_tasks()) t.task->cancel();
  });
  {
    AddOptions o;
    o.create_files_bytes = kMemberBytes;
    auto task = arr->start_add(fresh, o);
    REQUIRE(task.ok());
    const Status s = (*task)->wait();
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().code == Errc::cancelled);
  }
  arr->set_piece_hook(nullptr);
  REQUIRE(stopped_at > 0);
  REQUIRE(stopped_at < total);
  CHECK(state(*arr, bad) == MemberState::recovering);
  CHECK(arr->runtime(bad).recovery_offset.load() * kSectorBytes == stopped_at);
  CHECK(arr->state_text().find("recovering") != std::string::npos);
  // Reads are still right (the rebuilt part of the new member may serve them).
  check_reads_back(*arr, model);

  // The stop records how far the rebuild got.
  paths[size_t(bad)] = fresh;
  arr.reset();
  arr = assemble(paths);
  REQUIRE(arr->slot_of(fresh) == bad);
  CHECK(state(*arr, bad) == MemberState::recovering);
  CHECK(arr->runtime(bad).recovery_offset.load() * kSectorBytes == stopped_at);
  CHECK(arr->working_members() == cfg.disks - 1);
  check_reads_back(*arr, model);

  // Adding it again resumes from there, not from the start.
  ProgressLog log;
  log.attach(*arr);
  require_ok(add_and_wait(*arr, fresh));
  log.check_complete(total, stopped_at);
  CHECK(state(*arr, bad) == MemberState::in_sync);
  CHECK(check_ok(*arr, false) == 0);
  arr.reset();
  arr = assemble(paths);
  CHECK(arr->working_members() == cfg.disks);
  CHECK(arr->state_text() == "clean");
  check_reads_back(*arr, model);
}

// Was BUG-REBUILD-RACE: the rebuild read a piece from an in-sync copy and
// then wrote it to the new member with no barrier against array writes, so a
// write landing in between was overwritten with older bytes (check found
// mismatches). Now writes and the copy meet at a resync barrier, as in md.
// The writer works just ahead of the rebuild, where the next piece is copied.
TEST_CASE("writes that run during a rebuild reach the rebuilt member", "[raid][manage][rebuild]") {
  const Config cfg = all_configs()[0];
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  auto arr = create_array(cfg, paths);
  require_ok(arr->fail_member(1, "test"));

  std::atomic<uint64_t> rebuilt{0};
  std::atomic<bool> started{false}, finished{false};
  std::string writer_error;
  uint64_t writes = 0;
  std::thread writer([&] {
    while (!started.load()) std::this_thread::yield();
    try {
      TestPort be(*arr);
      Pipeline p(be, 1, 4096);
      std::mt19937_64 rng(51);
      std::vector<uint8_t> block(4096);
      while (!finished.load()) {
        const uint64_t off = (rebuilt.load() + (rng() % 256) * 4096) % arr->size_bytes();
        fill_random(rng, block.data(), block.size());
        if (p.run({{true, off, 4096, block.data(), 0}})[0] != 4096) throw std::runtime_error("write failed");
        ++writes;
      }
    } catch (const std::exception& e) {
      writer_error = e.what();
    }
  });
  arr->set_piece_hook([&](const std::string&, uint64_t done) {
    rebuilt = done;
    started = true;
    // Give the writer time on the next piece.
    std::this_thread::sleep_for(std::chrono::milliseconds(3));
  });
  const Status added = add_and_wait(*arr, dir.file("fresh.img"), kMemberBytes);
  finished = true;
  started = true;
  writer.join();
  arr->set_piece_hook(nullptr);
  INFO(writer_error);
  require_ok(added);
  REQUIRE(writer_error.empty());
  REQUIRE(writes > 0);
  CHECK(check_ok(*arr, false) == 0);
}

// Was BUG-STALE-BACKEND: a backend kept the MemberDevice pointers (and
// io_uring's registered files) of the moment it was made, so after
// add_member replaced a failed slot's device, a backend made before (a
// benchmark job running across a rebuild) wrote the rebuilt role's copies
// into the old file and read the freed MemberDevice. Now the array counts
// member replacements and a backend brings its table up to date at its next
// submit(); replaced devices stay open until the array goes.
TEST_CASE("a backend made before add_member writes to the new member", "[raid][manage][stale-backend]") {
  const Config cfg = all_configs()[0];
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  auto arr = create_array(cfg, paths);
  std::optional<TestPort> be(std::in_place, *arr);
  require_ok(arr->fail_member(1, "test"));
  require_ok(add_and_wait(*arr, dir.file("fresh.img"), kMemberBytes));
  std::vector<uint8_t> data(kChunkBytes, 0x77);
  REQUIRE(submit_rw(*be, true, 0, data.data(), kChunkBytes) == int(kChunkBytes));
  be.reset();
  CHECK(check_ok(*arr, false) == 0);
}

TEST_CASE("add_member refuses targets it would destroy or that cannot hold a member", "[raid][manage]") {
  const Config cfg = all_configs()[0];
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  auto arr = create_array(cfg, paths);
  require_ok(arr->fail_member(1, "test"));

  // A member of another array is only taken with force.
  auto other_paths = member_paths(dir, 2, "other");
  std::string other_uuid;
  {
    auto other = create_array(cfg, other_paths);
    other_uuid = ondisk::uuid_to_string(other->superblock().set_uuid);
  }
  const Status other_member = add_and_wait(*arr, other_paths[0]);
  REQUIRE_FALSE(other_member.ok());
  // The engine marks the refusal as one a front end may override (the CLI offers --force).
  CHECK(other_member.error().consent == Consent::overwrite);
  CHECK(other_member.error().message.find("another array") != std::string::npos);
  CHECK(state(*arr, 1) == MemberState::faulty);
  {
    // Untouched: it still assembles as the other array.
    auto other = assemble(other_paths);
    CHECK(ondisk::uuid_to_string(other->superblock().set_uuid) == other_uuid);
  }

  // A file created too small is refused and not left behind.
  const std::string small = dir.file("small.img");
  const Status too_small = add_and_wait(*arr, small, 2 << 20);
  REQUIRE_FALSE(too_small.ok());
  CHECK(too_small.error().message.find("too small") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(small));
  CHECK(state(*arr, 1) == MemberState::faulty);

  // With force, the other array's member is taken and rebuilt.
  require_ok(add_and_wait(*arr, other_paths[0], 0, true));
  CHECK(state(*arr, 1) == MemberState::in_sync);
  CHECK(check_ok(*arr, false) == 0);
}

// The recovery_offset in the superblock of the member file at `path`, in
// bytes (0 when the file has no valid superblock yet). A read-only open
// takes no lock, so this works while the array holds the file.
static uint64_t recorded_recovery_bytes(const std::string& path) {
  std::string err;
  auto dev = rs::test::or_empty(io::MemberDevice::open(path, io::OpenMode::ReadOnly), &err);
  if (!dev) return 0;
  const auto r = read_superblock(*dev);
  return r ? r->recovery_offset * kSectorBytes : 0;
}

// md keeps recovery_offset in the recovering member's superblock so an
// interrupted rebuild resumes. Here the rebuild stops past its first 64 MiB
// checkpoint, once as a crash (the member files copied at that moment, the
// rebuild paused: only a checkpoint is on disk) and once as a cancel (the
// array records exactly how far it got). An assemble for `add` takes the
// member back as recovering and the rebuild goes on from there, not from 0.
//
// The checkpoint is written by the metadata thread, as md's is by its own
// thread: it records how far the rebuild had got when that thread ran, at
// least 64 MiB and at most where the rebuild stopped (a TSan build once
// recorded 65 MiB). So the crash copy waits until a checkpoint is on disk
// and the resume is checked against what that copy holds.
TEST_CASE("an interrupted rebuild resumes from where it was recorded", "[raid][manage][rebuild][resume]") {
  const Config cfg = all_configs()[0];
  constexpr uint64_t kCheckpoint = 64ull << 20;  // md's and ours: every 64 MiB rebuilt
  constexpr uint64_t kBig = 80ull << 20;         // more than one checkpoint of data
  constexpr uint64_t kStopAfter = 66ull << 20;   // the rebuild is stopped just past this
  constexpr uint64_t kDataAt = 70ull << 20;      // data the rebuild had not reached yet
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  paths.push_back(dir.file("fresh.img"));  // the new member, last
  auto crash = member_paths(dir, cfg.disks + 1, "crash");
  std::mt19937_64 rng(91);
  const auto model = random_bytes(rng, 1 << 20);
  uint64_t stopped_at = 0;
  {
    auto arr = create_array(cfg, {paths[0], paths[1]}, kBig);
    require_ok(array_write(*arr, kDataAt, model.data(), model.size()));
    require_ok(arr->fail_member(1, "test"));
    Array* a = arr.get();
    arr->set_piece_hook([&](const std::string& kind, uint64_t done) {
      if (kind != "rebuild" || stopped_at || done <= kStopAfter) return;
      stopped_at = done;
      const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
      while (recorded_recovery_bytes(paths[2]) < kCheckpoint && std::chrono::steady_clock::now() < give_up)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      for (size_t i = 0; i < paths.size(); ++i) std::filesystem::copy_file(paths[i], crash[i]);
      for (auto& t : a->running_tasks()) t.task->cancel();
    });
    AddOptions o;
    o.create_files_bytes = kBig;
    const Status s = add_member(*arr, paths[2], o);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().code == Errc::cancelled);
  }
  REQUIRE(stopped_at > kStopAfter);
  const uint64_t checkpointed = recorded_recovery_bytes(crash[2]);
  CHECK(checkpointed >= kCheckpoint);
  CHECK(checkpointed <= stopped_at);
  CHECK(recorded_recovery_bytes(paths[2]) == stopped_at);  // the cancel records exactly
  for (bool crashed : {true, false}) {
    INFO((crashed ? "after a crash" : "after a cancel"));
    const auto& files = crashed ? crash : paths;
    const uint64_t expect = crashed ? checkpointed : stopped_at;
    AssembleOptions o;
    o.resume_members = {files[2]};
    o.resync = false;  // started below, once the hook is set (a task reads it)
    auto arr = assemble({files[0]}, o);
    REQUIRE(arr->slot_of(files[2]) == 1);
    CHECK(state(*arr, 1) == MemberState::recovering);
    CHECK(arr->runtime(1).recovery_offset.load() * kSectorBytes == expect);
    uint64_t first = 0;
    arr->set_piece_hook([&](const std::string& kind, uint64_t done) {
      if (kind == "rebuild" && !first) first = done;  // (a crash also left a resync to do)
    });
    arr->start_resync();
    require_ok(add_member(*arr, files[2]));
    CHECK(first > expect);
    CHECK(first <= expect + (1 << 20));
    CHECK(state(*arr, 1) == MemberState::in_sync);
    CHECK(check_ok(*arr, false) == 0);
    // The data past the stop was rebuilt too: read it from the new member alone.
    require_ok(arr->fail_member(0, "test"));
    std::vector<uint8_t> back(model.size());
    require_ok(array_read(*arr, kDataAt, back.data(), back.size()));
    CHECK(back == model);
  }
}

TEST_CASE("add starts over when the member cannot resume", "[raid][manage][resume]") {
  const Config cfg = all_configs()[0];
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  auto arr = create_array(cfg, paths);
  require_ok(arr->fail_member(1, "test"));
  arr.reset();
  std::vector<std::string> others = paths;
  others.erase(others.begin() + 1);
  // A failed member (its role is faulty in the others' superblocks) and a
  // file that is no member at all are both left out: the array is the others.
  for (const std::string& target : {paths[1], dir.file("absent.img")}) {
    INFO(target);
    AssembleOptions o;
    o.resume_members = {target};
    auto a = assemble(others, o);
    CHECK(a->slot_of(target) < 0);
    CHECK(state(*a, 1) != MemberState::recovering);
    CHECK(a->rejected().empty());
  }
}
