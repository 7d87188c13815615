// A degraded read's survivor reads land in the stripe cache's pages; those
// pages are registered with the reading context's io_uring ring, so the
// reads go as READ_FIXED (the kernel pins no page per request). Counted
// here, at RAID6 and RAID5: every survivor read is a fixed one, and the data they rebuild is
// the data written (a read landing in any other page than the one asked
// for would rebuild wrong bytes). A healthy array's reads, which never
// touch the cache, register nothing.
#include <cstdlib>

#include "../../common/member_reads.hpp"
#include "../../common/needs_uring.hpp"
#include "io/uring_backend.hpp"
#include "raid6_test_util.hpp"

using namespace rs;
using namespace rs::raid6::test;

namespace registered_cache {

constexpr uint32_t kPage = 4096;
constexpr uint64_t kPagesPerChunk = kChunkBytes / kPage;

// Reads `pages` 4 KiB pages from the array's start, one at a time, each
// required to equal the model's bytes.
void read_pages_match(TestPort& tp, const std::vector<uint8_t>& model, uint64_t pages) {
  std::vector<uint8_t> back(kPage);
  for (uint64_t p = 0; p < pages; ++p) {
    INFO("page " << p);
    REQUIRE(submit_rw(tp, false, p * kPage, back.data(), kPage) == int(kPage));
    REQUIRE(std::memcmp(back.data(), model.data() + p * kPage, kPage) == 0);
  }
}

// Level `level` of `disks` members with `lost` failed: reads the first
// `stripes` stripes page by page and requires the data right, every
// survivor read a fixed one, and the member reads a hand count gives:
// `lost_chunks` chunks of those stripes on a lost member, each of a
// stripe's page columns rebuilt once from `survivors` reads (a second lost
// chunk of the column comes from the pages kept), the rest read straight.
void degraded_reads_fixed(int level, int disks, const std::vector<int>& lost, uint64_t stripes,
                          uint64_t stripes_rebuilt, uint64_t lost_chunks, uint64_t survivors) {
  rs::test::require_uring();
  TempDir dir;
  auto paths = member_paths(dir, disks);
  auto arr = create_parity_array(level, {disks, 2}, paths);
  std::mt19937_64 rng(4096);
  const std::vector<uint8_t> model = random_bytes(rng, size_t(arr->size_bytes()));
  require_ok(array_write(*arr, 0, model.data(), model.size()));
  arr.reset();
  arr = assemble(paths);  // nothing in the stripe cache
  const uint64_t data_chunks = stripes * uint64_t(disks - (level == 6 ? 2 : 1));
  const uint64_t pages = data_chunks * kPagesPerChunk;
  {
    TestPort healthy(*arr);
    auto* ring = dynamic_cast<io::UringBackend*>(&healthy.backend());
    REQUIRE(ring);
    read_pages_match(healthy, model, pages);
    // Straight to the data members, into the I/O's own (unregistered) buffer.
    CHECK(ring->fixed_ios() == 0);
  }
  for (int m : lost) require_ok(arr->fail_member(m, "test"));
  TestPort tp(*arr);
  auto* ring = dynamic_cast<io::UringBackend*>(&tp.backend());
  REQUIRE(ring);
  auto reads_now = [&] { return rs::test::sum(rs::test::member_reads(arr->read_members())); };
  const uint64_t reads0 = reads_now();
  read_pages_match(tp, model, pages);
  const uint64_t survivor_reads = stripes_rebuilt * kPagesPerChunk * survivors;
  const uint64_t direct_reads = (data_chunks - lost_chunks) * kPagesPerChunk;
  CHECK(reads_now() - reads0 == survivor_reads + direct_reads);
  CHECK(ring->fixed_ios() == survivor_reads);
}

// md's left-symmetric, members 1 and 4 of 6 lost: every stripe has one or
// two data chunks on a lost member (8 of every 24), each rebuilt from the 4
// survivors. 12 stripes: two turns of the six stripe shapes.
TEST_CASE("raid6 degraded reads: survivor reads go into registered stripe cache pages, data right",
          "[raid6][degraded][needs-uring]") {
  degraded_reads_fixed(6, 6, {1, 4}, 12, 12, 16, 4);
}

// RAID5 (the same personality): member 1 of 4 lost holds a data chunk in 3
// of every 4 stripes (parity in the other), each rebuilt from the other 3.
TEST_CASE("raid5 degraded reads: survivor reads go into registered stripe cache pages, data right",
          "[raid5][degraded][needs-uring]") {
  degraded_reads_fixed(5, 4, {1}, 8, 6, 6, 3);
}

}  // namespace registered_cache
