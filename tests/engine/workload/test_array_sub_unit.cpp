// I/O not aligned to an array's unit (512 B on RAID1 and RAID10, one
// 4 KiB stripe-cache page on RAID5), as fio users send it to a block
// device (issue 25, item 2). With direct=0 (fio's default) such I/O is
// served by read-modify-write of whole units, as the page cache serves it,
// and changes exactly the job's bytes, also with two jobs writing ranges
// that share units at the same time; with direct=1 a job whose bs or
// offset is not a multiple of the unit is refused before the run (O_DIRECT
// on a block device fails such I/O with EINVAL).
//
// Expected contents come from the prefill (a known pattern written before
// the job) and from the verify blocks the job writes: every block carries
// its own header and checksum (verify.hpp), so verify_check() on the bytes
// read back says whether the job's block is intact, with no state from the
// run.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cerrno>
#include <cstring>
#include <vector>

#include "../../common/result_helpers.hpp"
#include "../../common/temp_dir.hpp"
#include "fio_run_on_file.hpp"
#include "io/member_device.hpp"
#include "levels/levels.hpp"
#include "raid/array.hpp"
#include "raid/sync_io.hpp"
#include "fio/job_parser.hpp"
#include "workload/runner.hpp"
#include "workload/targets.hpp"
#include "workload/verify.hpp"

using namespace rs;
using namespace rs::workload;
using namespace rs::fio;
using rs::test::TempDir;

// The helpers' own namespace: a unity build compiles this file with others
// that have helpers of the same names.
namespace sub_unit {

using fio_test::jobs_from_cli;
using fio_test::run_checked;

struct Level {
  int level, disks;
  uint32_t layout;
  uint32_t unit;  // what the level can address: md's sector, or RAID5's stripe-cache page
};
const Level kRaid1{1, 2, 0, 512}, kRaid10{10, 4, 0x102, 512}, kRaid5{5, 3, 2, 4096};

std::unique_ptr<raid::Array> make_array(const TempDir& dir, const Level& l) {
  raid::CreateOptions o;
  o.level = l.level;
  o.raid_disks = l.disks;
  const raid::LevelInfo& info = *levels::builtin().find(l.level);
  if (info.has_layouts()) o.layout = l.layout;
  if (info.chunked) o.chunk_bytes = 64 * 1024;
  o.create_files_bytes = 24ull << 20;
  o.bitmap = raid::BitmapMode::none;
  std::vector<std::string> paths;
  for (int i = 0; i < l.disks; ++i) paths.push_back(dir.file("m" + std::to_string(i) + ".img"));
  auto arr = raid::Array::create(levels::builtin(), o, paths);
  INFO((arr ? std::string() : arr.error().message));
  REQUIRE(arr.ok());
  return std::move(*arr);
}

// Bytes [0, n) of the array set to a pattern no job writes: byte i is a
// function of i alone.
std::vector<uint8_t> prefill(raid::Array& arr, size_t n) {
  std::vector<uint8_t> data(n);
  for (size_t i = 0; i < n; ++i) data[i] = uint8_t((i * 131 + 7) ^ (i >> 9));
  raid::SyncIo sio(arr);
  REQUIRE(sio.write(0, data.data(), n).ok());
  return data;
}

std::vector<uint8_t> read_back(raid::Array& arr, size_t n) {
  std::vector<uint8_t> data(n);
  raid::SyncIo sio(arr);
  REQUIRE(sio.read(0, data.data(), n).ok());
  return data;
}

// The first byte outside [lo, hi) that is not the prefill's, or -1.
long first_changed_outside(const std::vector<uint8_t>& before, const std::vector<uint8_t>& after, uint64_t lo,
                           uint64_t hi) {
  for (size_t i = 0; i < before.size(); ++i)
    if ((i < lo || i >= hi) && before[i] != after[i]) return long(i);
  return -1;
}

// Every verify block of `bs` bytes at offset lo + k * stride (k = 0 ..
// count - 1) holds what the job wrote there.
void check_blocks(const std::vector<uint8_t>& data, uint64_t lo, uint32_t bs, uint64_t stride,
                  uint64_t count) {
  for (uint64_t k = 0; k < count; ++k) {
    const uint64_t off = lo + k * stride;
    REQUIRE(off + bs <= data.size());
    const VerifyResult v = verify_check(VerifyKind::crc32c, data.data() + off, bs, off);
    INFO("block at " << off << ": " << v.reason);
    REQUIRE(v.ok);
  }
}

}  // namespace sub_unit

