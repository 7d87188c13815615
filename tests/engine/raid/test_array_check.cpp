// check/repair (md's mismatch_cnt and repair) and the unclean-shutdown
// resync that rests on it.
#include <atomic>
#include <filesystem>
#include <thread>

#include "raid_test_util.hpp"

using namespace rs;
using namespace rs::raid;
using namespace rs::raid::test;

namespace {

constexpr uint32_t kFillIoBytes = 128 * 1024;

// 4 KiB blocks of `member` that hold data of the region and are not the
// first copy of it: check/repair takes the first copy as the good one.
struct Block {
  uint64_t dev_sector;
  uint64_t array_sector;
};
std::vector<Block> corruptible_blocks(const Shape& shape, int member, size_t want) {
  auto map = mirror::CopyMap::make(shape);
  REQUIRE(map.ok());
  std::vector<Block> out;
  std::vector<layout::DevAddress> addr(size_t(map->copies()));
  for (uint64_t dev = 8; dev < shape.dev_sectors && out.size() < want; dev += 8 * 29) {
    const uint64_t a = map->find_virt(member, dev);
    if (a >= kRegionBytes / kSectorBytes) continue;
    map->map(a, addr.data());
    if (addr[0].disk == member) continue;
    out.push_back({dev, a});
  }
  return out;
}

std::vector<uint8_t> read_array(Array& arr, uint64_t off, size_t len) {
  std::vector<uint8_t> v(len);
  require_ok(array_read(arr, off, v.data(), len));
  return v;
}

AssembleOptions without_resync() {
  AssembleOptions o;
  o.resync = false;
  return o;
}

}  // namespace

TEST_CASE("check counts corrupted blocks, repair rewrites them from the first copy", "[raid][check]") {
  const Config cfg = GENERATE(from_range(all_configs()));
  INFO(cfg.name);
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  auto arr = create_array(cfg, paths);
  std::mt19937_64 rng(31);
  const auto model = fill_region(*arr, rng, kFillIoBytes);
  REQUIRE(check_ok(*arr, false) == 0);

  const int victim = 1;
  const auto blocks = corruptible_blocks(arr->shape(), victim, 3);
  REQUIRE(blocks.size() == 3);
  const uint64_t data_off = arr->shape().data_offset * kSectorBytes;
  for (const auto& b : blocks) {
    auto junk = random_bytes(rng, 4096);
    write_file_at(paths[size_t(victim)], data_off + b.dev_sector * kSectorBytes, junk.data(), junk.size());
  }
  // md counts 512-byte sectors per mismatching 4 KiB page: 8 per block.
  CHECK(check_ok(*arr, false) == 8 * blocks.size());
  CHECK(check_ok(*arr, false) == 8 * blocks.size());  // check alone changes nothing

  auto repair = arr->start_check(true);
  REQUIRE(repair.ok());
  require_ok((*repair)->wait());
  CHECK(arr->mismatch_cnt() == 8 * blocks.size());
  CHECK((*repair)->progress().done == arr->size_bytes());
  CHECK((*repair)->progress().total == arr->size_bytes());
  CHECK(check_ok(*arr, false) == 0);
  // Repaired from the good copy, on the member itself.
  for (const auto& b : blocks) {
    auto got = read_file_at(paths[size_t(victim)], data_off + b.dev_sector * kSectorBytes, 4096);
    CHECK(std::memcmp(got.data(), model.data() + b.array_sector * kSectorBytes, 4096) == 0);
  }
  CHECK(first_diff(read_array(*arr, 0, kRegionBytes), model) == -1);
  CHECK(arr->working_members() == cfg.disks);
}

