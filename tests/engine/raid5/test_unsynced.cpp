// RAID5 stripes never made to agree (an initial resync that did not finish,
// on members that held data before) and a member lost. md's rules
// (raid5.c): a write to a stripe past the resync point reconstructs parity
// from all the data (handle_stripe_dirtying forces rcw beyond recovery_cp),
// never read-modify-writes it (that keeps the stripe's garbage parity, so
// the written block is rebuilt wrong once its member is gone); a member
// failing does not end the resync as if it were done; and such an array
// started with a member missing ("dirty degraded") is refused unless forced.
#include <atomic>

#include "layout/raid5.hpp"
#include "raid5_test_util.hpp"

using namespace rs;
using namespace rs::raid5;
using namespace rs::raid5::test;

namespace {

// 5 members, left-symmetric (md's default): a one-block write costs rmw 2
// reads and rcw 3, so in a stripe in sync md read-modify-writes it.
constexpr Geometry kGeo{5, 2};
constexpr uint64_t kSyncedRows = 2;  // the resync got this far

// An array whose initial resync stopped after kSyncedRows stripes: the
// members' data past that holds what the disks held before (random bytes),
// and the superblocks record the resync point, as a clean stop in the middle
// of the resync does.
struct Unsynced {
  TempDir dir;
  std::vector<std::string> paths;
  raid::Shape shape;
  uint64_t row_sectors = 0;
  Unsynced() {
    paths = member_paths(dir, kGeo.disks);
    auto arr = create_raid5(kGeo, paths);
    shape = arr->shape();
    row_sectors = uint64_t(shape.chunk_sectors) * uint64_t(kGeo.disks - 1);
    require_ok(arr->close());
    arr.reset();
    std::mt19937_64 rng(77);
    const uint64_t from = (shape.data_offset + kSyncedRows * shape.chunk_sectors) * raid::kSectorBytes;
    const uint64_t to = (shape.data_offset + shape.dev_sectors) * raid::kSectorBytes;
    for (const auto& p : paths) {
      const auto junk = random_bytes(rng, to - from);
      write_file_at(p, from, junk.data(), junk.size());
      require_ok(
          edit_superblock(p, [&](ondisk::Superblock& sb) { sb.resync_offset = kSyncedRows * row_sectors; }));
    }
  }
  // The member holding array byte `offset`, by md's left-symmetric rule.
  int member_of(uint64_t offset) const {
    std::string err;
    auto g =
        layout::raid5_from_layout(shape.layout, shape.raid_disks, shape.chunk_sectors, shape.dev_sectors);
    REQUIRE(g);
    return layout::raid5_compute_sector(*g, offset / raid::kSectorBytes).dd_idx;
  }
  std::vector<std::string> without(int member) const {
    auto v = paths;
    v.erase(v.begin() + member);
    return v;
  }
};

raid::AssembleOptions no_resync() {
  raid::AssembleOptions o;
  o.resync = false;
  return o;
}

}  // namespace

TEST_CASE("raid5: a write past the resync point survives the loss of its member", "[raid5][resync]") {
  Unsynced u;
  // A 4 KiB block in the 20th stripe, well past the resync point.
  const uint64_t offset = 20 * u.row_sectors * raid::kSectorBytes + 64 * 1024 + 8192;
  const int holder = u.member_of(offset);
  std::mt19937_64 rng(78);
  const auto data = random_bytes(rng, 4096);
  {
    auto arr = assemble(u.paths, no_resync());
    REQUIRE(arr->resync_pending());
    REQUIRE(arr->resync_point() < offset / raid::kSectorBytes);
    require_ok(array_write(*arr, offset, data.data(), data.size()));
    // md reconstruct-writes a stripe that is not in sync: parity from all
    // the data, so the stripe agrees from then on.
    CHECK(personality(*arr).counters().rmw.load() == 0);
    CHECK(personality(*arr).counters().rcw.load() == 1);
    std::vector<uint8_t> back(4096);
    require_ok(array_read(*arr, offset, back.data(), back.size()));
    CHECK(first_diff(back, data) == -1);
    require_ok(arr->close());
  }
  // The member that holds the block is lost: the block comes from parity.
  raid::AssembleOptions o;
  o.run = true;
  o.start_dirty_degraded = true;  // the resync did not finish: md wants it said
  auto arr = assemble(u.without(holder), o);
  REQUIRE(arr->degraded());
  std::vector<uint8_t> back(4096);
  require_ok(array_read(*arr, offset, back.data(), back.size()));
  CHECK(first_diff(back, data) == -1);
}

