// Read-error correction on RAID1 and RAID10, as md's fix_read_error and
// fix_sync_read_error do it: a member that cannot read one block keeps its
// place; the block is rewritten from a good copy, read back, and counted
// (md's corrected_errors, in sectors: the superblock's cnt_corrected_read
// and sysfs `errors`); the member is failed only when its read errors pass
// max_read_errors (md's max_corr_read_errors, default 20). Normal reads, check, repair and
// rebuild reads all do it. The bad blocks are injected with a FaultPlan: a
// 4 KiB block whose bytes on the media are garbage and whose reads fail
// with EIO until it is written, as a disk's pending sector.
#include <algorithm>

#include "io/fault_backend.hpp"
#include "ondisk/superblock.hpp"
#include "raid_test_util.hpp"

using namespace rs;
using namespace rs::raid;
using namespace rs::raid::test;

namespace {

constexpr uint32_t kBlock = 4096;

// Where one copy of an array block lives.
struct Spot {
  int member = -1;
  uint64_t dev_sector = 0;   // data-area relative, as md's messages give it
  uint64_t file_offset = 0;  // bytes into the member's image file
};

Spot spot_of(const Array& arr, uint64_t array_offset, size_t copy) {
  const auto addr = copies_of(arr, array_offset / kSectorBytes);
  REQUIRE(copy < addr.size());
  Spot s;
  s.member = addr[copy].disk;
  s.dev_sector = addr[copy].sector;
  s.file_offset = (arr.shape().data_offset + s.dev_sector) * kSectorBytes;
  return s;
}

// The block's bytes on the media are lost (garbage) and it reads back EIO
// until it is written.
void make_unreadable(io::FaultPlan& plan, const std::string& path, uint64_t file_offset) {
  const std::vector<uint8_t> junk(kBlock, 0xBD);
  write_file_at(path, file_offset, junk.data(), kBlock);
  plan.add({path, file_offset, kBlock, true, false, -1, EIO, true});
}

// An array of `cfg` over new image files, its first kRegionBytes filled
// with random data (`model`), assembled again with a fault plan plugged in.
struct Filled {
  TempDir dir;
  std::vector<std::string> paths;
  std::unique_ptr<Array> arr;
  std::vector<uint8_t> model;
  std::shared_ptr<io::FaultPlan> plan = std::make_shared<io::FaultPlan>();

  Filled(const Config& cfg, uint64_t seed) : paths(member_paths(dir, cfg.disks)) {
    std::mt19937_64 rng(seed);
    arr = create_array(cfg, paths);
    model = fill_region(*arr, rng, 64 * 1024);
    arr.reset();
    AssembleOptions opt;
    opt.faults = plan;
    arr = assemble(paths, opt);
  }
};

std::vector<telemetry::Event> member_events(const Array& arr, const std::string& value) {
  std::vector<telemetry::Event> v;
  for (auto& e : const_cast<Array&>(arr).events().since(0))
    if (e.kind == "member" && e.value == value) v.push_back(e);
  return v;
}

uint32_t cnt_corrected_read(const std::string& path) {
  const auto block = read_file_at(path, ondisk::kSbOffsetBytes, 4096);
  auto res = ondisk::decode(block, std::filesystem::file_size(path));
  INFO(rs::test::error_text(res));
  REQUIRE(res.ok());
  return res->cnt_corrected_read;
}

// The job id that makes btrfs-pid send a one-segment read to copy `copy`.
uint32_t job_for_copy(size_t copy) {
  return uint32_t(copy);
}

// The corrected block is on the member's media, the counters and the
// superblock say 8 sectors, and one event names the member, the device
// sector and the copy it came from.
void check_corrected(Array& arr, const std::vector<std::string>& paths, const Spot& bad,
                     const std::vector<uint8_t>& model, uint64_t array_offset) {
  CHECK(state(arr, bad.member) == MemberState::in_sync);
  const auto on_media = read_file_at(paths[size_t(bad.member)], bad.file_offset, kBlock);
  CHECK(std::equal(on_media.begin(), on_media.end(), model.begin() + long(array_offset)));
  const auto c = arr.runtime(bad.member).counters.snapshot();
  CHECK(c.read_errors >= 1);
  CHECK(c.corrected_errors == kBlock / kSectorBytes);
  const auto corrected = member_events(arr, "corrected");
  REQUIRE(corrected.size() == 1);
  CHECK(corrected[0].name == paths[size_t(bad.member)]);
  CHECK(corrected[0].message.find("read error at device sector " + std::to_string(bad.dev_sector) +
                                  " corrected from member ") != std::string::npos);
  for (const auto& e : member_events(arr, "faulty")) CHECK(e.name != paths[size_t(bad.member)]);
}

}  // namespace