TEST_CASE("an array not stopped cleanly needs a resync until repair", "[raid][check][resync]") {
  const Config cfg = GENERATE(from_range(all_configs()));
  INFO(cfg.name);
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  auto arr = create_array(cfg, paths);
  std::mt19937_64 rng(32);
  auto model = random_bytes(rng, 200000);
  require_ok(array_write(*arr, 5000, model.data(), model.size()));
  CHECK(arr->state_text() == "active");

  // A "crash": copy the members while the array runs. Their superblocks say
  // the array was active (resync_offset 0).
  auto copies = member_paths(dir, cfg.disks, "crash");
  for (int i = 0; i < cfg.disks; ++i) std::filesystem::copy_file(paths[size_t(i)], copies[size_t(i)]);
  const Shape geo = arr->shape();
  arr.reset();

  // One copy of one block missed the last write before the crash.
  const int victim = 1;
  const auto blocks = corruptible_blocks(geo, victim, 1);
  REQUIRE(blocks.size() == 1);
  const uint64_t block_off = blocks[0].array_sector * kSectorBytes;
  auto stale = random_bytes(rng, 4096);
  write_file_at(copies[size_t(victim)], (geo.data_offset + blocks[0].dev_sector) * kSectorBytes, stale.data(),
                4096);
  const auto first_copy = [&] {
    auto map = mirror::CopyMap::make(geo);
    std::vector<layout::DevAddress> addr(size_t(map->copies()));
    map->map(blocks[0].array_sector, addr.data());
    return read_file_at(copies[size_t(addr[0].disk)], (geo.data_offset + addr[0].sector) * kSectorBytes,
                        4096);
  }();

  // Without the automatic resync, so md's read rule can be watched.
  arr = assemble(copies, without_resync());
  CHECK(arr->resync_pending());
  CHECK(arr->state_text().find("resync") != std::string::npos);
  CHECK(arr->working_members() == cfg.disks);
  // Until the resync, reads go to the first copy so readers agree, whatever
  // the policy (btrfs's policies know no md resync; the array applies md's rule).
  for (const char* policy : {"md-legacy", "md-rr", "btrfs-pid", "btrfs-rr", "btrfs-qlen"}) {
    INFO(policy);
    set_policy(*arr, policy);
    for (int i = 0; i < 4; ++i) CHECK(first_diff(read_array(*arr, block_off, 4096), first_copy) == -1);
    // Reads that these policies would otherwise spread: btrfs-rr moving on
    // every request, btrfs-pid choosing by an odd job id.
    require_ok(arr->tunables().set("min_contig_read", "0"));
    TestPort be(*arr);
    Pipeline p(be, 1, 4096);
    std::vector<uint8_t> got(4096);
    for (uint32_t job = 0; job < 4; ++job) {
      REQUIRE(p.run({{false, block_off, 4096, got.data(), job}})[0] == 4096);
      CHECK(first_diff(got, first_copy) == -1);
    }
  }
  set_policy(*arr, "md-legacy");

  CHECK(check_ok(*arr, false) == 8);
  CHECK(arr->resync_pending());  // a check is not a resync
  CHECK(check_ok(*arr, true) == 8);
  CHECK_FALSE(arr->resync_pending());
  CHECK(arr->state_text().find("resync") == std::string::npos);
  CHECK(check_ok(*arr, false) == 0);

  arr.reset();
  arr = assemble(copies);
  CHECK_FALSE(arr->resync_pending());
  CHECK(arr->state_text() == "clean");
  CHECK(check_ok(*arr, false) == 0);
  // The originals were stopped cleanly.
  arr.reset();
  arr = assemble(paths);
  CHECK_FALSE(arr->resync_pending());
  CHECK(arr->state_text() == "clean");
  CHECK(first_diff(read_array(*arr, 5000, model.size()), model) == -1);
}

TEST_CASE("a repair on an array in use keeps it marked active until the stop", "[raid][check][resync]") {
  const Config cfg = all_configs()[0];
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  auto arr = create_array(cfg, paths);
  const char data[] = "written before the crash";
  require_ok(array_write(*arr, 0, data, sizeof data));
  auto copies = member_paths(dir, cfg.disks, "crash");
  for (int i = 0; i < cfg.disks; ++i) std::filesystem::copy_file(paths[size_t(i)], copies[size_t(i)]);
  arr.reset();

  arr = assemble(copies, without_resync());
  REQUIRE(arr->resync_pending());
  // A write after assemble marks the array active again; the repair clears
  // the resync but a crash now must still be detected.
  require_ok(array_write(*arr, 8192, data, sizeof data));
  REQUIRE(check_ok(*arr, true) == 0);
  CHECK_FALSE(arr->resync_pending());
  auto crash2 = member_paths(dir, cfg.disks, "crash2-");
  for (int i = 0; i < cfg.disks; ++i) std::filesystem::copy_file(copies[size_t(i)], crash2[size_t(i)]);
  {
    auto again = assemble(crash2, without_resync());
    CHECK(again->resync_pending());
  }
  arr.reset();
  arr = assemble(copies);
  CHECK_FALSE(arr->resync_pending());
}

