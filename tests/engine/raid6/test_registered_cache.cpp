// A degraded read's survivor reads land in the stripe cache's pages; those
// pages are registered with the reading context's io_uring ring, so the
// reads go as READ_FIXED (the kernel pins no page per request). Counted
// here: every survivor read is a fixed one, and the data they rebuild is
// the data written (a read landing in any other page than the one asked
// for would rebuild wrong bytes). A healthy array's reads, which never
// touch the cache, register nothing.
#include <cstdlib>

#include "io/uring_backend.hpp"
#include "raid6_test_util.hpp"

using namespace rs;
using namespace rs::raid6::test;

namespace registered_cache {

constexpr int kDisks = 6;
constexpr uint32_t kPage = 4096;
constexpr uint64_t kPagesPerChunk = kChunkBytes / kPage;

// [needs-uring]: exits 77 (a skip) where io_uring is unusable.
void require_uring() {
  if (!io::UringBackend::create({}, 8)) std::_Exit(77);
}

// Reads `pages` 4 KiB pages from the array's start, one at a time, each
// required to equal the model's bytes.
void read_pages_match(TestPort& tp, const std::vector<uint8_t>& model, uint64_t pages) {
  std::vector<uint8_t> back(kPage);
  for (uint64_t p = 0; p < pages; ++p) {
    INFO("page " << p << " (stripe " << p / (kPagesPerChunk * (kDisks - 2)) << ")");
    REQUIRE(submit_rw(tp, false, p * kPage, back.data(), kPage) == int(kPage));
    REQUIRE(std::memcmp(back.data(), model.data() + p * kPage, kPage) == 0);
  }
}

TEST_CASE("raid6 degraded reads: survivor reads go into registered stripe cache pages, data right",
          "[raid6][degraded][needs-uring]") {
  require_uring();
  TempDir dir;
  auto paths = member_paths(dir, kDisks);
  auto arr = create_raid6({kDisks, 2}, paths);
  std::mt19937_64 rng(4096);
  const std::vector<uint8_t> model = random_bytes(rng, size_t(arr->size_bytes()));
  require_ok(array_write(*arr, 0, model.data(), model.size()));
  arr.reset();
  arr = assemble(paths);  // nothing in the stripe cache

  // 12 stripes: two turns of the six left-symmetric stripe shapes.
  const uint64_t stripes = 12, pages = stripes * (kDisks - 2) * kPagesPerChunk;
  {
    TestPort healthy(*arr);
    auto* ring = dynamic_cast<io::UringBackend*>(&healthy.backend());
    REQUIRE(ring);
    read_pages_match(healthy, model, pages);
    // Straight to the data members, into the I/O's own (unregistered) buffer.
    CHECK(ring->fixed_ios() == 0);
  }

  require_ok(arr->fail_member(1, "test"));
  require_ok(arr->fail_member(4, "test"));
  TestPort tp(*arr);
  auto* ring = dynamic_cast<io::UringBackend*>(&tp.backend());
  REQUIRE(ring);
  const uint64_t reads0 = [&] {
    uint64_t n = 0;
    for (const auto& m : arr->read_members()) n += m.counters.reads;
    return n;
  }();
  read_pages_match(tp, model, pages);
  uint64_t member_reads = 0;
  for (const auto& m : arr->read_members()) member_reads += m.counters.reads;
  member_reads -= reads0;
  // By hand (md's left-symmetric, members 1 and 4 lost): every stripe has
  // one or two data chunks on a lost member, 8 of 24 chunks in all. Each of
  // a stripe's 16 page columns is rebuilt once, from the 4 survivors (the
  // second lost chunk of a column comes from the pages kept); the other 16
  // chunks of 12 stripes are read straight, one read per page.
  const uint64_t lost_chunks = 2 * 8;
  const uint64_t survivor_reads = stripes * kPagesPerChunk * 4;
  const uint64_t direct_reads = (stripes * (kDisks - 2) - lost_chunks) * kPagesPerChunk;
  CHECK(member_reads == survivor_reads + direct_reads);
  CHECK(ring->fixed_ios() == survivor_reads);
}

}  // namespace registered_cache
