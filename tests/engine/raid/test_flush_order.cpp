// The order md keeps between metadata and data, proved on a recorded log of
// every member write and flush (io/powercut_log.hpp) of an array's life:
// assemble, writes, an array flush, the bitmap daemon clearing chunks, more
// writes, a clean stop. Each rule is checked as a power cut would test it:
// at the moment a write is issued, what must already be certain to be on
// the media (PowerCutLog::durable) for a cut right there to be safe.
//  - a chunk's bit is set on every member's media before a data write to
//    the chunk is issued (md: bitmap page written PREFLUSH|FUA, then data);
//  - when a clean mark (resync_offset MaxSector) is issued to any member,
//    every data write issued before it is on its member's media (md writes
//    superblocks with PREFLUSH|FUA once writes_pending is 0);
//  - when a bitmap page clearing a chunk's bit is issued, every data write
//    to the chunk is on the media;
//  - the bitmap records when bits were last cleared (events_cleared).
#include <chrono>
#include <thread>

#include "io/powercut_log.hpp"
#include "ondisk/bitmap.hpp"
#include "raid_test_util.hpp"

using namespace rs;
using namespace rs::raid;
using namespace rs::raid::test;
using io::PowerCutLog;

namespace {

constexpr uint64_t kMetaBytes = 1 << 20;

// One array write of the recording: where its member writes start in the
// log, and the bitmap chunks it dirties.
struct Written {
  size_t mark;
  uint64_t chunk_lo, chunk_hi;  // inclusive
};

struct Recorded {
  std::vector<std::string> paths;
  std::vector<std::vector<uint8_t>> base;  // each member's metadata area when recording began
  std::shared_ptr<PowerCutLog> log = std::make_shared<PowerCutLog>();
  std::vector<Written> writes;
  uint64_t data_at = 0, chunks = 0;
  uint64_t sb_events = 0;
};

void write_some(Array& arr, Recorded& r, std::mt19937_64& rng, int n) {
  const uint64_t cs = kBitmapChunk / kSectorBytes;
  for (int i = 0; i < n; ++i) {
    const uint32_t len = 4096 * uint32_t(1 + rng() % 8);
    const uint64_t off = (rng() % ((arr.size_bytes() - len) / 4096)) * 4096;
    const auto [lo, hi] = arr.personality().bitmap_range(off / kSectorBytes, (off + len) / kSectorBytes);
    r.writes.push_back({r.log->mark(r.writes.size()), lo / cs, (hi - 1) / cs});
    const auto data = random_bytes(rng, len);
    require_ok(array_write(arr, off, data.data(), data.size()));
  }
}

Recorded record_life(const Config& s, TempDir& dir) {
  Recorded r;
  r.paths = member_paths(dir, s.disks);
  {
    auto created = create_with_bitmap(s, r.paths);
    r.data_at = created->shape().data_offset * kSectorBytes;
    r.chunks = created->bitmap()->chunks();
    require_ok(created->close());
  }
  for (const auto& p : r.paths) r.base.push_back(read_file_at(p, 0, kMetaBytes));
  AssembleOptions ao;
  ao.observer = r.log;
  auto arr = assemble(r.paths, ao);
  require_ok(arr->tunables().set("daemon_sleep", "1"));
  std::mt19937_64 rng(91);
  write_some(*arr, r, rng, 12);
  require_ok(arr->flush());
  write_some(*arr, r, rng, 6);
  // Idle for longer than daemon_sleep: the daemon clears the chunks.
  std::this_thread::sleep_for(std::chrono::milliseconds(1700));
  write_some(*arr, r, rng, 6);
  r.log->mark(~uint64_t{0});
  require_ok(arr->close());
  r.sb_events = arr->superblock().events;
  return r;
}

int member_of(const Recorded& r, const PowerCutLog::Write& w) {
  const std::string& dev = r.log->devices()[size_t(w.device)];
  for (size_t i = 0; i < r.paths.size(); ++i)
    if (r.paths[i] == dev) return int(i);
  return -1;
}

// Member m's metadata area as it is certain to be on its media at a cut
// before event `cut`: the base and every write certain by then, in order.
std::vector<uint8_t> certain_meta(const Recorded& r, int m, size_t cut) {
  std::vector<uint8_t> img = r.base[size_t(m)];
  for (const auto& w : r.log->writes()) {
    if (w.issued >= cut) break;
    if (member_of(r, w) != m || w.offset >= kMetaBytes || !r.log->durable(w, cut)) continue;
    std::memcpy(img.data() + w.offset, w.data.data(), std::min<size_t>(w.data.size(), kMetaBytes - w.offset));
  }
  return img;
}

bool bit_in(const uint8_t* bits, uint64_t chunk) {
  return bits[chunk / 8] & (1u << (chunk % 8));
}

// The member data writes of array write k: between its mark and the next.
std::vector<const PowerCutLog::Write*> data_writes_of(const Recorded& r, size_t k) {
  const size_t from = r.writes[k].mark;
  const size_t to = k + 1 < r.writes.size() ? r.writes[k + 1].mark : ~size_t{0};
  std::vector<const PowerCutLog::Write*> v;
  for (const auto& w : r.log->writes())
    if (w.issued > from && w.issued < to && w.offset >= r.data_at) v.push_back(&w);
  return v;
}

}  // namespace

