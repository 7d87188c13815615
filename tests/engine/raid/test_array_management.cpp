// fail_member's last-copy guard, and add_member's rebuild (fresh file,
// re-added former member, interrupted and resumed rebuild).
#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "ondisk/superblock.hpp"
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
  auto be = arr.make_backend(8);
  Pipeline p(arr, *be, 8, kIo);
  std::vector<Request> reqs;
  for (uint64_t off = 0; off < model.size(); off += kIo)
    reqs.push_back({true, off, uint32_t(std::min<uint64_t>(kIo, model.size() - off)), model.data() + off, 0});
  for (int r : p.run(reqs)) REQUIRE(r > 0);
  return model;
}

void check_reads_back(Array& arr, const std::vector<uint8_t>& model) {
  std::vector<uint8_t> back(model.size());
  std::string error;
  REQUIRE(arr.read(0, back.data(), back.size(), &error));
  REQUIRE(first_diff(back, model) == -1);
}

// Records what a rebuild reports and checks it only moves forward.
struct ProgressLog {
  std::vector<Progress> calls;
  ProgressFn fn() {
    return [this](const Progress& p) { calls.push_back(p); };
  }
  void check_complete(uint64_t total, uint64_t started_at = 0) const {
    REQUIRE_FALSE(calls.empty());
    uint64_t last = started_at;
    for (const auto& p : calls) {
      CHECK(p.total_bytes == total);
      CHECK(p.done_bytes > last);
      last = p.done_bytes;
    }
    CHECK(calls.back().done_bytes == total);
  }
};

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
    std::string error;
    const bool ok = arr->fail_member(step.slot, "by the test", &error);
    REQUIRE(ok == step.allowed);
    if (ok) {
      failed[size_t(step.slot)] = true;
      CHECK(arr->slot(step.slot).st() == SlotState::Faulty);
      CHECK(arr->slot(step.slot).note == "by the test");
      CHECK(arr->working_members() == working - 1);
      CHECK(arr->superblock().events > events);  // recorded in the others' superblocks
      // Failing it again changes nothing and is not an error.
      CHECK(arr->fail_member(step.slot, "again", &error));
      CHECK(arr->slot(step.slot).note == "by the test");
    } else {
      CHECK(error.find("last working copy") != std::string::npos);
      CHECK(error.find(paths[size_t(step.slot)]) != std::string::npos);
      // Nothing moved: state, note, counts, metadata.
      CHECK(arr->slot(step.slot).st() == SlotState::InSync);
      CHECK(arr->slot(step.slot).note.empty());
      CHECK(arr->working_members() == working);
      CHECK(arr->superblock().events == events);
    }
  }
  // The superblocks agree with what happened.
  arr.reset();
  arr = assemble(paths);
  for (int i = 0; i < fc.cfg.disks; ++i) {
    INFO("member " << i);
    CHECK(arr->slot(i).st() == (failed[size_t(i)] ? SlotState::Missing : SlotState::InSync));
  }
  CHECK(arr->rejected().size() == size_t(std::count(failed.begin(), failed.end(), true)));
  // A role nobody holds cannot be failed.
  std::string error;
  CHECK_FALSE(arr->fail_member(0, "x", &error));
  CHECK(error.find("no member") != std::string::npos);
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
  std::string error;
  REQUIRE(arr->fail_member(bad, "test", &error));
  // Data written while degraded must reach the new member too.
  auto late = random_bytes(rng, 300000);
  REQUIRE(arr->write(777777, late.data(), late.size(), &error));
  std::memcpy(model.data() + 777777, late.data(), late.size());

  // A file that does not exist needs create_bytes.
  const std::string fresh = dir.file("fresh.img");
  CHECK_FALSE(arr->add_member(fresh, false, 0, nullptr, &error));
  CHECK(error.find("does not exist") != std::string::npos);
  // Nor may an active member be added again.
  CHECK_FALSE(arr->add_member(paths[0], false, 0, nullptr, &error));

  ProgressLog log;
  INFO(error);
  REQUIRE(arr->add_member(fresh, false, kMemberBytes, log.fn(), &error));
  log.check_complete(arr->geometry().dev_sectors * kSectorBytes);
  CHECK(arr->slot_of(fresh) == bad);
  CHECK(arr->slot(bad).st() == SlotState::InSync);
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
  CHECK_FALSE(arr->add_member(dir.file("spare.img"), false, kMemberBytes, nullptr, &error));
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
  std::string error;
  REQUIRE(arr->fail_member(bad, "test", &error));
  // Its copy goes stale while it is out.
  auto late = random_bytes(rng, 123456);
  REQUIRE(arr->write(4242, late.data(), late.size(), &error));
  std::memcpy(model.data() + 4242, late.data(), late.size());
  arr.reset();
  arr = assemble(paths);
  REQUIRE(arr->rejected().size() == 1);
  // Its superblock names this array: no --force needed.
  ProgressLog log;
  INFO(error);
  REQUIRE(arr->add_member(paths[size_t(bad)], false, 0, log.fn(), &error));
  log.check_complete(arr->geometry().dev_sectors * kSectorBytes);
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
  std::string error;
  REQUIRE(arr->fail_member(bad, "test", &error));
  const std::string fresh = dir.file("fresh.img");
  const uint64_t total = arr->geometry().dev_sectors * kSectorBytes;

  // Stop the rebuild about half way, the way a crash or a cancel would:
  // from inside the rebuild loop.
  struct Interrupted {};
  uint64_t stopped_at = 0;
  try {
    arr->add_member(
        fresh, false, kMemberBytes,
        [&](const Progress& p) {
          if (p.done_bytes >= total / 2) {
            stopped_at = p.done_bytes;
            throw Interrupted{};
          }
        },
        &error);
    FAIL("the rebuild was not interrupted");
  } catch (const Interrupted&) {
  }
  REQUIRE(stopped_at > 0);
  REQUIRE(stopped_at < total);
  CHECK(arr->slot(bad).st() == SlotState::Recovering);
  CHECK(arr->slot(bad).recovery_offset.load() * kSectorBytes == stopped_at);
  CHECK(arr->state_text().find("recovering") != std::string::npos);
  // Reads are still right (the rebuilt part of the new member may serve them).
  check_reads_back(*arr, model);

  // The stop records how far the rebuild got.
  paths[size_t(bad)] = fresh;
  arr.reset();
  arr = assemble(paths);
  REQUIRE(arr->slot_of(fresh) == bad);
  CHECK(arr->slot(bad).st() == SlotState::Recovering);
  CHECK(arr->slot(bad).recovery_offset.load() * kSectorBytes == stopped_at);
  CHECK(arr->working_members() == cfg.disks - 1);
  check_reads_back(*arr, model);

  // Adding it again resumes from there, not from the start.
  ProgressLog log;
  INFO(error);
  REQUIRE(arr->add_member(fresh, false, 0, log.fn(), &error));
  log.check_complete(total, stopped_at);
  CHECK(arr->slot(bad).st() == SlotState::InSync);
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
  std::string error;
  REQUIRE(arr->fail_member(1, "test", &error));

  std::atomic<uint64_t> rebuilt{0};
  std::atomic<bool> started{false}, finished{false};
  std::string writer_error;
  uint64_t writes = 0;
  std::thread writer([&] {
    while (!started.load()) std::this_thread::yield();
    try {
      // Made after the new member is in place (the first progress call).
      auto be = arr->make_backend(1);
      Pipeline p(*arr, *be, 1, 4096);
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
  const bool added = arr->add_member(
      dir.file("fresh.img"), false, kMemberBytes,
      [&](const Progress& p) {
        rebuilt = p.done_bytes;
        started = true;
        // Give the writer time on the next piece.
        std::this_thread::sleep_for(std::chrono::milliseconds(3));
      },
      &error);
  finished = true;
  started = true;
  writer.join();
  INFO(error << writer_error);
  REQUIRE(added);
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
  auto be = arr->make_backend(8);
  std::string error;
  REQUIRE(arr->fail_member(1, "test", &error));
  REQUIRE(arr->add_member(dir.file("fresh.img"), false, kMemberBytes, nullptr, &error));
  std::vector<uint8_t> data(kChunkBytes, 0x77);
  REQUIRE(submit_rw(*arr, *be, true, 0, data.data(), kChunkBytes) == int(kChunkBytes));
  be.reset();
  CHECK(check_ok(*arr, false) == 0);
}

TEST_CASE("add_member refuses targets it would destroy or that cannot hold a member", "[raid][manage]") {
  const Config cfg = all_configs()[0];
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  auto arr = create_array(cfg, paths);
  std::string error;
  REQUIRE(arr->fail_member(1, "test", &error));

  // A member of another array is only taken with force.
  auto other_paths = member_paths(dir, 2, "other");
  std::string other_uuid;
  {
    auto other = create_array(cfg, other_paths);
    other_uuid = ondisk::uuid_to_string(other->superblock().set_uuid);
  }
  CHECK_FALSE(arr->add_member(other_paths[0], false, 0, nullptr, &error));
  CHECK(error.find("--force") != std::string::npos);
  CHECK(arr->slot(1).st() == SlotState::Faulty);
  {
    // Untouched: it still assembles as the other array.
    auto other = assemble(other_paths);
    CHECK(ondisk::uuid_to_string(other->superblock().set_uuid) == other_uuid);
  }

  // A file created too small is refused and not left behind.
  const std::string small = dir.file("small.img");
  CHECK_FALSE(arr->add_member(small, false, 2 << 20, nullptr, &error));
  CHECK(error.find("too small") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(small));
  CHECK(arr->slot(1).st() == SlotState::Faulty);

  // With force, the other array's member is taken and rebuilt.
  INFO(error);
  REQUIRE(arr->add_member(other_paths[0], true, 0, nullptr, &error));
  CHECK(arr->slot(1).st() == SlotState::InSync);
  CHECK(check_ok(*arr, false) == 0);
}

// md keeps recovery_offset in the recovering member's superblock so an
// interrupted rebuild resumes. Here the rebuild stops past its first 64 MiB
// checkpoint (the progress callback throws), once as a crash (the member
// files copied at that moment: only the checkpoint is on disk) and once as a
// clean stop (the array records exactly how far it got). A new assemble for
// `add` takes the member back as recovering and the rebuild goes on from
// there, not from 0.
TEST_CASE("an interrupted rebuild resumes from where it was recorded", "[raid][manage][rebuild][resume]") {
  const Config cfg = all_configs()[0];
  constexpr uint64_t kBig = 80ull << 20;        // more than one checkpoint (64 MiB) of data
  constexpr uint64_t kStopAfter = 66ull << 20;  // the rebuild is stopped just past this
  constexpr uint64_t kDataAt = 70ull << 20;     // data the rebuild had not reached yet
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  paths.push_back(dir.file("fresh.img"));  // the new member, last
  auto crash = member_paths(dir, cfg.disks + 1, "crash");
  std::mt19937_64 rng(91);
  const auto model = random_bytes(rng, 1 << 20);
  uint64_t stopped_at = 0;
  {
    auto arr = create_array(cfg, {paths[0], paths[1]}, kBig);
    std::string error;
    REQUIRE(arr->write(kDataAt, model.data(), model.size(), &error));
    REQUIRE(arr->fail_member(1, "test", &error));
    struct Stop {};
    CHECK_THROWS_AS(arr->add_member(
                        paths[2], false, kBig,
                        [&](const Progress& p) {
                          if (p.done_bytes <= kStopAfter) return;
                          stopped_at = p.done_bytes;
                          for (size_t i = 0; i < paths.size(); ++i)
                            std::filesystem::copy_file(paths[i], crash[i]);
                          throw Stop{};
                        },
                        &error),
                    Stop);
  }
  REQUIRE(stopped_at > kStopAfter);
  for (bool crashed : {true, false}) {
    INFO((crashed ? "after a crash" : "after a clean stop"));
    const auto& files = crashed ? crash : paths;
    const uint64_t expect = crashed ? (64ull << 20) : stopped_at;
    std::string error;
    auto arr = Array::assemble_for_add({files[0]}, files[2], &error);
    INFO(error);
    REQUIRE(arr);
    REQUIRE(arr->slot_of(files[2]) == 1);
    CHECK(arr->slot(1).st() == SlotState::Recovering);
    CHECK(arr->slot(1).recovery_offset.load() * kSectorBytes == expect);
    uint64_t first = 0;
    REQUIRE(arr->add_member(
        files[2], false, 0,
        [&](const Progress& p) {
          if (!first) first = p.done_bytes;
        },
        &error));
    CHECK(first > expect);
    CHECK(first <= expect + (1 << 20));
    CHECK(arr->slot(1).st() == SlotState::InSync);
    CHECK(check_ok(*arr, false) == 0);
    // The data past the stop was rebuilt too: read it from the new member alone.
    REQUIRE(arr->fail_member(0, "test", &error));
    std::vector<uint8_t> back(model.size());
    REQUIRE(arr->read(kDataAt, back.data(), back.size(), &error));
    CHECK(back == model);
  }
}

TEST_CASE("assemble_for_add starts over when the member cannot resume", "[raid][manage][resume]") {
  const Config cfg = all_configs()[0];
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  auto arr = create_array(cfg, paths);
  std::string error;
  REQUIRE(arr->fail_member(1, "test", &error));
  arr.reset();
  std::vector<std::string> others = paths;
  others.erase(others.begin() + 1);
  // A failed member (its role is faulty in the others' superblocks) and a
  // file that is no member at all are both left out: the array is the others.
  for (const std::string& target : {paths[1], dir.file("absent.img")}) {
    INFO(target);
    auto a = Array::assemble_for_add(others, target, &error);
    INFO(error);
    REQUIRE(a);
    CHECK(a->slot_of(target) < 0);
    CHECK(a->slot(1).st() != SlotState::Recovering);
  }
}