// Members that are not new files may hold anything: create runs md's initial
// resync so every copy matches the first before the array is handed out.
TEST_CASE("create on existing files makes the copies agree first", "[raid][check][resync]") {
  const Config cfg = GENERATE(from_range(all_configs()));
  INFO(cfg.name);
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  std::mt19937_64 rng(33);
  for (const auto& p : paths) {
    int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(::ftruncate(fd, off_t(kMemberBytes)) == 0);
    ::close(fd);
    // Different bytes on every member where data will live.
    auto junk = random_bytes(rng, 256 * 1024);
    write_file_at(p, (1u << 20) + 64 * 1024, junk.data(), junk.size());
  }
  CreateOptions o;
  o.level = cfg.level;
  o.raid_disks = cfg.disks;
  if (levels::builtin().find(cfg.level)->chunked) o.chunk_bytes = kChunkBytes;
  if (cfg.level == 10) o.layout = *layout::parse_raid10_layout(cfg.layout, cfg.disks);
  auto made = Array::create(levels::builtin(), o, paths);
  INFO((made ? std::string() : made.error().message));
  REQUIRE(made.ok());
  auto arr = std::move(*made);
  auto resync = arr->resync_task();
  REQUIRE(resync != nullptr);  // md's initial resync, as a task
  require_ok(resync->wait());
  CHECK(resync->progress().done == arr->size_bytes());  // it ran over everything
  CHECK_FALSE(arr->resync_pending());
  CHECK(check_ok(*arr, false) == 0);
  arr.reset();
  arr = assemble(paths);
  CHECK_FALSE(arr->resync_pending());
  CHECK(arr->state_text() == "clean");
  CHECK(check_ok(*arr, false) == 0);
}

// check and repair hold writes at the resync barrier, as md does: without
// it a write landing between the reads of two copies is counted as a
// mismatch, and repair can write an older copy over a newer one.
TEST_CASE("check and repair while writes run find and leave no mismatch", "[raid][check][barrier]") {
  for (const Config& cfg : {all_configs()[0], all_configs()[1]}) {
    INFO(cfg.name);
    TempDir dir;
    auto paths = member_paths(dir, cfg.disks);
    auto arr = create_array(cfg, paths);
    std::atomic<bool> stop{false}, writer_done{false};
    std::string writer_error;
    std::atomic<uint64_t> writes{0};
    std::thread writer([&] {
      try {
        TestPort be(*arr);
        Pipeline p(be, 4, 4096);
        std::mt19937_64 rng(77);
        std::vector<std::vector<uint8_t>> blocks(4, std::vector<uint8_t>(4096));
        const uint64_t blocks_in_array = arr->size_bytes() / 4096;
        while (!stop.load()) {
          std::vector<Request> reqs;
          for (auto& b : blocks) {
            fill_random(rng, b.data(), b.size());
            reqs.push_back({true, (rng() % blocks_in_array) * 4096, 4096, b.data(), 0});
          }
          for (int r : p.run(reqs))
            if (r != 4096) throw std::runtime_error("write failed: " + std::to_string(r));
          writes += reqs.size();
        }
      } catch (const std::exception& e) {
        writer_error = e.what();
      }
      writer_done = true;
    });
    // The checks must overlap the writes: start them once the writer runs.
    while (writes.load() == 0 && !writer_done.load()) std::this_thread::yield();
    uint64_t seen = 0;
    for (int round = 0; round < 3; ++round) seen += check_ok(*arr, false);
    check_ok(*arr, true);
    stop = true;
    writer.join();
    INFO(writer_error);
    REQUIRE(writer_error.empty());
    CHECK(writes > 0);
    CHECK(seen == 0);
    CHECK(check_ok(*arr, false) == 0);
  }
}

// Issue 15, defect 1: at 75311b5 the first write after assembling a dirty
// array marked it active and close() then marked it clean, so the resync
// mark was lost while the copies still differed (check found them, md never
// would have resynced). close() now records md's resync point, and an
// assemble starts the resync, which copies the first copy over the others.
TEST_CASE("a dirty array stays marked until resynced; the resync makes the copies agree", "[raid][resync]") {
  const Config cfg = GENERATE(from_range(all_configs()));
  INFO(cfg.name);
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  auto arr = create_array(cfg, paths);
  std::mt19937_64 rng(34);
  const auto model = fill_region(*arr, rng, kFillIoBytes);
  auto crashed = member_paths(dir, cfg.disks, "crash");
  for (int i = 0; i < cfg.disks; ++i) std::filesystem::copy_file(paths[size_t(i)], crashed[size_t(i)]);
  const Shape shape = arr->shape();
  arr.reset();
  const auto blocks = corruptible_blocks(shape, 1, 1);
  REQUIRE(blocks.size() == 1);
  auto stale = random_bytes(rng, 4096);
  write_file_at(crashed[1], (shape.data_offset + blocks[0].dev_sector) * kSectorBytes, stale.data(), 4096);

  SECTION("a write and a stop before the resync keep the mark") {
    arr = assemble(crashed, without_resync());
    const char data[] = "z";
    require_ok(array_write(*arr, 0, data, 1));
    require_ok(arr->close());
    arr.reset();
    arr = assemble(crashed, without_resync());
    CHECK(arr->resync_pending());
    CHECK(arr->state_text().find("resync") != std::string::npos);
    CHECK(check_ok(*arr, false) == 8);  // the copies still differ, as the mark says
  }
  SECTION("the automatic resync copies the first copy over the others") {
    arr = assemble(crashed);
    auto resync = arr->resync_task();
    REQUIRE(resync != nullptr);
    require_ok(resync->wait());
    CHECK_FALSE(arr->resync_pending());
    CHECK(check_ok(*arr, false) == 0);
    CHECK(first_diff(read_array(*arr, 0, kRegionBytes), model) == -1);  // md keeps the first copy
    require_ok(arr->close());
    arr.reset();
    arr = assemble(crashed);
    CHECK_FALSE(arr->resync_pending());
    CHECK(arr->state_text() == "clean");
  }
}

