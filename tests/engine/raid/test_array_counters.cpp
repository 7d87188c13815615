// Per-member counters: every member I/O is counted once, on the member that
// did it, and nr_pending returns to zero.
#include <optional>

#include "raid_test_util.hpp"

using namespace rs;
using namespace rs::raid;
using namespace rs::raid::test;

namespace {

// Member writes one array write makes: one per in-sync copy of each segment.
uint64_t member_writes(const Array& arr, uint64_t offset, uint32_t length) {
  uint64_t sector = offset / kSectorBytes, left = length / kSectorBytes, n = 0;
  while (left > 0) {
    const uint64_t s = std::min<uint64_t>(left, sectors_to_boundary(arr, sector));
    for (const auto& a : copies_of(arr, sector)) n += state(arr, a.disk) == MemberState::in_sync;
    sector += s;
    left -= s;
  }
  return n;
}

}  // namespace

TEST_CASE("counters count every member read and write once", "[raid][counters]") {
  const Config cfg = GENERATE(from_range(all_configs()));
  const std::string policy = GENERATE("md-legacy", "md-rr");
  INFO(cfg.name << ", " << policy);
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  auto arr = create_array(cfg, paths);
  set_policy(*arr, policy);
  REQUIRE(member_totals(*arr).reads == 0);
  REQUIRE(member_totals(*arr).writes == 0);

  std::mt19937_64 rng(41);
  std::optional<TestPort> be(std::in_place, *arr);
  Pipeline pipe(*be, 4, 128 * 1024);
  const uint64_t span = 2ull << 20;
  auto data = random_bytes(rng, span);

  // Writes of odd sizes: one member write per copy per chunk segment.
  std::vector<Request> writes;
  uint64_t want_writes = 0, want_write_bytes = 0;
  for (uint64_t off = 0; off < span;) {
    const uint32_t len = uint32_t(std::min<uint64_t>(4096 * (1 + rng() % 32), span - off));
    writes.push_back({true, off, len, data.data() + off, 0});
    want_writes += member_writes(*arr, off, len);
    want_write_bytes += uint64_t(len) * uint64_t(copies_of(*arr, 0).size());
    off += len;
  }
  for (int r : pipe.run(writes)) REQUIRE(r > 0);
  auto t = member_totals(*arr);
  CHECK(t.writes == want_writes);
  CHECK(t.write_bytes == want_write_bytes);
  CHECK(t.reads == 0);
  CHECK(t.nr_pending == 0);

  // N known reads: one member read per chunk segment.
  constexpr int kReads = 96;
  constexpr uint32_t kLen = 16 * 1024;
  std::vector<std::vector<uint8_t>> bufs(kReads, std::vector<uint8_t>(kLen));
  std::vector<Request> reads;
  uint64_t want_reads = 0;
  for (int i = 0; i < kReads; ++i) {
    const uint64_t off = (rng() % ((span - kLen) / 4096)) * 4096;
    reads.push_back({false, off, kLen, bufs[size_t(i)].data(), uint32_t(i)});
    want_reads += segments_of(*arr, off, kLen);
  }
  for (int r : pipe.run(reads)) REQUIRE(r == int(kLen));
  for (int i = 0; i < kReads; ++i)
    REQUIRE(std::memcmp(bufs[size_t(i)].data(), data.data() + reads[size_t(i)].offset, kLen) == 0);
  t = member_totals(*arr);
  CHECK(t.reads == want_reads);
  CHECK(t.read_bytes == uint64_t(kReads) * kLen);
  CHECK(t.writes == want_writes);
  CHECK(t.errors == 0);
  for (int i = 0; i < cfg.disks; ++i) CHECK(arr->runtime(i).counters.snapshot().nr_pending == 0);
  // Time was spent with I/O pending.
  CHECK(t.pending_time_ns > 0);

  // Degraded: a failed member gets (and counts) nothing.
  require_ok(arr->fail_member(0, "test"));
  be.emplace(*arr);
  Pipeline pipe2(*be, 4, 128 * 1024);
  const auto before0 = arr->runtime(0).counters.snapshot();
  uint64_t more_writes = 0;
  std::vector<Request> again;
  for (uint64_t off = 0; off < span; off += 96 * 1024) {
    const uint32_t len = uint32_t(std::min<uint64_t>(96 * 1024, span - off));
    again.push_back({true, off, len, data.data() + off, 0});
    more_writes += member_writes(*arr, off, len);
  }
  for (int r : pipe2.run(again)) REQUIRE(r > 0);
  for (int r : pipe2.run(reads)) REQUIRE(r == int(kLen));
  const auto after0 = arr->runtime(0).counters.snapshot();
  CHECK(after0.writes == before0.writes);
  CHECK(after0.reads == before0.reads);
  t = member_totals(*arr);
  CHECK(t.writes == want_writes + more_writes);
  CHECK(t.reads == 2 * want_reads);
  CHECK(t.nr_pending == 0);
}
