// The power-cut model (io/powercut_log.hpp): which writes a cut keeps for
// certain, which it may drop, apply or tear, and that an array assembled
// with an observer records every member write and flush it makes.
#include <map>
#include <set>

#include "io/powercut_log.hpp"
#include "ondisk/superblock.hpp"
#include "raid_test_util.hpp"

using namespace rs;
using namespace rs::raid;
using namespace rs::raid::test;
using io::PowerCutLog;

namespace {

std::vector<uint8_t> bytes(size_t n, uint8_t v) {
  return std::vector<uint8_t>(n, v);
}

// What a device holds after a replay, as (offset -> byte) of what landed.
std::map<uint64_t, uint8_t> landed(const PowerCutLog& log, size_t cut, uint64_t seed,
                                   PowerCutLog::CutSummary* sum = nullptr) {
  std::map<uint64_t, uint8_t> out;
  std::mt19937_64 rng(seed);
  auto s = log.replay(cut, rng, [&](int, uint64_t off, const uint8_t* data, size_t len) {
    for (size_t i = 0; i < len; ++i) out[off + i] = data[i];
  });
  if (sum) *sum = s;
  return out;
}

}  // namespace

TEST_CASE("power cut: a write is certain only once a flush that started after it completed",
          "[raid][powercut]") {
  PowerCutLog log;
  const auto a = bytes(4096, 0xaa);
  const uint64_t w = log.write_issued("d", 0, a.data(), a.size(), false);  // event 0
  log.write_completed(w, 4096);                                            // 1
  const uint64_t f = log.flush_started("d");                               // 2
  log.flush_completed(f, true);                                            // 3
  const auto& wr = log.writes()[0];
  CHECK_FALSE(log.durable(wr, 1));
  CHECK_FALSE(log.durable(wr, 2));
  CHECK_FALSE(log.durable(wr, 3));  // the flush had not completed yet
  CHECK(log.durable(wr, 4));
  PowerCutLog::CutSummary sum;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    auto got = landed(log, 4, seed, &sum);
    CHECK(sum.durable == 1);
    REQUIRE(got.size() == 4096);
    CHECK(got.begin()->second == 0xaa);
  }
}

TEST_CASE("power cut: a flush that started before a write completed does not cover it", "[raid][powercut]") {
  PowerCutLog log;
  const auto a = bytes(512, 1);
  const uint64_t w = log.write_issued("d", 0, a.data(), a.size(), false);  // 0
  const uint64_t f = log.flush_started("d");                               // 1
  log.write_completed(w, 512);                                             // 2
  log.flush_completed(f, true);                                            // 3
  CHECK_FALSE(log.durable(log.writes()[0], 4));
  // Nor does a flush of another device.
  PowerCutLog other;
  const uint64_t w2 = other.write_issued("d", 0, a.data(), a.size(), false);
  other.write_completed(w2, 512);
  const uint64_t f2 = other.flush_started("e");
  other.flush_completed(f2, true);
  CHECK_FALSE(other.durable(other.writes()[0], 4));
  // A failed flush covers nothing.
  PowerCutLog failed;
  const uint64_t w3 = failed.write_issued("d", 0, a.data(), a.size(), false);
  failed.write_completed(w3, 512);
  const uint64_t f3 = failed.flush_started("d");
  failed.flush_completed(f3, false);
  CHECK_FALSE(failed.durable(failed.writes()[0], 4));
}

TEST_CASE("power cut: a dsync write is certain once it completed", "[raid][powercut]") {
  PowerCutLog log;
  const auto a = bytes(4096, 7);
  const uint64_t w = log.write_issued("d", 8192, a.data(), a.size(), true);
  CHECK_FALSE(log.durable(log.writes()[0], 1));  // in flight
  log.write_completed(w, 4096);
  CHECK(log.durable(log.writes()[0], 2));
  // A short one is not.
  PowerCutLog shorter;
  const uint64_t s = shorter.write_issued("d", 0, a.data(), a.size(), true);
  shorter.write_completed(s, 2048);
  CHECK_FALSE(shorter.durable(shorter.writes()[0], 2));
}