namespace su = sub_unit;

TEST_CASE("array target: a buffered write not aligned to the unit changes only its own bytes", "[array]") {
  struct Case {
    const char* name;
    su::Level level;
    uint32_t bs;
    uint64_t offset, size;
  };
  // The first two are the issue's: on today's code they changed bytes
  // 3584-5119 (RAID1) and 0-4095 (RAID5).
  for (const Case c : {Case{"raid1", su::kRaid1, 1000, 4000, 2000}, Case{"raid5", su::kRaid5, 512, 3584, 512},
                       Case{"raid10", su::kRaid10, 1000, 4000, 2000},
                       Case{"raid5 across a unit", su::kRaid5, 1000, 7000, 3000},
                       Case{"raid5 across a chunk", su::kRaid5, 6000, 65536 - 3000, 6000}}) {
    DYNAMIC_SECTION(c.name << " bs=" << c.bs << " offset=" << c.offset << " size=" << c.size) {
      TempDir dir;
      auto arr = su::make_array(dir, c.level);
      const auto before = su::prefill(*arr, 256 << 10);
      {
        ArrayTarget target(*arr);
        auto jobs = su::jobs_from_cli(
            {"--name=j", "--rw=write", "--bs=" + std::to_string(c.bs), "--offset=" + std::to_string(c.offset),
             "--size=" + std::to_string(c.size), "--iodepth=4", "--verify=crc32c", "--verify_fatal=1"});
        auto out = su::run_checked(jobs, target);
        const auto& j = out.results.jobs[0];
        INFO(j.error_text << (out.verify_messages.empty() ? "" : out.verify_messages[0]));
        CHECK(j.error == 0);
        CHECK(out.verify_errors == 0);  // the job's own verify pass read back what it wrote
        CHECK(j.write.io_bytes == c.size);
      }
      const auto after = su::read_back(*arr, before.size());
      CHECK(su::first_changed_outside(before, after, c.offset, c.offset + c.size) == -1);
      su::check_blocks(after, c.offset, c.bs, c.bs, c.size / c.bs);
      CHECK(arr->close().ok());
    }
  }
}

TEST_CASE("array target: a buffered read not aligned to the unit returns exactly its bytes", "[array]") {
  TempDir dir;
  auto arr = su::make_array(dir, su::kRaid5);
  // A verify run writes blocks at 4 KiB-aligned places; a second job reads
  // them back through offsets that are not (every block is still checked
  // at the offset it was written for).
  su::prefill(*arr, 256 << 10);
  ArrayTarget target(*arr);
  auto write = su::jobs_from_cli({"--name=w", "--rw=write", "--bs=1536", "--offset=1536", "--size=96k",
                                  "--verify=crc32c", "--do_verify=0"});
  auto out = su::run_checked(write, target);
  REQUIRE(out.results.jobs[0].error == 0);
  auto read = su::jobs_from_cli({"--name=r", "--rw=read", "--bs=1536", "--offset=1536", "--size=96k",
                                 "--iodepth=8", "--verify=crc32c"});
  out = su::run_checked(read, target);
  INFO((out.verify_messages.empty() ? "" : out.verify_messages[0]));
  CHECK(out.results.jobs[0].error == 0);
  CHECK(out.verify_errors == 0);
  CHECK(out.results.jobs[0].read.io_bytes == 96u << 10);
  CHECK(arr->close().ok());
}