TEST_CASE("a read error on one copy is rewritten from another; the member stays", "[raid][read-errors]") {
  const Config cfg = GENERATE(from_range(all_configs()));
  INFO(cfg.name);
  Filled f(cfg, 31);
  auto& arr = f.arr;
  const auto& paths = f.paths;
  const auto& model = f.model;
  auto& plan = f.plan;

  const uint64_t at = 320 * 1024;
  const size_t last = copies_of(*arr, at / kSectorBytes).size() - 1;
  const Spot bad = spot_of(*arr, at, last);
  make_unreadable(*plan, paths[size_t(bad.member)], bad.file_offset);
  set_policy(*arr, "btrfs-pid");  // the read goes to the bad copy first
  {
    TestPort tp(*arr);
    std::vector<uint8_t> buf(kBlock);
    REQUIRE(submit_rw(tp, false, at, buf.data(), kBlock, job_for_copy(last)) == int(kBlock));
    CHECK(std::equal(buf.begin(), buf.end(), model.begin() + long(at)));
  }
  CHECK(plan->failed(paths[size_t(bad.member)], false) >= 1);
  CHECK(state(*arr, bad.member) == MemberState::in_sync);
  require_ok(arr->close());  // the correction is done when close returns
  check_corrected(*arr, paths, bad, model, at);
  CHECK(cnt_corrected_read(paths[size_t(bad.member)]) == kBlock / kSectorBytes);

  // Without the fault plan every member comes back, with equal copies.
  arr.reset();
  arr = assemble(paths);
  CHECK(arr->working_members() == cfg.disks);
  CHECK(check_ok(*arr, false) == 0);
  // md reads cnt_corrected_read back as the member's corrected count.
  CHECK(arr->runtime(bad.member).counters.snapshot().corrected_errors == kBlock / kSectorBytes);
}

TEST_CASE("check and repair rewrite an unreadable block from a good copy and finish", "[raid][read-errors]") {
  const Config cfg = GENERATE(from_range(all_configs()));
  const bool repair = GENERATE(false, true);
  const bool first_copy = GENERATE(true, false);  // the copy check compares the others with, or another
  INFO(cfg.name << (repair ? " repair" : " check") << (first_copy ? ", first copy bad" : ", last copy bad"));
  Filled f(cfg, 32);
  auto& arr = f.arr;
  const auto& paths = f.paths;
  const auto& model = f.model;
  auto& plan = f.plan;

  const uint64_t at = 1024 * 1024 + 8192;
  const Spot bad = spot_of(*arr, at, first_copy ? 0 : copies_of(*arr, at / kSectorBytes).size() - 1);
  make_unreadable(*plan, paths[size_t(bad.member)], bad.file_offset);
  // The corrected block is not a mismatch: every copy holds the data after it.
  CHECK(check_ok(*arr, repair) == 0);
  CHECK(plan->failed(paths[size_t(bad.member)], false) >= 1);
  check_corrected(*arr, paths, bad, model, at);
  std::vector<uint8_t> back(kRegionBytes);
  require_ok(array_read(*arr, 0, back.data(), back.size()));
  CHECK(first_diff(back, model) == -1);
}

TEST_CASE("a member is failed once its read errors pass max_read_errors, and the event says so",
          "[raid][read-errors]") {
  const Config cfg = GENERATE(Config{"raid1 x2", 1, 2, ""}, Config{"raid10 n2 x4", 10, 4, "n2"});
  INFO(cfg.name);
  Filled f(cfg, 33);
  auto& arr = f.arr;
  const auto& paths = f.paths;
  const auto& model = f.model;
  auto& plan = f.plan;
  // md's default, MD_DEFAULT_MAX_CORRECTED_READ_ERRORS.
  auto threshold = arr->tunables().get("max_read_errors");
  REQUIRE(threshold.ok());
  CHECK(*threshold == "20");
  require_ok(arr->tunables().set("max_read_errors", "3"));
  set_policy(*arr, "btrfs-pid");

  // Blocks of member `m` (the first copy of array chunk 0) that go bad one
  // after the other; each read is aimed at m.
  const int m = spot_of(*arr, 0, 0).member;
  int errors = 0;
  for (uint64_t at = 0; at < kRegionBytes && errors < 4; at += kChunkBytes) {
    const auto addr = copies_of(*arr, at / kSectorBytes);
    const auto k = std::find_if(addr.begin(), addr.end(), [&](auto& a) { return a.disk == m; });
    if (k == addr.end()) continue;
    const Spot bad = spot_of(*arr, at, size_t(k - addr.begin()));
    make_unreadable(*plan, paths[size_t(m)], bad.file_offset);
    ++errors;
    TestPort tp(*arr);
    std::vector<uint8_t> buf(kBlock);
    INFO("read error " << errors << " at array offset " << at);
    REQUIRE(submit_rw(tp, false, at, buf.data(), kBlock, job_for_copy(size_t(k - addr.begin()))) ==
            int(kBlock));
    CHECK(std::equal(buf.begin(), buf.end(), model.begin() + long(at)));
    require_ok(arr->close());  // let the correction finish before the next error
    // md: read_errors > max_corr_read_errors (our max_read_errors) fails it, so the 4th does.
    CHECK(state(*arr, m) == (errors <= 3 ? MemberState::in_sync : MemberState::faulty));
  }
  REQUIRE(errors == 4);
  CHECK(member_events(*arr, "corrected").size() == 3);
  const auto faulty = member_events(*arr, "faulty");
  REQUIRE(faulty.size() == 1);
  CHECK(faulty[0].name == paths[size_t(m)]);
  CHECK(faulty[0].message.find("4 read errors") != std::string::npos);
  CHECK(faulty[0].message.find("max_read_errors (3)") != std::string::npos);
  CHECK(arr->member_note(m).find("max_read_errors") != std::string::npos);
  CHECK(arr->runtime(m).counters.snapshot().read_errors == 4);
  CHECK(arr->runtime(m).counters.snapshot().corrected_errors == 3 * kBlock / kSectorBytes);
}

