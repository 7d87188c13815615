// Member I/O errors: reads retry on another copy, writes succeed while one
// copy is written, the failing member is marked faulty (in memory and in
// the other members' superblocks), and the array never fails the last copy.
#include <optional>

#include "ondisk/superblock.hpp"
#include "raid_test_util.hpp"

using namespace rs;
using namespace rs::raid;
using namespace rs::raid::test;

namespace {

constexpr uint32_t kIoBytes = 64 * 1024;

// The job id that makes btrfs-pid send a one-segment read at `offset` to
// `member` first (its index among the copies), or -1 when no copy is there.
int job_for_member(const Array& arr, uint64_t offset, int member) {
  const auto addr = copies_of(arr, offset / kSectorBytes);
  for (size_t k = 0; k < addr.size(); ++k)
    if (addr[k].disk == member) return int(k);
  return -1;
}

bool rejected_has(const Array& arr, const std::string& path) {
  for (const auto& r : arr.rejected())
    if (r.path == path) return true;
  return false;
}

// After a reassemble, `member` is out and the freshest superblock says why.
void check_reassembled_without(std::unique_ptr<Array>& arr, const std::vector<std::string>& paths, int member,
                               const std::vector<uint8_t>& model) {
  arr.reset();
  arr = assemble(paths);
  CHECK(rejected_has(*arr, paths[size_t(member)]));
  // create gives member i device number i.
  REQUIRE(size_t(member) < arr->superblock().dev_roles.size());
  CHECK(arr->superblock().dev_roles[size_t(member)] == ondisk::kRoleFaulty);
  CHECK(state(*arr, member) == MemberState::missing);
  CHECK(arr->degraded());
  std::vector<uint8_t> back(model.size());
  REQUIRE(array_read(*arr, 0, back.data(), back.size()).ok());
  CHECK(first_diff(back, model) == -1);
}

}  // namespace

// With max_read_errors 0 the first read error fails the member (md's
// read_errors > max_corr_read_errors); above it, see test_read_errors.cpp.
TEST_CASE("a member's read errors past the threshold: reads retry elsewhere, the member is failed",
          "[raid][errors]") {
  const Config cfg = GENERATE(from_range(all_configs()));
  INFO(cfg.name);
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  auto arr = create_array(cfg, paths);
  std::mt19937_64 rng(11);
  const auto model = fill_region(*arr, rng, kIoBytes);
  const int bad = cfg.disks - 1;

  auto fbp = std::make_unique<FailingBackend>(arr->make_backend(8));
  FailingBackend& fb = *fbp;
  std::optional<TestPort> ftp(std::in_place, *arr, std::move(fbp));
  fb.fail_reads(bad);
  require_ok(arr->tunables().set("max_read_errors", "0"));
  // btrfs-pid with the right job id sends each read to the failing member
  // first, so the retry path is taken deterministically.
  set_policy(*arr, "btrfs-pid");
  std::vector<uint8_t> buf(kIoBytes);
  int aimed = 0;
  for (uint64_t off = 0; off < kRegionBytes; off += kIoBytes) {
    const int job = job_for_member(*arr, off, bad);
    aimed += job >= 0;
    INFO("read at " << off);
    REQUIRE(submit_rw(*ftp, false, off, buf.data(), kIoBytes, uint32_t(std::max(job, 0))) ==
            int(kIoBytes));
    REQUIRE(std::memcmp(buf.data(), model.data() + off, kIoBytes) == 0);
  }
  REQUIRE(aimed > 0);
  // The first error fails the member; nothing is sent to it afterwards.
  CHECK(fb.injected() == 1);
  CHECK(state(*arr, bad) == MemberState::faulty);
  CHECK(arr->member_note(bad).find("read error") != std::string::npos);
  CHECK(arr->runtime(bad).counters.snapshot().errors == 1);
  CHECK(arr->working_members() == cfg.disks - 1);
  CHECK(arr->state_text().find("degraded") != std::string::npos);
  for (int i = 0; i < cfg.disks; ++i) CHECK(arr->runtime(i).counters.snapshot().nr_pending == 0);

  ftp.reset();  // a backend holds the member files open: it goes before the array
  check_reassembled_without(arr, paths, bad, model);
}

TEST_CASE("a member's write errors: writes still succeed on the other copies", "[raid][errors]") {
  const Config cfg = GENERATE(from_range(all_configs()));
  INFO(cfg.name);
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  auto arr = create_array(cfg, paths);
  std::mt19937_64 rng(12);
  auto model = fill_region(*arr, rng, kIoBytes);
  const int bad = 0;

  auto fbp = std::make_unique<FailingBackend>(arr->make_backend(8));
  FailingBackend& fb = *fbp;
  std::optional<TestPort> ftp(std::in_place, *arr, std::move(fbp));
  fb.fail_writes(bad);
  // New data in pieces of odd sizes, many across chunk boundaries.
  unsigned after_first = 0;
  for (uint64_t off = 0; off < kRegionBytes;) {
    const uint32_t len = uint32_t(std::min<uint64_t>(4096 * (1 + rng() % 40), kRegionBytes - off));
    fill_random(rng, model.data() + off, len);
    INFO("write " << len << " at " << off);
    REQUIRE(submit_rw(*ftp, true, off, model.data() + off, len) == int(len));
    if (off == 0) after_first = fb.injected();
    off += len;
  }
  // The first write reaches member 0 (every layout starts there) and fails
  // it; one array write may hold several of its chunks, but no later write
  // is sent to it.
  CHECK(after_first >= 1);
  CHECK(fb.injected() == after_first);
  CHECK(arr->runtime(bad).counters.snapshot().errors == after_first);
  CHECK(state(*arr, bad) == MemberState::faulty);
  CHECK(arr->member_note(bad).find("write error") != std::string::npos);
  CHECK(arr->working_members() == cfg.disks - 1);

  // Read back through a fresh backend: the surviving copies have it all.
  {
    TestPort be(*arr);
    std::vector<uint8_t> back(kRegionBytes);
    for (uint64_t off = 0; off < kRegionBytes; off += kIoBytes)
      REQUIRE(submit_rw(be, false, off, back.data() + off, kIoBytes) == int(kIoBytes));
    CHECK(first_diff(back, model) == -1);
  }
  ftp.reset();

  check_reassembled_without(arr, paths, bad, model);
}