TEST_CASE("array target: direct=1 I/O not aligned to the unit is refused before the run, naming it",
          "[array]") {
  TempDir dir;
  SECTION("raid1: bs not a multiple of 512") {
    auto arr = su::make_array(dir, su::kRaid1);
    ArrayTarget target(*arr);
    CHECK(target.block_size() == 512);
    auto jobs = su::jobs_from_cli({"--name=d", "--direct=1", "--rw=write", "--bs=1000", "--size=4000"});
    const std::string why = check_jobs(jobs, target);
    CHECK(why.find("bs") != std::string::npos);
    CHECK(why.find("512") != std::string::npos);
    CHECK(why.find("read-modify-written") != std::string::npos);  // says what would serve it
    CHECK(why.rfind("job 'd': direct=1", 0) == 0);                // named once
  }
  SECTION("raid5: bs and offset not multiples of 4096") {
    auto arr = su::make_array(dir, su::kRaid5);
    ArrayTarget target(*arr);
    CHECK(target.block_size() == 4096);
    auto small = su::jobs_from_cli(
        {"--name=d", "--direct=1", "--rw=write", "--bs=512", "--offset=3584", "--size=512"});
    std::string why = check_jobs(small, target);
    CHECK(why.find("bs") != std::string::npos);
    CHECK(why.find("4096") != std::string::npos);
    auto moved =
        su::jobs_from_cli({"--name=d", "--direct=1", "--rw=write", "--bs=4k", "--offset=2048", "--size=8k"});
    why = check_jobs(moved, target);
    CHECK(why.find("offset") != std::string::npos);
    CHECK(why.find("4096") != std::string::npos);
  }
  SECTION("raid1: direct=1 with 512-byte I/O runs and writes only its bytes") {
    auto arr = su::make_array(dir, su::kRaid1);
    const auto before = su::prefill(*arr, 64 << 10);
    {
      ArrayTarget target(*arr);
      auto jobs = su::jobs_from_cli({"--name=d", "--direct=1", "--rw=write", "--bs=512", "--offset=1536",
                                     "--size=2560", "--verify=crc32c"});
      auto out = su::run_checked(jobs, target);
      CHECK(out.results.jobs[0].error == 0);
      CHECK(out.verify_errors == 0);
    }
    const auto after = su::read_back(*arr, before.size());
    CHECK(su::first_changed_outside(before, after, 1536, 1536 + 2560) == -1);
    su::check_blocks(after, 1536, 512, 512, 5);
    CHECK(arr->close().ok());
  }
  SECTION("raid5: direct=1 I/O that strays from the unit at run time fails with EINVAL, writing nothing") {
    // blockalign=512 places random 4 KiB writes at 512-byte boundaries:
    // O_DIRECT on a block device fails those with EINVAL.
    auto arr = su::make_array(dir, su::kRaid5);
    const auto before = su::prefill(*arr, 256 << 10);
    {
      ArrayTarget target(*arr);
      auto jobs = su::jobs_from_cli({"--name=d", "--direct=1", "--rw=randwrite", "--bs=4k",
                                     "--blockalign=512", "--size=256k", "--randseed=7"});
      auto out = su::run_checked(jobs, target);
      CHECK(out.results.jobs[0].error == EINVAL);
    }
    const auto after = su::read_back(*arr, before.size());
    // Whatever was aligned may have been written; nothing was written
    // rounded: every 4 KiB unit is either the prefill or wholly new.
    for (size_t u = 0; u < before.size(); u += 4096) {
      size_t same = 0;
      for (size_t i = u; i < u + 4096; ++i) same += before[i] == after[i];
      INFO("unit at " << u << ": " << same << " bytes kept");
      CHECK((same == 4096 || same < 64));
    }
    CHECK(arr->close().ok());
  }
}

TEST_CASE("array target: concurrent sub-unit writes to ranges sharing units lose no bytes", "[array]") {
  // Job a writes the first half of every pair of blocks, job b the second
  // half, at the same time; a pair shares units (RAID1 768-byte blocks: the
  // unit 512-1023 is half a's, half b's; RAID5 2048-byte blocks: every
  // 4 KiB unit is half a's, half b's). A read-modify-write of one job that
  // read the unit before the other's write landed and wrote it back after
  // would put the old bytes back over the other job's block.
  struct Case {
    const char* name;
    su::Level level;
    uint32_t bs;
  };
  for (const Case c :
       {Case{"raid1", su::kRaid1, 768}, Case{"raid5", su::kRaid5, 2048}, Case{"raid10", su::kRaid10, 768}}) {
    DYNAMIC_SECTION(c.name << " bs=" << c.bs) {
      TempDir dir;
      auto arr = su::make_array(dir, c.level);
      // One pass, so that a lost block shows as the prefill (a later pass
      // would hide it under a valid block of the same job). Both jobs start
      // at the region's start and go at the same pace: their writes in
      // flight share units all along.
      const uint64_t region = 1ull << 20;
      su::prefill(*arr, region + c.bs);
      {
        ArrayTarget target(*arr);
        const std::string bs = std::to_string(c.bs);
        auto jobs = su::jobs_from_cli({"--name=a",
                                       "--rw=write",
                                       "--bs=" + bs,
                                       "--zonesize=" + bs,
                                       "--zoneskip=" + bs,
                                       "--offset=0",
                                       "--size=" + std::to_string(region),
                                       "--iodepth=16",
                                       "--loops=1",
                                       "--verify=crc32c",
                                       "--do_verify=0",
                                       "--name=b",
                                       "--rw=write",
                                       "--bs=" + bs,
                                       "--zonesize=" + bs,
                                       "--zoneskip=" + bs,
                                       "--offset=" + bs,
                                       "--size=" + std::to_string(region),
                                       "--iodepth=16",
                                       "--loops=1",
                                       "--verify=crc32c",
                                       "--do_verify=0"});
        auto out = su::run_checked(jobs, target);
        REQUIRE(out.results.jobs.size() == 2);
        CHECK(out.results.jobs[0].error == 0);
        CHECK(out.results.jobs[1].error == 0);
      }
      const auto after = su::read_back(*arr, region + c.bs);
      su::check_blocks(after, 0, c.bs, c.bs, region / c.bs);
      CHECK(arr->close().ok());
    }
  }
}

