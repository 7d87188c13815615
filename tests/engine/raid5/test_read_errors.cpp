// Read-error correction on RAID5, as md's raid5 does it (R5_ReadError, then
// R5_ReWrite and a read back): a member that cannot read one block keeps
// its place, the block is computed from the rest of the stripe, written
// back and counted; a write whose pre-read fails plans again without that
// block and still succeeds; check and repair rewrite the block and finish;
// past max_read_errors the member is failed. The bad blocks are
// injected with a FaultPlan (garbage on the media, EIO until written).
#include <algorithm>
#include <cstring>

#include "io/fault_backend.hpp"
#include "layout/raid5.hpp"
#include "raid5_test_util.hpp"

using namespace rs;
using namespace rs::raid5::test;

namespace {

constexpr uint32_t kBlock = 4096;

struct Spot {
  int member = -1;
  uint64_t dev_sector = 0;
  uint64_t file_offset = 0;
};

// The data block of array byte `array_offset`.
Spot data_spot(raid::Array& arr, uint64_t array_offset) {
  const auto a = layout::raid5_compute_sector(personality(arr).geometry(), array_offset / raid::kSectorBytes);
  return {a.dd_idx, a.sector, (arr.shape().data_offset + a.sector) * raid::kSectorBytes};
}

// The parity block of the stripe that holds array byte `array_offset`.
Spot parity_spot(raid::Array& arr, uint64_t array_offset) {
  const auto& geo = personality(arr).geometry();
  const auto a = layout::raid5_compute_sector(geo, array_offset / raid::kSectorBytes);
  return {layout::raid5_parity_disk(geo, a.sector / geo.chunk_sectors), a.sector,
          (arr.shape().data_offset + a.sector) * raid::kSectorBytes};
}

void make_unreadable(io::FaultPlan& plan, const std::string& path, uint64_t file_offset) {
  const std::vector<uint8_t> junk(kBlock, 0xBD);
  write_file_at(path, file_offset, junk.data(), kBlock);
  plan.add({path, file_offset, kBlock, true, false, -1, EIO, true});
}

std::vector<telemetry::Event> member_events(raid::Array& arr, const std::string& value) {
  std::vector<telemetry::Event> v;
  for (auto& e : arr.events().since(0))
    if (e.kind == "member" && e.value == value) v.push_back(e);
  return v;
}

struct Fixture {
  TempDir dir;
  std::vector<std::string> paths;
  std::unique_ptr<raid::Array> arr;
  std::vector<uint8_t> model;
  std::shared_ptr<io::FaultPlan> plan = std::make_shared<io::FaultPlan>();

  explicit Fixture(int disks, uint64_t seed) : paths(member_paths(dir, disks)) {
    arr = create_raid5({disks, 2}, paths);
    std::mt19937_64 rng(seed);
    model = random_bytes(rng, arr->size_bytes());
    require_ok(array_write(*arr, 0, model.data(), model.size()));
    arr.reset();
    raid::AssembleOptions opt;
    opt.faults = plan;
    arr = assemble(paths, opt);
  }
  const std::string& path(int m) const { return paths[size_t(m)]; }
};

// The block was rewritten with `want`, the member is in, counted, and said.
void check_corrected(Fixture& f, const Spot& bad, const uint8_t* want) {
  CHECK(state(*f.arr, bad.member) == raid::MemberState::in_sync);
  const auto on_media = read_file_at(f.path(bad.member), bad.file_offset, kBlock);
  CHECK(std::memcmp(on_media.data(), want, kBlock) == 0);
  const auto c = f.arr->runtime(bad.member).counters.snapshot();
  CHECK(c.read_errors >= 1);
  CHECK(c.corrected_errors == kBlock / raid::kSectorBytes);
  const auto corrected = member_events(*f.arr, "corrected");
  REQUIRE(corrected.size() == 1);
  CHECK(corrected[0].name == f.path(bad.member));
  CHECK(corrected[0].message.find("read error at device sector " + std::to_string(bad.dev_sector) +
                                  " corrected from ") != std::string::npos);
  CHECK(member_events(*f.arr, "faulty").empty());
}

}  // namespace

TEST_CASE("raid5: a read error is reconstructed for the reader and rewritten; the member stays",
          "[raid5][read-errors]") {
  Fixture f(4, 41);
  const uint64_t at = 3 * kChunkBytes + 8192;  // stripe 1
  const Spot bad = data_spot(*f.arr, at);
  make_unreadable(*f.plan, f.path(bad.member), bad.file_offset);
  {
    TestPort tp(*f.arr);
    std::vector<uint8_t> buf(kBlock);
    REQUIRE(submit_rw(tp, false, at, buf.data(), kBlock) == int(kBlock));
    CHECK(std::memcmp(buf.data(), f.model.data() + at, kBlock) == 0);
  }
  CHECK(f.plan->failed(f.path(bad.member), false) >= 1);
  require_ok(f.arr->close());
  check_corrected(f, bad, f.model.data() + at);
  CHECK(check_ok(*f.arr, false) == 0);
  read_matches(*f.arr, f.model);
}