TEST_CASE("a rebuild whose source copy cannot read a block takes it from another and rewrites it",
          "[raid][read-errors]") {
  const Config cfg{"raid1 x3", 1, 3, ""};
  Filled f(cfg, 34);
  auto& arr = f.arr;
  const auto& paths = f.paths;
  const auto& model = f.model;
  auto& plan = f.plan;
  require_ok(arr->fail_member(2, "test"));

  // The rebuild copies from the first in-sync copy: member 0.
  const uint64_t at = 512 * 1024;
  const Spot bad = spot_of(*arr, at, 0);
  REQUIRE(bad.member == 0);
  make_unreadable(*plan, paths[0], bad.file_offset);
  AddOptions ao;
  ao.create_files_bytes = kMemberBytes;
  const std::string fresh = f.dir.file("new.img");
  require_ok(add_member(*arr, fresh, ao));
  CHECK(arr->working_members() == 3);
  check_corrected(*arr, paths, bad, model, at);
  const auto rebuilt = read_file_at(fresh, bad.file_offset, kBlock);
  CHECK(std::equal(rebuilt.begin(), rebuilt.end(), model.begin() + long(at)));
  CHECK(check_ok(*arr, false) == 0);
}

// md's fix_read_error fails a member whose rewrite fails ("read correction
// write failed"): a disk that cannot remap a bad block is failing. Reads
// of the block and writes over it both fail here.
TEST_CASE("a block whose rewrite fails fails its member, and the data stays right", "[raid][read-errors]") {
  const Config cfg = GENERATE(Config{"raid1 x2", 1, 2, ""}, Config{"raid10 n2 x4", 10, 4, "n2"});
  const bool by_check = GENERATE(true, false);
  INFO(cfg.name << (by_check ? ", met by check" : ", met by a read"));
  Filled f(cfg, 35);
  const uint64_t at = 256 * 1024;
  const size_t last = copies_of(*f.arr, at / kSectorBytes).size() - 1;
  const Spot bad = spot_of(*f.arr, at, by_check ? 0 : last);
  const std::string& path = f.paths[size_t(bad.member)];
  const std::vector<uint8_t> junk(kBlock, 0xBD);
  write_file_at(path, bad.file_offset, junk.data(), kBlock);
  f.plan->add({path, bad.file_offset, kBlock, true, true, -1, EIO, false});
  if (by_check) {
    CHECK(check_ok(*f.arr, false) == 0);
  } else {
    set_policy(*f.arr, "btrfs-pid");  // the read goes to the bad copy first
    TestPort tp(*f.arr);
    std::vector<uint8_t> buf(kBlock);
    REQUIRE(submit_rw(tp, false, at, buf.data(), kBlock, job_for_copy(last)) == int(kBlock));
    CHECK(std::equal(buf.begin(), buf.end(), f.model.begin() + long(at)));
  }
  require_ok(f.arr->close());  // the I/O path's rewrite has run when close returns
  CHECK(f.plan->failed(path, true) >= 1);
  CHECK(state(*f.arr, bad.member) == MemberState::faulty);
  const auto faulty = member_events(*f.arr, "faulty");
  REQUIRE(faulty.size() == 1);
  CHECK(faulty[0].name == path);
  CHECK(faulty[0].message.find("write error at device sector " + std::to_string(bad.dev_sector)) !=
        std::string::npos);
  CHECK(member_events(*f.arr, "corrected").empty());
  CHECK(f.arr->runtime(bad.member).counters.snapshot().corrected_errors == 0);
  std::vector<uint8_t> back(kRegionBytes);
  require_ok(array_read(*f.arr, 0, back.data(), back.size()));
  CHECK(first_diff(back, f.model) == -1);
}
