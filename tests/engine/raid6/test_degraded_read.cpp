// RAID6's degraded read, counted: with members 1 and 4 of 6 lost
// (left-symmetric), a 4 KiB read of a block on a survivor reads that member
// once; a read of a block on a lost member reads each of the four survivors
// once (N-2 blocks solve any two unknowns: md's handle_stripe_fill at level
// 6) and computes that one page, not the other lost block nor a syndrome it
// does not return; a later read of the other lost block of the same column
// computes it from the pages the stripe cache kept, reading nothing.
#include <set>
#include <utility>

#include "../../common/member_reads.hpp"
#include "raid6_test_util.hpp"

using namespace rs;
using namespace rs::raid6::test;

namespace {

constexpr int kDisks = 6;
constexpr uint64_t kPage = 4096;

// md's left-symmetric at level 6 (raid5_compute_sector): P on member
// 5 - s % 6, Q on the one after it, data chunk c on the member c + 2 after P.
int data_member(int stripe, int c) {
  return (kDisks - 1 - stripe % kDisks + 2 + c) % kDisks;
}

// By hand from that rule, members 1 and 4 lost: (stripe, data chunk) on a
// lost member. Stripes 0 and 3 lose two data chunks, 1 and 4 a data chunk
// and P, 2 and 5 a data chunk and Q: 8 of 24.
const std::set<std::pair<int, int>> kLostChunks = {{0, 0}, {0, 3}, {1, 1}, {2, 2},
                                                   {3, 0}, {3, 3}, {4, 1}, {5, 2}};

std::vector<uint64_t> minus(const std::vector<uint64_t>& a, const std::vector<uint64_t>& b) {
  std::vector<uint64_t> d(a.size());
  for (size_t i = 0; i < a.size(); ++i) d[i] = a[i] - b[i];
  return d;
}

// Reads [off, +4 KiB), requires the model's bytes, returns the member reads
// (count and bytes) and the pages recovered that it caused.
struct ReadCost {
  std::vector<uint64_t> reads, bytes;
  uint64_t recovered = 0;
};
ReadCost read_counted(raid::Array& arr, const std::vector<uint8_t>& model, uint64_t off) {
  const auto& c = personality(arr).counters();
  const auto reads0 = rs::test::member_reads(arr.read_members()),
             bytes0 = rs::test::member_read_bytes(arr.read_members());
  const uint64_t rec0 = c.recovered_pages.load();
  std::vector<uint8_t> back(kPage);
  require_ok(array_read(arr, off, back.data(), kPage));
  REQUIRE(std::memcmp(back.data(), model.data() + off, kPage) == 0);
  return {minus(rs::test::member_reads(arr.read_members()), reads0),
          minus(rs::test::member_read_bytes(arr.read_members()), bytes0), c.recovered_pages.load() - rec0};
}

}  // namespace

TEST_CASE(
    "raid6 degraded 4k reads, two of six members lost: the survivors' blocks read once each, only the "
    "page returned computed",
    "[raid6][degraded]") {
  TempDir dir;
  auto paths = member_paths(dir, kDisks);
  auto arr = create_raid6({kDisks, 2}, paths);
  std::mt19937_64 rng(29);
  const std::vector<uint8_t> model = random_bytes(rng, size_t(arr->size_bytes()));
  require_ok(array_write(*arr, 0, model.data(), model.size()));
  arr.reset();
  arr = assemble(paths);  // nothing in the stripe cache
  require_ok(arr->fail_member(1, "test"));
  require_ok(arr->fail_member(4, "test"));
  const std::vector<uint64_t> survivors_once = {1, 0, 1, 1, 0, 1};
  const std::vector<uint64_t> survivors_page = {kPage, 0, kPage, kPage, 0, kPage};

  int rebuilt = 0;
  for (int s = 0; s < kDisks; ++s)
    for (int c = 0; c < kDisks - 2; ++c) {
      // Page c of data chunk c: every read its own page column.
      const uint64_t off = uint64_t(s * (kDisks - 2) + c) * kChunkBytes + uint64_t(c) * kPage;
      INFO("stripe " << s << ", data chunk " << c << " on member " << data_member(s, c));
      const ReadCost cost = read_counted(*arr, model, off);
      if (kLostChunks.count({s, c})) {
        ++rebuilt;
        CHECK(cost.reads == survivors_once);
        CHECK(cost.bytes == survivors_page);
        CHECK(cost.recovered == 1);
      } else {
        std::vector<uint64_t> one(kDisks, 0);
        one[size_t(data_member(s, c))] = 1;
        CHECK(cost.reads == one);
        CHECK(cost.recovered == 0);
      }
    }
  CHECK(rebuilt == 8);
  CHECK(personality(*arr).counters().degraded_reads.load() == 8);

  // Stripe 0's chunk 3 (member 4) in the column of the chunk 0 page read
  // above: the survivors' pages are still in the cache, so it is computed
  // from them with no member read, and only now.
  const ReadCost again = read_counted(*arr, model, 3 * kChunkBytes);
  CHECK(again.reads == std::vector<uint64_t>(kDisks, 0));
  CHECK(again.recovered == 1);
}