TEST_CASE("flush order: bitmap bits, then data; data on every member, then clean marks and cleared bits",
          "[raid][bitmap][powercut]") {
  const Config s = GENERATE(Config{"raid1 x2", 1, 2, ""}, Config{"raid10 n2 x4", 10, 4, "n2"},
                            Config{"raid5 x4", 5, 4, "left-symmetric"});
  INFO(s.name);
  TempDir dir;
  const Recorded r = record_life(s, dir);

  // 1. A data write is issued only once its chunks' bits are certain on
  //    every member (a cut right then leaves the resync something to do).
  uint64_t unset = 0, checked = 0;
  for (size_t k = 0; k < r.writes.size(); ++k) {
    const auto ws = data_writes_of(r, k);
    REQUIRE_FALSE(ws.empty());
    for (int m = 0; m < int(r.paths.size()); ++m) {
      const auto img = certain_meta(r, m, ws.front()->issued);
      for (uint64_t c = r.writes[k].chunk_lo; c <= r.writes[k].chunk_hi; ++c, ++checked)
        unset += !bit_in(img.data() + kBitmapAt + ondisk::kBitmapSuperBytes, c);
    }
  }
  CHECK(checked > 0);
  CHECK(unset == 0);

  // 2. When a clean mark is issued to a member, every data write before it
  //    is certain on its own member's media: no member says clean while
  //    another's data can still be lost.
  uint64_t clean_marks = 0, data_unsure = 0;
  for (const auto& sbw : r.log->writes()) {
    if (sbw.offset != ondisk::kSbOffsetBytes) continue;
    const auto sb = ondisk::decode(sbw.data, 16ull << 20);
    REQUIRE(sb.ok());
    if (sb->resync_offset != ondisk::kMaxSector) continue;
    ++clean_marks;
    for (const auto& w : r.log->writes())
      if (w.issued < sbw.issued && w.offset >= r.data_at && !r.log->durable(w, sbw.issued)) ++data_unsure;
  }
  CHECK(clean_marks == r.paths.size());  // the close
  CHECK(data_unsure == 0);

  // 3. A bitmap page that clears a chunk's bit is issued only once every
  //    data write to the chunk is certain.
  uint64_t cleared = 0, clear_too_early = 0;
  for (const auto& pw : r.log->writes()) {
    if (pw.offset != kBitmapAt || pw.data.size() < ondisk::kBitmapSuperBytes) continue;
    const uint8_t* bits = pw.data.data() + ondisk::kBitmapSuperBytes;
    for (size_t k = 0; k < r.writes.size(); ++k)
      for (uint64_t c = r.writes[k].chunk_lo; c <= r.writes[k].chunk_hi; ++c) {
        if (bit_in(bits, c)) continue;
        for (const auto* w : data_writes_of(r, k)) {
          if (w->issued >= pw.issued) continue;
          ++cleared;
          clear_too_early += !r.log->durable(*w, pw.issued);
        }
      }
  }
  CHECK(cleared > 0);  // the daemon and the close cleared chunks that had writes
  CHECK(clear_too_early == 0);

  // 4. The bitmap says when bits were last cleared.
  for (const auto& p : r.paths) {
    const auto head = read_file_at(p, kBitmapAt, ondisk::kBitmapSuperBytes);
    ondisk::Uuid uuid;
    std::memcpy(uuid.data(), head.data() + 8, uuid.size());
    const auto bsb = ondisk::decode_bitmap(head, uuid, kMetaBytes - kBitmapAt);
    REQUIRE(bsb.ok());
    CHECK(bsb->events_cleared > 0);
    CHECK(bsb->events_cleared <= r.sb_events);
  }
}