TEST_CASE("raid5: a member failing during the resync leaves the resync point in place", "[raid5][resync]") {
  Unsynced u;
  auto arr = assemble(u.paths, no_resync());
  const uint64_t total = arr->personality().array_sectors();
  // The member fails once the resync has done one more stripe (on the
  // task's thread: no Catch2 assertion there, it is not thread-safe).
  std::atomic<bool> failed_ok{false};
  arr->set_piece_hook([&](const std::string& kind, uint64_t) {
    if (kind == "resync" && arr->working_members() == kGeo.disks)
      failed_ok = arr->fail_member(2, "test").ok();
  });
  auto resync = arr->start_resync();
  REQUIRE(resync);
  const Status s = resync->wait();
  CHECK(failed_ok);
  CHECK_FALSE(s.ok());  // it could not finish: parity cannot be made to agree without the member
  if (!s.ok()) CHECK(s.error().message.find("degraded") != std::string::npos);
  CHECK(arr->resync_pending());
  CHECK(arr->resync_point() < total);
  CHECK(arr->resync_point() >= (kSyncedRows + 1) * u.row_sectors);  // what it did stays done
  require_ok(arr->close());
  // And the superblocks say so: the array is dirty and degraded.
  for (int i : {0, 1, 3, 4}) {
    const auto block = read_file_at(u.paths[size_t(i)], ondisk::kSbOffsetBytes, 4096);
    const auto sb = ondisk::decode(block, std::filesystem::file_size(u.paths[size_t(i)]));
    REQUIRE(sb.ok());
    CHECK(sb->resync_offset < total);
  }
}

TEST_CASE("raid5: a repair with a member failing does not mark the array in sync", "[raid5][resync]") {
  Unsynced u;
  auto arr = assemble(u.paths, no_resync());
  std::atomic<bool> failed_ok{false};
  arr->set_piece_hook([&](const std::string& kind, uint64_t) {
    if (kind == "repair" && arr->working_members() == kGeo.disks)
      failed_ok = arr->fail_member(1, "test").ok();
  });
  auto repair = arr->start_check(true);
  REQUIRE(repair.ok());
  (void)(*repair)->wait();
  CHECK(failed_ok);
  CHECK(arr->resync_pending());
}

TEST_CASE("raid5: a dirty degraded array does not start unless forced", "[raid5][resync]") {
  TempDir dir;
  auto paths = member_paths(dir, kGeo.disks);
  std::mt19937_64 rng(79);
  const auto data = random_bytes(rng, 300000);
  {
    auto arr = create_raid5(kGeo, paths);
    require_ok(array_write(*arr, 0, data.data(), data.size()));
  }
  // A crash: every superblock still says active.
  for (const auto& p : paths)
    require_ok(edit_superblock(p, [](ondisk::Superblock& sb) { sb.resync_offset = 0; }));
  const std::vector<std::string> rest(paths.begin(), paths.begin() + 4);
  std::vector<std::vector<uint8_t>> before;
  for (const auto& p : paths) before.push_back(read_file_at(p, 0, size_t(std::filesystem::file_size(p))));

  for (bool read_only : {false, true}) {
    INFO("read_only " << read_only);
    raid::AssembleOptions o;
    o.run = true;
    o.read_only = read_only;
    auto refused = raid::Array::assemble(levels::builtin(), rest, o);
    REQUIRE_FALSE(refused.ok());
    const std::string& msg = refused.error().message;
    INFO(msg);
    CHECK(refused.error().code == Errc::refused);
    CHECK(msg.find("dirty") != std::string::npos);
    CHECK(msg.find("role 4") != std::string::npos);  // the missing one
    CHECK(msg.find("wrong") != std::string::npos);   // what it risks
    // The user may start it anyway on purpose; each front end says how.
    CHECK(refused.error().consent == Consent::start_dirty_degraded);
    CHECK(msg.find("--") == std::string::npos);
  }
  for (size_t i = 0; i < paths.size(); ++i)
    CHECK(first_diff(read_file_at(paths[i], 0, before[i].size()), before[i]) == -1);  // nothing written

  // Describing it is not starting it.
  raid::AssembleOptions look;
  look.describe_only = true;
  auto described = assemble(rest, look);
  CHECK(described->resync_pending());
  CHECK(described->degraded());
  described.reset();

  raid::AssembleOptions force;
  force.run = true;
  force.start_dirty_degraded = true;
  auto arr = assemble(rest, force);
  std::vector<uint8_t> back(data.size());
  require_ok(array_read(*arr, 0, back.data(), back.size()));
  CHECK(first_diff(back, data) == -1);
  CHECK(arr->resync_pending());  // still to be resynced once the member is back
}
