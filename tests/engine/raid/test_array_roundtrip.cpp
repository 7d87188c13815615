// Data written through the array reads back, lands on the members where md's
// layout puts it, and survives a stop and reassemble.
#include "io/uring_backend.hpp"
#include "raid_test_util.hpp"

using namespace rs;
using namespace rs::raid;
using namespace rs::raid::test;

namespace {

// Checks every copy of `len` bytes at array offset `off` on the member files
// against `want`: the read path alone cannot catch a wrong copy, since it
// reads one copy through the same map.
void check_copies_on_members(const Array& arr, const std::vector<std::string>& paths, uint64_t off,
                             const uint8_t* want, size_t len) {
  for (uint64_t pos = off / 4096 * 4096; pos < off + len; pos += 4096) {
    const auto addr = copies_of(arr, pos / kSectorBytes);
    REQUIRE(addr.size() == (arr.shape().level == 1 ? size_t(arr.raid_disks()) : 2u));
    const uint64_t lo = std::max(pos, off), hi = std::min(pos + 4096, off + len);
    for (size_t k = 0; k < addr.size(); ++k) {
      auto got = read_file_at(paths[size_t(addr[k].disk)],
                              (arr.shape().data_offset + addr[k].sector) * kSectorBytes + (lo - pos), size_t(hi - lo));
      INFO("array offset " << lo << " copy " << k << " on member " << addr[k].disk);
      REQUIRE(std::memcmp(got.data(), want + (lo - off), got.size()) == 0);
    }
  }
}

}  // namespace

TEST_CASE("array write/read round trip at unaligned offsets, then reassemble", "[raid][roundtrip]") {
  const Config cfg = GENERATE(from_range(all_configs()));
  INFO(cfg.name);
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  auto arr = create_array(cfg, paths);
  REQUIRE(arr->state_text() == "clean");
  REQUIRE_FALSE(arr->resync_pending());
  const uint64_t size = arr->size_bytes();
  REQUIRE(size > 4 * kChunkBytes);

  // New image files read as zeros: the model starts as zeros too.
  std::vector<uint8_t> model(size, 0);
  std::mt19937_64 rng(0x5eed0000u + uint64_t(cfg.disks * 100 + cfg.level));
  struct Span {
    uint64_t off;
    size_t len;
  };
  std::vector<Span> written;
  // Few calls: each Array::write costs up to three 8 MiB bounce buffers.
  for (int i = 0; i < 14; ++i) {
    // Odd offsets and lengths, some across chunk boundaries, a few large.
    const size_t len = 1 + size_t(rng() % (i % 4 == 0 ? 600 * 1024 : 20000));
    const uint64_t off = rng() % (size - len);
    auto data = random_bytes(rng, len);
    INFO("write " << len << " bytes at " << off);
    REQUIRE(array_write(*arr, off, data.data(), len).ok());
    std::memcpy(model.data() + off, data.data(), len);
    written.push_back({off, len});
  }
  // The last bytes of the array: the edge where rounding goes wrong.
  {
    auto data = random_bytes(rng, 777);
    REQUIRE(array_write(*arr, size - 777, data.data(), 777).ok());
    std::memcpy(model.data() + size - 777, data.data(), 777);
  }
  CHECK(array_write(*arr, size - 10, model.data(), 11).error().code == Errc::invalid_argument);  // past the end

  std::vector<uint8_t> back(size);
  REQUIRE(array_read(*arr, 0, back.data(), size).ok());
  REQUIRE(first_diff(back, model) == -1);
  // Unaligned reads, too.
  for (int i = 0; i < 8; ++i) {
    const size_t len = 1 + size_t(rng() % 70000);
    const uint64_t off = rng() % (size - len);
    std::vector<uint8_t> part(len);
    REQUIRE(array_read(*arr, off, part.data(), len).ok());
    REQUIRE(std::memcmp(part.data(), model.data() + off, len) == 0);
  }
  for (const auto& w : written) check_copies_on_members(*arr, paths, w.off, model.data() + w.off, w.len);
  // Every copy got every write: nothing for check to find.
  CHECK(check_ok(*arr, false) == 0);

  // A clean stop, then a fresh assemble reads the same bytes.
  arr.reset();
  arr = assemble(paths);
  CHECK(arr->rejected().empty());
  CHECK(arr->working_members() == cfg.disks);
  CHECK_FALSE(arr->resync_pending());
  CHECK(arr->state_text() == "clean");
  CHECK(arr->size_bytes() == size);
  std::fill(back.begin(), back.end(), 0xAA);
  REQUIRE(array_read(*arr, 0, back.data(), size).ok());
  REQUIRE(first_diff(back, model) == -1);
}

TEST_CASE("assemble accepts the members in any order", "[raid][roundtrip]") {
  const Config cfg = GENERATE(from_range(all_configs()));
  INFO(cfg.name);
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  std::mt19937_64 rng(7);
  auto data = random_bytes(rng, 3 * kChunkBytes);
  {
    auto arr = create_array(cfg, paths);
    REQUIRE(array_write(*arr, 12345, data.data(), data.size()).ok());
  }
  std::vector<std::string> reversed(paths.rbegin(), paths.rend());
  auto arr = assemble(reversed);
  // Roles come from the superblocks, not from the order given.
  for (int i = 0; i < cfg.disks; ++i) CHECK(arr->slot_of(paths[size_t(i)]) == i);
  std::vector<uint8_t> back(data.size());
  REQUIRE(array_read(*arr, 12345, back.data(), back.size()).ok());
  CHECK(first_diff(back, data) == -1);
}