TEST_CASE("a cancelled resync resumes where it stopped", "[raid][resync]") {
  const Config cfg = all_configs()[0];
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  {
    auto arr = create_array(cfg, paths, 64ull << 20);
    std::mt19937_64 rng(35);
    fill_region(*arr, rng, kFillIoBytes);
  }
  // Mark it as not cleanly stopped, as a crash after the first write leaves it.
  std::vector<std::string> crashed;
  {
    auto arr = assemble(paths, without_resync());
    const char data[] = "x";
    require_ok(array_write(*arr, 0, data, 1));
    crashed = member_paths(dir, cfg.disks, "c");
    for (int i = 0; i < cfg.disks; ++i) std::filesystem::copy_file(paths[size_t(i)], crashed[size_t(i)]);
  }
  // The resync starts at assemble, so a fast one can finish before the
  // cancel arrives: then try again from a fresh copy of the crashed members
  // (the test must see a cancel land, not pass without one).
  bool cancelled = false;
  for (int attempt = 0; attempt < 5 && !cancelled; ++attempt) {
    auto files = member_paths(dir, cfg.disks, "try" + std::to_string(attempt) + "-");
    for (int i = 0; i < cfg.disks; ++i) std::filesystem::copy_file(crashed[size_t(i)], files[size_t(i)]);
    auto arr = assemble(files);
    auto resync = arr->resync_task();
    REQUIRE(resync != nullptr);
    while (resync->progress().done == 0 && !resync->finished()) std::this_thread::yield();
    resync->cancel();
    const Status s = resync->wait();
    if (s.ok()) continue;  // finished first
    cancelled = true;
    CHECK(s.error().code == Errc::cancelled);
    const uint64_t point = arr->resync_point();
    CHECK(point > 0);
    CHECK(point < arr->size_bytes() / kSectorBytes);
    require_ok(arr->close());
    arr.reset();
    arr = assemble(files, without_resync());
    CHECK(arr->resync_point() == point);  // recorded at the clean stop, as md's resync_offset
  }
  INFO("the resync finished before the cancel arrived in 5 tries");
  CHECK(cancelled);
}

TEST_CASE("a mirror with a member missing and its resync unfinished starts and resyncs as md's does",
          "[raid][check][resync]") {
  // md refuses only RAID5/6 dirty and degraded: a mirror's copy alone is the
  // data (no parity to rebuild a missing member from), so raid1/raid10 start
  // and resync the copies that are there.
  const Config cfg = GENERATE(Config{"raid1 x3", 1, 3, ""}, Config{"raid10 n2 x4", 10, 4, "n2"});
  INFO(cfg.name);
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  std::mt19937_64 rng(34);
  const auto model = fill_region(*create_array(cfg, paths), rng, kFillIoBytes);
  for (const auto& p : paths)
    require_ok(edit_superblock(p, [](ondisk::Superblock& sb) { sb.resync_offset = 0; }));
  const std::vector<std::string> some(paths.begin() + 1, paths.end());  // role 0 missing
  AssembleOptions o;
  o.run = true;
  auto arr = assemble(some, o);
  REQUIRE(arr->degraded());
  REQUIRE(arr->resync_task());
  require_ok(arr->resync_task()->wait());
  CHECK_FALSE(arr->resync_pending());
  CHECK(check_ok(*arr, false) == 0);
  CHECK(first_diff(read_array(*arr, 0, kRegionBytes), model) == -1);
}