TEST_CASE("array target: whole-unit writes racing sub-unit writes to the same units are kept", "[array]") {
  // RAID5: job w writes whole 4 KiB units, job s the second half of the
  // same units, at the same time, once each. Each unit then holds w's
  // block whole (w wrote last), or s's half over w's first half (s's
  // read-modify-write read w's unit). A read-modify-write that read the
  // unit before w's write and wrote after it would leave the prefill in
  // the first half: w's bytes lost.
  TempDir dir;
  auto arr = su::make_array(dir, su::kRaid5);
  const uint64_t region = 2ull << 20;
  const auto before = su::prefill(*arr, region);
  {
    ArrayTarget target(*arr);
    auto jobs = su::jobs_from_cli({"--name=w", "--rw=write", "--bs=4k", "--size=" + std::to_string(region),
                                   "--iodepth=8", "--verify=crc32c", "--do_verify=0", "--name=s",
                                   "--rw=write", "--bs=2k", "--zonesize=2k", "--zoneskip=2k", "--offset=2k",
                                   "--size=" + std::to_string(region), "--iodepth=8", "--verify=crc32c",
                                   "--do_verify=0"});
    auto out = su::run_checked(jobs, target);
    CHECK(out.results.jobs[0].error == 0);
    CHECK(out.results.jobs[1].error == 0);
  }
  const auto after = su::read_back(*arr, region);
  for (uint64_t u = 0; u < region; u += 4096) {
    const VerifyResult whole = verify_check(VerifyKind::crc32c, after.data() + u, 4096, u);
    if (whole.ok) continue;
    const VerifyResult half = verify_check(VerifyKind::crc32c, after.data() + u + 2048, 2048, u + 2048);
    INFO("unit at " << u << ": " << whole.reason << "; second half: " << half.reason);
    REQUIRE(half.ok);
    // The first half is w's: never the prefill.
    CHECK(std::memcmp(after.data() + u, before.data() + u, 2048) != 0);
  }
  CHECK(arr->close().ok());
}