TEST_CASE("when every copy fails, the array I/O fails and the last copy stays", "[raid][errors]") {
  const Config cfg = GENERATE(from_range(all_configs()));
  INFO(cfg.name);
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  auto arr = create_array(cfg, paths);
  std::mt19937_64 rng(13);
  const auto model = fill_region(*arr, rng, kIoBytes);
  const auto addr = copies_of(*arr, 0);
  const int copies = int(addr.size());
  auto in_sync_copies = [&] {
    int n = 0;
    for (int k = 0; k < copies; ++k) n += state(*arr, addr[size_t(k)].disk) == MemberState::in_sync;
    return n;
  };

  auto fbp = std::make_unique<FailingBackend>(arr->make_backend(8));
  FailingBackend& fb = *fbp;
  std::optional<TestPort> ftp(std::in_place, *arr, std::move(fbp));
  require_ok(arr->tunables().set("max_read_errors", "0"));  // a read error fails the member at once
  std::vector<uint8_t> buf(4096, 0x5A);
  SECTION("write") {
    for (int m = 0; m < cfg.disks; ++m) fb.fail_writes(m);
    CHECK(submit_rw(*ftp, true, 0, buf.data(), 4096) == -EIO);
  }
  SECTION("read") {
    for (int m = 0; m < cfg.disks; ++m) fb.fail_reads(m);
    CHECK(submit_rw(*ftp, false, 0, buf.data(), 4096) == -EIO);
  }
  // Every copy was tried; all but the last one were failed.
  CHECK(fb.injected() == unsigned(copies));
  CHECK(in_sync_copies() == 1);
  CHECK(arr->working_members() >= 1);
  for (int i = 0; i < cfg.disks; ++i) CHECK(arr->runtime(i).counters.snapshot().nr_pending == 0);
  // The array still runs on what is left.
  fb.stop_failing();
  TestPort be(*arr);
  std::vector<uint8_t> back(kIoBytes);
  REQUIRE(submit_rw(be, false, kIoBytes, back.data(), kIoBytes) == int(kIoBytes));
  CHECK(std::memcmp(back.data(), model.data() + kIoBytes, kIoBytes) == 0);
}

// A write error on a member that fail_member() refuses to fail (it holds the
// last copy of *other* data) used to leave that member InSync with the old
// bytes while the write reported success through the other copy, so a later
// read from it returned stale data (fixed in 5f4d627: such a write now
// fails). raid10 n2 on 3 disks with member 0 failed: member 1 is the last
// copy of chunk 0, and chunk 2 lives on members 1 and 2.
TEST_CASE("a write that reports success reads back even when a copy could not be failed", "[raid][errors]") {
  const Config cfg{"raid10 n2 x3", 10, 3, "n2"};
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  auto arr = create_array(cfg, paths);
  std::mt19937_64 rng(14);
  auto model = fill_region(*arr, rng, kIoBytes);
  require_ok(arr->fail_member(0, "test"));

  // A chunk whose copies are on members 1 and 2.
  uint64_t off = 0;
  for (; off < kRegionBytes; off += kChunkBytes) {
    const auto addr = copies_of(*arr, off / kSectorBytes);
    if ((addr[0].disk == 1 && addr[1].disk == 2) || (addr[0].disk == 2 && addr[1].disk == 1)) break;
  }
  REQUIRE(off < kRegionBytes);

  auto fbp = std::make_unique<FailingBackend>(arr->make_backend(8));
  FailingBackend& fb = *fbp;
  std::optional<TestPort> ftp(std::in_place, *arr, std::move(fbp));
  fb.fail_writes(1);
  std::vector<uint8_t> fresh = random_bytes(rng, kChunkBytes);
  const int wrote = submit_rw(*ftp, true, off, fresh.data(), kChunkBytes);
  CHECK(fb.injected() == 1);
  // fail_member(1) must have been refused: member 1 is chunk 0's last copy.
  REQUIRE(state(*arr, 1) == MemberState::in_sync);
  fb.stop_failing();
  if (wrote < 0)
    SUCCEED("the write was reported as failed: no promise to keep");
  else {
    REQUIRE(wrote == int(kChunkBytes));
    // Read it from member 1 first, as btrfs-pid would for this job.
    set_policy(*arr, "btrfs-pid");
    std::vector<uint8_t> back(kChunkBytes);
    REQUIRE(submit_rw(*ftp, false, off, back.data(), kChunkBytes, uint32_t(job_for_member(*arr, off, 1))) ==
            int(kChunkBytes));
    CHECK(first_diff(back, fresh) == -1);
  }
}