TEST_CASE("power cut: writes not yet certain are dropped or applied or torn at 512 bytes", "[raid][powercut]") {
  PowerCutLog log;
  const auto a = bytes(4096, 0x5a);
  const uint64_t w = log.write_issued("d", 0, a.data(), a.size(), false);
  log.write_completed(w, 4096);
  const auto b = bytes(512, 0x77);
  log.write_issued("d", 1 << 20, b.data(), b.size(), false);  // issued at event 2: after the cut below
  std::set<size_t> sizes;
  PowerCutLog::CutSummary total;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    PowerCutLog::CutSummary sum;
    auto got = landed(log, 2, seed, &sum);
    total.dropped += sum.dropped;
    total.whole += sum.whole;
    total.torn += sum.torn;
    CHECK(sum.durable == 0);
    CHECK(got.count(1 << 20) == 0);  // never the write issued after the cut
    // Whole sectors only: every sector landed entirely or not at all.
    for (uint64_t s = 0; s < 4096; s += 512) {
      size_t n = 0;
      for (uint64_t i = s; i < s + 512; ++i) n += got.count(i);
      CHECK((n == 0 || n == 512));
    }
    sizes.insert(got.size());
  }
  CHECK(total.dropped > 0);
  CHECK(total.whole > 0);
  CHECK(total.torn > 0);
  CHECK(sizes.count(0) == 1);
  CHECK(sizes.count(4096) == 1);
  CHECK(sizes.size() > 3);  // torn writes leave various numbers of sectors
}

TEST_CASE("power cut: overlapping writes land in issue order", "[raid][powercut]") {
  PowerCutLog log;
  const auto old_bytes = bytes(1024, 1), new_bytes = bytes(1024, 2);
  const uint64_t w1 = log.write_issued("d", 0, old_bytes.data(), 1024, true);
  log.write_completed(w1, 1024);
  const uint64_t w2 = log.write_issued("d", 0, new_bytes.data(), 1024, true);
  log.write_completed(w2, 1024);
  auto got = landed(log, log.size(), 1);
  CHECK(got[0] == 2);
  CHECK(got[1023] == 2);
  got = landed(log, 3, 1);  // the second one not yet issued
  CHECK(got[0] == 1);
}

TEST_CASE("power cut: an array with an observer records its member writes and flushes", "[raid][powercut]") {
  const Config cfg = all_configs()[0];  // raid1 x2
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  require_ok(create_array(cfg, paths)->close());
  auto log = std::make_shared<PowerCutLog>();
  AssembleOptions o;
  o.observer = log;
  auto arr = assemble(paths, o);
  std::mt19937_64 rng(5);
  const auto data = random_bytes(rng, 8192);
  require_ok(array_write(*arr, 65536, data.data(), data.size()));
  require_ok(arr->flush());
  require_ok(arr->close());
  const uint64_t data_at = arr->shape().data_offset * kSectorBytes + 65536;
  for (const auto& p : paths) {
    const int dev = log->device_index(p);
    REQUIRE(dev >= 0);
    int data_writes = 0, sb_writes = 0, flushes = 0;
    for (const auto& w : log->writes()) {
      if (w.device != dev) continue;
      if (w.offset == data_at) {
        ++data_writes;
        CHECK(w.data == data);  // the bytes, as the array wrote them
        CHECK(w.result == 8192);
      }
      sb_writes += w.offset == ondisk::kSbOffsetBytes;
    }
    for (const auto& f : log->flushes()) flushes += f.device == dev;
    CHECK(data_writes == 1);
    CHECK(sb_writes == 2);  // the active mark, then the clean one
    CHECK(flushes >= 3);    // after each superblock, and the array flush
  }
}
