// The write-intent bitmap: md's format on disk, a chunk's bit durable before
// any write to it reaches a member, bits cleared once chunks go idle, a
// resync after an unclean stop that covers only the dirty chunks, seed
// 001's io_opt sizing of the last page, and refusals that write nothing.
#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "ondisk/bitmap.hpp"
#include "raid_test_util.hpp"

using namespace rs;
using namespace rs::raid;
using namespace rs::raid::test;

namespace {

// The bit of `chunk` as a member file holds it on disk.
bool disk_bit(const std::string& path, uint64_t chunk) {
  const auto b = read_file_at(path, kBitmapAt + ondisk::kBitmapSuperBytes + chunk / 8, 1);
  return b[0] & (1u << (chunk % 8));
}

uint64_t disk_dirty(const std::string& path, uint64_t chunks) {
  const auto bits = read_file_at(path, kBitmapAt + ondisk::kBitmapSuperBytes, (chunks + 7) / 8);
  uint64_t n = 0;
  for (uint64_t c = 0; c < chunks; ++c) n += (bits[c / 8] >> (c % 8)) & 1;
  return n;
}

// What BitChecker counted; owned by the test so it outlives the port.
struct BitCounts {
  std::atomic<uint64_t> checked{0}, unset{0};
};

// A backend that, when a data write is queued to a member, looks at that
// member's bitmap on disk: the chunk's bit must already be set there.
class BitChecker final : public io::Backend {
 public:
  BitChecker(std::unique_ptr<io::Backend> inner, std::vector<std::string> paths, uint64_t data_offset_bytes,
             BitCounts& counts)
      : inner_(std::move(inner)), paths_(std::move(paths)), data_at_(data_offset_bytes), counts_(counts) {}
  void queue(io::MemberIo& io) override {
    if (io.write && io.offset >= data_at_) {
      const uint64_t array_sector = (io.offset - data_at_) / 512;  // raid1: the array sector
      const uint64_t chunk = array_sector / (kBitmapChunk / 512);
      counts_.unset += !disk_bit(paths_[size_t(io.member)], chunk);
      ++counts_.checked;
    }
    inner_->queue(io);
  }
  void submit() override { inner_->submit(); }
  void queue_timer(io::MemberIo& io, uint64_t d) override { inner_->queue_timer(io, d); }
  unsigned reap(unsigned m) override { return inner_->reap(m); }
  unsigned reap_until(unsigned m, uint64_t d) override { return inner_->reap_until(m, d); }
  bool arm_wakeup(int fd) override { return inner_->arm_wakeup(fd); }
  void replace_member(int i, io::MemberDevice* d) override { inner_->replace_member(i, d); }
  uint64_t now_ns() override { return inner_->now_ns(); }
  uint64_t batch_now_ns() override { return inner_->batch_now_ns(); }
  unsigned in_flight() const override { return inner_->in_flight(); }
  std::string describe() const override { return inner_->describe(); }

 private:
  std::unique_ptr<io::Backend> inner_;
  std::vector<std::string> paths_;
  uint64_t data_at_;
  BitCounts& counts_;
};

}  // namespace

TEST_CASE("a chunk's bit is on disk before a write to it reaches a member", "[raid][bitmap]") {
  const Config cfg = all_configs()[0];  // raid1: member sector = array sector
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  auto arr = create_with_bitmap(cfg, paths);
  const uint64_t chunks = arr->bitmap()->chunks();
  REQUIRE(chunks == ondisk::bitmap_chunks(arr->shape().dev_sectors, kBitmapChunk));
  CHECK(disk_dirty(paths[0], chunks) == 0);
  BitCounts bc;  // the port owns (and destroys) the checker; the counts outlive it
  auto checker =
      std::make_unique<BitChecker>(arr->make_backend(8), paths, arr->shape().data_offset * 512, bc);
  {
    TestPort tp(*arr, std::move(checker));
    std::mt19937_64 rng(61);
    std::vector<uint8_t> block(4096);
    for (int i = 0; i < 64; ++i) {
      const uint64_t off = (rng() % (arr->size_bytes() / 4096)) * 4096;
      fill_random(rng, block.data(), block.size());
      REQUIRE(submit_rw(tp, true, off, block.data(), 4096) == 4096);
    }
  }
  CHECK(bc.checked.load() == 128);  // 64 writes x 2 mirrors
  CHECK(bc.unset.load() == 0);
  CHECK(arr->bitmap()->dirty_bits() > 0);
  CHECK(disk_dirty(paths[0], chunks) == arr->bitmap()->dirty_bits());
  CHECK(disk_dirty(paths[1], chunks) == arr->bitmap()->dirty_bits());
  // A clean stop leaves a clean bitmap.
  require_ok(arr->close());
  CHECK(disk_dirty(paths[0], chunks) == 0);
  CHECK(disk_dirty(paths[1], chunks) == 0);
}