TEST_CASE("raid5: a write whose pre-read fails plans again, succeeds, and the member stays",
          "[raid5][read-errors]") {
  Fixture f(5, 42);
  // 5 members, one 4 KiB block written: rmw pre-reads the old block and the
  // parity; the parity block cannot be read.
  const uint64_t at = 8192;
  const Spot bad = parity_spot(*f.arr, at);
  make_unreadable(*f.plan, f.path(bad.member), bad.file_offset);
  std::mt19937_64 rng(43);
  const auto data = random_bytes(rng, kBlock);
  {
    TestPort tp(*f.arr);
    REQUIRE(submit_rw(tp, true, at, const_cast<uint8_t*>(data.data()), kBlock) == int(kBlock));
  }
  std::memcpy(f.model.data() + at, data.data(), kBlock);
  CHECK(f.plan->failed(f.path(bad.member), false) >= 1);
  require_ok(f.arr->close());
  CHECK(state(*f.arr, bad.member) == raid::MemberState::in_sync);
  CHECK(member_events(*f.arr, "faulty").empty());
  // The parity written with the new data covers the block: nothing differs.
  CHECK(check_ok(*f.arr, false) == 0);
  read_matches(*f.arr, f.model);
  // And it is still right with the data member left out.
  const Spot d = data_spot(*f.arr, at);
  require_ok(f.arr->fail_member(d.member, "test"));
  read_matches(*f.arr, f.model);
}

TEST_CASE("raid5: check and repair rewrite an unreadable block from the stripe and finish",
          "[raid5][read-errors]") {
  const bool repair = GENERATE(false, true);
  const bool parity = GENERATE(false, true);
  INFO((repair ? "repair" : "check") << (parity ? ", parity block bad" : ", data block bad"));
  Fixture f(4, 44);
  const uint64_t at = 5 * kChunkBytes + 4096;
  const Spot bad = parity ? parity_spot(*f.arr, at) : data_spot(*f.arr, at);
  // What the block must hold: the data, or the XOR of the stripe's data.
  std::vector<uint8_t> want(kBlock);
  if (!parity) {
    std::memcpy(want.data(), f.model.data() + at, kBlock);
  } else {
    for (int m = 0; m < 4; ++m) {
      if (m == bad.member) continue;
      const auto other = read_file_at(f.path(m), bad.file_offset, kBlock);
      for (uint32_t i = 0; i < kBlock; ++i) want[i] ^= other[i];
    }
  }
  make_unreadable(*f.plan, f.path(bad.member), bad.file_offset);
  CHECK(check_ok(*f.arr, repair) == 0);
  CHECK(f.plan->failed(f.path(bad.member), false) >= 1);
  check_corrected(f, bad, want.data());
  read_matches(*f.arr, f.model);
}

TEST_CASE("raid5: past max_read_errors the member is failed, and the event says so",
          "[raid5][read-errors]") {
  Fixture f(4, 45);
  require_ok(f.arr->tunables().set("max_read_errors", "1"));
  // Two blocks of one member, read one after the other.
  const Spot first = data_spot(*f.arr, 0);
  const int m = first.member;
  uint64_t second_at = kChunkBytes;
  while (data_spot(*f.arr, second_at).member != m) second_at += kChunkBytes;
  int n = 0;
  for (uint64_t at : {uint64_t(0), second_at}) {
    const Spot bad = data_spot(*f.arr, at);
    make_unreadable(*f.plan, f.path(m), bad.file_offset);
    ++n;
    TestPort tp(*f.arr);
    std::vector<uint8_t> buf(kBlock);
    INFO("read error " << n);
    REQUIRE(submit_rw(tp, false, at, buf.data(), kBlock) == int(kBlock));
    CHECK(std::memcmp(buf.data(), f.model.data() + at, kBlock) == 0);
    require_ok(f.arr->close());
    CHECK(state(*f.arr, m) == (n == 1 ? raid::MemberState::in_sync : raid::MemberState::faulty));
  }
  CHECK(member_events(*f.arr, "corrected").size() == 1);
  const auto faulty = member_events(*f.arr, "faulty");
  REQUIRE(faulty.size() == 1);
  CHECK(faulty[0].name == f.path(m));
  CHECK(faulty[0].message.find("2 read errors") != std::string::npos);
  CHECK(faulty[0].message.find("max_read_errors (1)") != std::string::npos);
  read_matches(*f.arr, f.model);
}