// ~UringBackend used to exit the ring without unregistering its fixed files;
// the kernel drops those from a workqueue, so the members' OFD locks outlived
// the Array for ~20 ms and an immediate reassemble failed with "in use by
// another process" (fixed in 0f4c54e). Every I/O through the array sets up
// and tears down a backend, so this is the common case.
TEST_CASE("the members can be assembled again as soon as the array is destroyed", "[raid][roundtrip]") {
  TempDir dir;
  const Config cfg = all_configs()[0];
  auto paths = member_paths(dir, cfg.disks);
  for (int round = 0; round < 3; ++round) {
    {
      auto arr = round == 0 ? create_array(cfg, paths) : assemble(paths);
      const char data[] = "some bytes";
      // Any I/O through the array sets up (and tears down) an io_uring backend.
      REQUIRE(array_write(*arr, 4096 * uint64_t(round), data, sizeof data).ok());
    }
    auto again = Array::assemble(levels::builtin(), paths);
    INFO("round " << round << ": " << (again ? "" : again.error().message));
    CHECK(again.ok());
  }
}

// Array::read/write used to check `offset + len > size_bytes()`, which wraps
// for offsets near 2^64: the request was accepted, the member byte offset
// (data_offset + sector) * 512 wrapped as well, and the write below changed
// array byte 0 and the member's reserved area below data_offset while both
// calls reported success (fixed in 5f4d627).
TEST_CASE("I/O at offsets that wrap around 2^64 is refused", "[raid][roundtrip]") {
  const Config cfg = all_configs()[0];
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  auto arr = create_array(cfg, paths);
  std::mt19937_64 rng(3);
  const auto head = random_bytes(rng, 8192);
  REQUIRE(array_write(*arr, 0, head.data(), head.size()).ok());
  const uint64_t data_start = arr->shape().data_offset * kSectorBytes;
  const auto reserved_before = read_file_at(paths[0], data_start - 8192, 8192);

  const uint64_t wrapping = ~uint64_t{0} - 2;  // offset + 4 wraps to 1
  uint8_t got[4] = {};
  CHECK_FALSE(array_read(*arr, wrapping, got, sizeof got).ok());
  const uint8_t junk[4] = {0xEE, 0xEE, 0xEE, 0xEE};
  CHECK_FALSE(array_write(*arr, wrapping, junk, sizeof junk).ok());

  std::vector<uint8_t> back(head.size());
  REQUIRE(array_read(*arr, 0, back.data(), back.size()).ok());
  CHECK(first_diff(back, head) == -1);
  CHECK(first_diff(read_file_at(paths[0], data_start - 8192, 8192), reserved_before) == -1);
}

// Where io_uring is disabled, make_backend falls back to SyncBackend; the
// array's I/O path (including the read retry) must work on it the same way.
TEST_CASE("the pread/pwrite fallback backend drives the array too", "[raid][roundtrip]") {
  const Config cfg = GENERATE(from_range(all_configs()));
  INFO(cfg.name);
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  auto arr = create_array(cfg, paths);
  const auto devs = devices(*arr);
  TestPort sync(*arr, std::make_unique<io::SyncBackend>(devs));
  Pipeline p(sync, 4, 160 * 1024);
  std::mt19937_64 rng(5);
  const uint64_t span = 1ull << 20;
  auto data = random_bytes(rng, span);
  std::vector<uint8_t> back(span);
  std::vector<Request> writes, reads;
  for (uint64_t off = 0; off < span;) {
    const uint32_t len = uint32_t(std::min<uint64_t>(4096 * (1 + rng() % 40), span - off));
    writes.push_back({true, off, len, data.data() + off, 0});
    reads.push_back({false, off, len, back.data() + off, 0});
    off += len;
  }
  for (int r : p.run(writes)) REQUIRE(r > 0);
  for (int r : p.run(reads)) REQUIRE(r > 0);
  CHECK(first_diff(back, data) == -1);

  // A read error on the fallback backend is retried on another copy too.
  auto failing_owned = std::make_unique<FailingBackend>(std::make_unique<io::SyncBackend>(devs));
  FailingBackend& failing = *failing_owned;
  TestPort tp(*arr, std::move(failing_owned));
  failing.fail_reads(0);
  set_policy(*arr, "btrfs-pid");  // job 0: the first copy, on member 0 at offset 0
  std::vector<uint8_t> block(4096);
  REQUIRE(submit_rw(tp, false, 0, block.data(), 4096, 0) == 4096);
  CHECK(failing.injected() == 1);
  CHECK(std::memcmp(block.data(), data.data(), 4096) == 0);
  // One read error is below max_read_errors: counted, the member stays.
  CHECK(state(*arr, 0) == MemberState::in_sync);
  CHECK(arr->runtime(0).counters.snapshot().read_errors == 1);
}