TEST_CASE("the daemon clears a chunk's bit once it was idle for daemon_sleep", "[raid][bitmap]") {
  const Config cfg = all_configs()[2];  // raid10 n2 x4
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  auto arr = create_with_bitmap(cfg, paths);
  require_ok(arr->tunables().set("daemon_sleep", "1"));
  std::vector<uint8_t> data(256 * 1024, 0x5a);
  require_ok(array_write(*arr, 3 << 20, data.data(), data.size()));
  const uint64_t dirty = arr->bitmap()->dirty_bits();
  CHECK(dirty == 256 * 1024 / kBitmapChunk);
  CHECK(disk_dirty(paths[0], arr->bitmap()->chunks()) == dirty);
  // Cleared within 1.5 x daemon_sleep of the last write (give it 5 s).
  for (int i = 0; i < 50 && disk_dirty(paths[0], arr->bitmap()->chunks()) > 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  CHECK(arr->bitmap()->dirty_bits() == 0);
  for (const auto& p : paths) CHECK(disk_dirty(p, arr->bitmap()->chunks()) == 0);
}

TEST_CASE("after an unclean stop only the dirty chunks are resynced", "[raid][bitmap][resync]") {
  const Config cfg = GENERATE(Config{"raid1 x2", 1, 2, ""}, Config{"raid10 n2 x4", 10, 4, "n2"});
  INFO(cfg.name);
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  auto arr = create_with_bitmap(cfg, paths, 64ull << 20);
  std::mt19937_64 rng(62);
  // Writes to a few places: their chunks' bits stay set (daemon_sleep 5 s).
  for (uint64_t off : {1ull << 20, 9ull << 20, 30ull << 20}) {
    auto d = random_bytes(rng, 100000);
    require_ok(array_write(*arr, off, d.data(), d.size()));
  }
  const uint64_t dirty = arr->bitmap()->dirty_bits();
  REQUIRE(dirty >= 3);
  // The crash: copies of the members while the array is active.
  auto crash = member_paths(dir, cfg.disks, "crash");
  for (int i = 0; i < cfg.disks; ++i) std::filesystem::copy_file(paths[size_t(i)], crash[size_t(i)]);
  const Shape shape = arr->shape();
  arr.reset();
  // A difference in a chunk that was never written: the resync must not
  // touch it (it is not dirty), so check still finds it afterwards.
  const uint64_t clean_dev_sector = (50ull << 20) / 512;  // member 1's copy of an idle chunk
  auto junk = random_bytes(rng, 4096);
  write_file_at(crash[1], (shape.data_offset + clean_dev_sector) * 512, junk.data(), 4096);

  arr = assemble(crash);
  REQUIRE(arr->resync_pending());
  auto resync = arr->resync_task();
  REQUIRE(resync != nullptr);
  require_ok(resync->wait());
  const uint64_t resynced = resync->progress().total;
  INFO("resynced " << resynced << " bytes, " << dirty << " dirty chunks of " << kBitmapChunk);
  CHECK(resynced > 0);
  CHECK(resynced <= dirty * kBitmapChunk);
  CHECK_FALSE(arr->resync_pending());
  CHECK(check_ok(*arr, false) == 8);  // the idle chunk's difference is still there
}

TEST_CASE("bits a resync still needs survive a clean stop", "[raid][bitmap][resync]") {
  // An initial resync on members that held data, interrupted early: every
  // bit set (create sets them all), the resync point at 1 MiB, the copies
  // differing past it. md keeps such bits (NEEDED) until the resync covers
  // them; cleared at the stop, the next resync would have nothing to do.
  const Config cfg = all_configs()[0];  // raid1 x2
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  uint64_t chunks = 0;
  Shape shape;
  {
    auto arr = create_with_bitmap(cfg, paths);
    chunks = arr->bitmap()->chunks();
    shape = arr->shape();
  }
  std::mt19937_64 rng(63);
  const std::vector<uint8_t> all_set((chunks + 7) / 8, 0xff);
  for (const auto& p : paths) {
    write_file_at(p, kBitmapAt + ondisk::kBitmapSuperBytes, all_set.data(), all_set.size());
    require_ok(edit_superblock(p, [](ondisk::Superblock& sb) { sb.resync_offset = 2048; }));
  }
  const uint64_t past = (shape.data_offset + 4096) * 512;  // 2 MiB into the data: past the point
  const auto junk = random_bytes(rng, 1 << 20);
  write_file_at(paths[1], past, junk.data(), junk.size());
  {
    AssembleOptions o;
    o.resync = false;
    auto arr = assemble(paths, o);
    REQUIRE(arr->resync_pending());
    require_ok(arr->close());
  }
  CHECK(disk_dirty(paths[0], chunks) == chunks);
  CHECK(disk_dirty(paths[1], chunks) == chunks);
  auto arr = assemble(paths);
  REQUIRE(arr->resync_task());
  require_ok(arr->resync_task()->wait());
  CHECK(check_ok(*arr, false) == 0);  // the resync covered the differing chunks
}

TEST_CASE("the last bitmap page write is sized to io_opt when it fits (seed 001)",
          "[raid][bitmap][seed001]") {
  // Seed 001's bitmap: 57228 bits, so 256 + 7154 = 7410 bytes: two pages,
  // the last holding 3314 bytes: 3584 on a 512-byte-sector member, 4096
  // with io_opt 4096 (the patch's biosnoop).
  const Config cfg = all_configs()[0];
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  const uint64_t data_bytes = 57228ull * 4096;
  auto arr = create_with_bitmap(cfg, paths, data_bytes + (1 << 20), 4096);
  REQUIRE(arr->bitmap()->chunks() == 57228);
  REQUIRE(arr->bitmap()->pages() == 2);
  REQUIRE(arr->bitmap()->page_bytes(1) == 3314);
  std::vector<uint8_t> block(4096, 0x11);
  const uint64_t last_page_chunk = (4096 - ondisk::kBitmapSuperBytes) * 8 + 100;  // a bit in page 1
  // A first write marks the array active, which writes page 0 (the bitmap
  // superblock, a whole page) with the superblocks: counted from after it.
  require_ok(array_write(*arr, 0, block.data(), 4096));
  const auto before = arr->bitmap()->write_sizes();
  auto count = [&](uint32_t bytes) {
    auto sizes = arr->bitmap()->write_sizes();
    const uint64_t was = before.count(bytes) ? before.at(bytes) : 0;
    return (sizes.count(bytes) ? sizes[bytes] : 0) - was;
  };
  SECTION("without io_opt sizing") {
    require_ok(arr->tunables().set("bitmap_io_opt", "off"));
    require_ok(arr->tunables().set("rd0/io_opt", "4096"));
    require_ok(array_write(*arr, last_page_chunk * 4096, block.data(), 4096));
    CHECK(count(3584) >= 2);  // one per member
    CHECK(count(4096) == 0);
  }
  SECTION("with io_opt sizing and io_opt 4096 on both members") {
    require_ok(arr->tunables().set("rd0/io_opt", "4096"));
    require_ok(arr->tunables().set("rd1/io_opt", "4096"));
    require_ok(array_write(*arr, last_page_chunk * 4096, block.data(), 4096));
    CHECK(count(4096) >= 2);
    CHECK(count(3584) == 0);
  }
}

TEST_CASE("bad bitmaps are refused and nothing is written", "[raid][bitmap]") {
  const Config cfg = all_configs()[0];
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  CreateOptions o;
  o.level = 1;
  o.raid_disks = 2;
  o.create_files_bytes = 16ull << 20;
  o.bitmap = BitmapMode::internal;
  SECTION("a chunk that is not a power of two, or smaller than a page") {
    for (uint32_t chunk : {3u << 20, 2048u}) {
      o.bitmap_chunk_bytes = chunk;
      auto arr = Array::create(levels::builtin(), o, paths);
      REQUIRE_FALSE(arr.ok());
      CHECK(arr.error().code == Errc::invalid_argument);
      CHECK(arr.error().message.find("power of two") != std::string::npos);
      CHECK_FALSE(std::filesystem::exists(paths[0]));
    }
  }
  SECTION("bits that would overlap the data") {
    // 4 KiB chunks over 40 GiB (sparse files): 10 M bits, more than 1 MiB.
    o.create_files_bytes = 40ull << 30;
    o.bitmap_chunk_bytes = 4096;
    auto arr = Array::create(levels::builtin(), o, paths);
    REQUIRE_FALSE(arr.ok());
    CHECK(arr.error().message.find("overlap the data") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(paths[0]));
  }
  SECTION("a corrupt bitmap superblock") {
    { auto arr = create_with_bitmap(cfg, paths); }
    const uint8_t zero[4] = {};
    for (const auto& p : paths) write_file_at(p, kBitmapAt, zero, 4);  // the magic
    const auto before = read_file_at(paths[0], 0, 1 << 20);
    auto arr = Array::assemble(levels::builtin(), paths);
    REQUIRE_FALSE(arr.ok());
    CHECK(arr.error().message.find("bitmap magic") != std::string::npos);
    CHECK(first_diff(read_file_at(paths[0], 0, 1 << 20), before) == -1);
  }
}