namespace sub_unit {

// Target I/Os of one test, on ports the test drives itself: every one is
// submitted before any completes, so their read-modify-writes overlap for
// certain.
struct PortIo {
  TargetIo io;
  io::AlignedBuffer buffer;
  int result = 1;  // 1: not completed yet
};

void port_io_done(TargetIo& io, int result) {
  static_cast<PortIo*>(io.owner)->result = result;
}

// Queues a write of `length` bytes of `fill` at `offset` through `port`.
void queue_write(TargetPort& port, PortIo& p, uint64_t offset, uint32_t length, uint8_t fill) {
  p.buffer = rs::test::must(io::AlignedBuffer::allocate(length));
  std::memset(p.buffer.data(), fill, length);
  p.io.write = true;
  p.io.offset = offset;
  p.io.length = length;
  p.io.buffer = p.buffer.data();
  p.io.done = &port_io_done;
  p.io.owner = &p;
  port.prepare(p.io, length);
  port.submit(p.io);
}

// Runs `context` until every I/O of `ios` has completed.
void run_until_done(io::IoContext& context, const std::vector<std::unique_ptr<PortIo>>& ios) {
  for (;;) {
    const bool pending = std::any_of(ios.begin(), ios.end(), [](const auto& p) { return p->result == 1; });
    if (!pending) return;
    context.backend().submit();
    context.run_once(1, context.backend().now_ns() + 2'000'000'000ull);
  }
}

}  // namespace sub_unit

TEST_CASE("array target: read-modify-writes of one unit through two ports at once keep both", "[array]") {
  // Port 1 patches the first third of every unit, port 2 the second third,
  // all at once: both read every unit before either writes it unless the
  // second waits for the first. Each unit must end with both patches and
  // the prefill in its last third.
  for (const su::Level level : {su::kRaid1, su::kRaid5}) {
    DYNAMIC_SECTION("raid" << level.level) {
      TempDir dir;
      auto arr = su::make_array(dir, level);
      constexpr int kUnits = 48;
      const uint32_t unit = level.unit, third = unit / 3;
      const auto before = su::prefill(*arr, size_t(kUnits) * unit);
      {
        ArrayTarget target(*arr);
        io::IoContext context(target.make_backend(2 * kUnits));
        auto p1 = target.open_port(context), p2 = target.open_port(context);
        std::vector<std::unique_ptr<su::PortIo>> ios;
        for (int u = 0; u < kUnits; ++u) {
          ios.push_back(std::make_unique<su::PortIo>());
          su::queue_write(*p1, *ios.back(), uint64_t(u) * unit, third, uint8_t(0xa0 + u % 16));
          ios.push_back(std::make_unique<su::PortIo>());
          su::queue_write(*p2, *ios.back(), uint64_t(u) * unit + third, third, uint8_t(0xb0 + u % 16));
        }
        su::run_until_done(context, ios);
        for (const auto& p : ios) CHECK(p->result == int(third));
        CHECK(target.read_modify_written());
      }
      const auto after = su::read_back(*arr, before.size());
      for (int u = 0; u < kUnits; ++u) {
        const size_t base = size_t(u) * unit;
        size_t bad_first = 0, bad_second = 0, bad_rest = 0;
        for (size_t i = 0; i < third; ++i) bad_first += after[base + i] != uint8_t(0xa0 + u % 16);
        for (size_t i = third; i < 2 * third; ++i) bad_second += after[base + i] != uint8_t(0xb0 + u % 16);
        for (size_t i = 2 * third; i < unit; ++i) bad_rest += after[base + i] != before[base + i];
        INFO("unit " << u << ": wrong bytes " << bad_first << " in port 1's third, " << bad_second
                     << " in port 2's, " << bad_rest << " in the rest");
        CHECK(bad_first + bad_second + bad_rest == 0);
      }
      CHECK(arr->close().ok());
    }
  }
}

TEST_CASE("array target: a read-modify-write waits for whole-unit writes already in flight", "[array]") {
  // Port 1's whole-unit writes go past the lock (no read-modify-write has
  // happened yet in the run), on a context of their own that the test does
  // not run yet: they stay in flight. Port 2's patches of the same units,
  // on another context, must wait for them (not complete while they are in
  // flight), then read what they wrote.
  TempDir dir;
  auto arr = su::make_array(dir, su::kRaid1);
  constexpr int kUnits = 48;
  const uint32_t unit = 512;
  su::prefill(*arr, size_t(kUnits) * unit);
  {
    ArrayTarget target(*arr);
    io::IoContext first(target.make_backend(kUnits)), second(target.make_backend(kUnits));
    auto p1 = target.open_port(first), p2 = target.open_port(second);
    std::vector<std::unique_ptr<su::PortIo>> whole, patches;
    for (int u = 0; u < kUnits; ++u) {
      whole.push_back(std::make_unique<su::PortIo>());
      su::queue_write(*p1, *whole.back(), uint64_t(u) * unit, unit, 0x11);
    }
    CHECK_FALSE(target.read_modify_written());
    for (int u = 0; u < kUnits; ++u) {
      patches.push_back(std::make_unique<su::PortIo>());
      su::queue_write(*p2, *patches.back(), uint64_t(u) * unit + 100, 50, 0x22);
    }
    const uint64_t until = second.backend().now_ns() + 300'000'000ull;
    while (second.backend().now_ns() < until) {
      second.backend().submit();
      second.run_once(1, until);
    }
    CHECK(std::none_of(patches.begin(), patches.end(), [](const auto& p) { return p->result != 1; }));
    su::run_until_done(first, whole);
    su::run_until_done(second, patches);
    for (const auto& p : whole) CHECK(p->result == int(unit));
    for (const auto& p : patches) CHECK(p->result == 50);
  }
  const auto after = su::read_back(*arr, size_t(kUnits) * unit);
  for (int u = 0; u < kUnits; ++u) {
    size_t wrong = 0;
    for (size_t i = 0; i < unit; ++i) {
      const uint8_t want = i >= 100 && i < 150 ? 0x22 : 0x11;
      wrong += after[size_t(u) * unit + i] != want;
    }
    INFO("unit " << u);
    CHECK(wrong == 0);
  }
  CHECK(arr->close().ok());
}
