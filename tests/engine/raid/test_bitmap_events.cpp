// The bitmap superblock's event counter follows the array superblock's on
// every superblock write, as md's md_update_sb does (it writes the bitmap
// superblock with the new count before the members' superblocks). The
// kernel reads a bitmap whose events are older than the array's as out of
// date and resyncs the whole array (md_bitmap_read_sb: "bitmap file is out
// of date ... forcing full recovery"), so a count that trails costs a full
// resync when the kernel assembles the array.
#include <filesystem>

#include "ondisk/bitmap.hpp"
#include "raid_test_util.hpp"

using namespace rs;
using namespace rs::raid;
using namespace rs::raid::test;

namespace {

constexpr uint64_t kMemberFileBytes = 16ull << 20;  // create_with_bitmap's default

struct OnDiskEvents {
  uint64_t array = 0, bitmap = 0;
};

// The event counters member file `path` holds: its md superblock's and its
// bitmap superblock's.
OnDiskEvents events_on_disk(const std::string& path) {
  OnDiskEvents e;
  const auto block = read_file_at(path, ondisk::kSbOffsetBytes, 4096);
  const auto sb = ondisk::decode(block, std::filesystem::file_size(path));
  INFO(path << ": " << rs::test::error_text(sb));
  REQUIRE(sb.ok());
  e.array = sb->events;
  const auto head = read_file_at(path, kBitmapAt, ondisk::kBitmapSuperBytes);
  const uint64_t space = sb->data_offset * 512 - kBitmapAt;
  const auto bsb = ondisk::decode_bitmap(head, sb->set_uuid, space);
  INFO(path << ": " << rs::test::error_text(bsb));
  REQUIRE(bsb.ok());
  e.bitmap = bsb->events;
  return e;
}

// Each of `paths` (the members still written to) says the same count in
// both superblocks; returns the array's count (the same on every member).
uint64_t require_same_events(const std::vector<std::string>& paths, const char* when) {
  uint64_t array_events = 0;
  for (const auto& p : paths) {
    const OnDiskEvents e = events_on_disk(p);
    INFO(when << ", " << p << ": superblock events " << e.array << ", bitmap events " << e.bitmap);
    CHECK(e.bitmap == e.array);
    if (array_events == 0) array_events = e.array;
    CHECK(e.array == array_events);
  }
  return array_events;
}

}  // namespace

TEST_CASE("the bitmap superblock's events follow the array superblock's on every superblock write",
          "[raid][bitmap]") {
  const Config cfg = GENERATE(Config{"raid1 x2", 1, 2, ""}, Config{"raid10 n2 x4", 10, 4, "n2"},
                              Config{"raid5 x4", 5, 4, ""});
  INFO(cfg.name);
  TempDir dir;
  auto paths = member_paths(dir, cfg.disks);
  auto arr = create_with_bitmap(cfg, paths, kMemberFileBytes);
  const uint64_t created = require_same_events(paths, "after create");

  // The first write marks the array active (a superblock write) before it
  // reaches a member.
  std::mt19937_64 rng(7);
  const auto data = random_bytes(rng, 64 * 1024);
  require_ok(array_write(*arr, 0, data.data(), data.size()));
  const uint64_t active = require_same_events(paths, "after a write, open");
  CHECK(active > created);

  // A member's failure is recorded on the others.
  require_ok(arr->fail_member(cfg.disks - 1, "test"));
  std::vector<std::string> left(paths.begin(), paths.end() - 1);
  const uint64_t failed = require_same_events(left, "after a member failed");
  CHECK(failed > active);

  // The clean mark at close.
  require_ok(arr->close());
  const uint64_t closed = require_same_events(left, "after close");
  CHECK(closed > failed);
  arr.reset();

  // Assembled again (degraded): the same holds for its updates.
  arr = assemble(left, [] {
    AssembleOptions o;
    o.run = true;  // one member is missing
    return o;
  }());
  require_ok(array_write(*arr, 128 * 1024, data.data(), data.size()));
  require_ok(arr->close());
  arr.reset();
  CHECK(require_same_events(left, "after a degraded write and close") > closed);
}
