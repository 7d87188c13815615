// zonemode=zbd on a target without zones (issue 16), as fio 3.33 emulates
// zones on a regular file (zbd.c, ZBD_NONE): every write at its zone's
// write pointer, a full zone reset before it is written again, reads only
// below the write pointer (a fresh target has nothing to read: the job
// ends with no I/O, as fio's zbd-seq-read example does here), and a trim
// is a zone reset.
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "../../common/needs_uring.hpp"
#include "../../common/temp_dir.hpp"
#include "fio_run_on_file.hpp"
#include "workload/zbd_zones.hpp"

using namespace rs;
using namespace rs::workload;
using namespace rs::fio;

namespace {

constexpr uint64_t kZone = 1 << 20;

ZbdZones::Request req(int ddir, bool random = true) {
  ZbdZones::Request q;
  q.ddir = ddir;
  q.random = random;
  q.min_bs = 4096;
  return q;
}

}  // namespace

TEST_CASE("zbd zones: writes go to the write pointer, a full zone is reset, reads stay below it",
          "[fio][zbd]") {
  ZbdZones::Options o;
  o.zone_size = kZone;
  ZbdZones zones(4 * kZone, o);
  const int me = 0, other = 0;  // two jobs: only their addresses matter
  bool reset = false;

  // Nothing written yet: a read finds no zone with data.
  uint64_t off = 2 * kZone + 8192;
  uint32_t len = 4096;
  CHECK(zones.adjust(&me, req(0), off, len, &reset) == ZbdZones::Verdict::eof);

  // Random write offsets in zone 1 land at its write pointer, one after another.
  for (uint64_t i = 0; i < 4; ++i) {
    off = kZone + 12345 * 4096 % kZone;
    len = 256 << 10;
    REQUIRE(zones.adjust(&me, req(1), off, len, &reset) == ZbdZones::Verdict::accept);
    CHECK(off == kZone + i * (256 << 10));
    CHECK(len == (256u << 10));
    CHECK_FALSE(reset);
    zones.release(&me, off);
  }
  // Zone 1 is full: the next write resets it and starts at its beginning.
  off = kZone + 4096;
  len = 64 << 10;
  REQUIRE(zones.adjust(&me, req(1), off, len, &reset) == ZbdZones::Verdict::accept);
  CHECK(reset);
  CHECK(off == kZone);
  zones.release(&me, off);

  // A read of the empty zone 3 goes to the nearest zone with data (zone 1,
  // 64 KiB written), and never past its write pointer.
  off = 3 * kZone + 4096;
  len = 128 << 10;
  REQUIRE(zones.adjust(&me, req(0), off, len, &reset) == ZbdZones::Verdict::accept);
  CHECK(off == kZone);
  CHECK(len == (64u << 10));

  // The zone is held by this I/O: another job must wait for it.
  uint64_t o2 = kZone + 4096;
  uint32_t l2 = 4096;
  CHECK(zones.adjust(&other, req(1), o2, l2, &reset) == ZbdZones::Verdict::busy);
  zones.release(&me, off);
  CHECK(zones.adjust(&other, req(1), o2, l2, &reset) == ZbdZones::Verdict::accept);
  CHECK(o2 == kZone + (64 << 10));
  zones.release(&other, o2);

  // A random trim of an empty zone resets the nearest zone with data.
  off = 0;
  len = uint32_t(kZone);
  REQUIRE(zones.adjust(&me, req(2), off, len, &reset) == ZbdZones::Verdict::accept);
  CHECK(off == kZone);
  CHECK(reset);
  zones.release(&me, off);
  off = 0;
  CHECK(zones.adjust(&me, req(2), off, len, &reset) == ZbdZones::Verdict::eof);  // no data anywhere now
}

TEST_CASE("zbd zones: a reset waits for the job's own I/O to drain", "[fio][zbd]") {
  ZbdZones::Options o;
  o.zone_size = kZone;
  ZbdZones zones(kZone, o);
  const int me = 0;
  bool reset = false;
  uint64_t off = 0;
  uint32_t len = uint32_t(kZone);
  REQUIRE(zones.adjust(&me, req(1), off, len, &reset) == ZbdZones::Verdict::accept);  // fills it
  ZbdZones::Request q = req(1);
  q.has_inflight = true;
  off = 0;
  len = 4096;
  CHECK(zones.adjust(&me, q, off, len, &reset) == ZbdZones::Verdict::drain);
  zones.release(&me, 0);
  q.has_inflight = false;
  CHECK(zones.adjust(&me, q, off, len, &reset) == ZbdZones::Verdict::accept);
  CHECK(reset);
  CHECK(off == 0);
}

TEST_CASE(
    "zonemode=zbd on a file: random writes are sequential per zone; a read job of a fresh file does no I/O",
    "[fio][zbd][needs-uring]") {
  rs::test::require_uring();
  test::TempDir dir("rs-zbd");
  const std::string path = dir.file("data");
  fio_test::write_filled_file(path, 4 * kZone);
  const std::string log = dir.file("iolog");
  auto out = fio_test::run_on_file(
      path, {"--name=w", "--zonemode=zbd", "--zonesize=1m", "--rw=randwrite", "--bs=64k", "--direct=1",
             "--ioengine=io_uring", "--iodepth=4", "--time_based", "--runtime=5", "--number_ios=200",
             "--write_iolog=" + log});
  const JobResults& w = out.results.jobs[0];
  REQUIRE(w.error == 0);
  CHECK(w.write.total_ios == 200);
  // Each write starts where the last write to its zone ended, or at the
  // zone's start after a reset (4 zones of 16 writes: 200 writes reset some).
  std::ifstream in(log);
  std::string line;
  std::vector<uint64_t> next(4, 0);
  for (int z = 0; z < 4; ++z) next[size_t(z)] = uint64_t(z) * kZone;
  int writes = 0, restarts = 0;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string t, file, action;
    uint64_t offset = 0, length = 0;
    if (!(f >> t >> file >> action >> offset >> length) || action != "write") continue;
    const size_t z = size_t(offset / kZone);
    if (offset == z * kZone && next[z] != offset) {
      ++restarts;  // a reset zone starts over
    } else {
      CHECK(offset == next[z]);
    }
    next[z] = offset + length;
    ++writes;
  }
  CHECK(writes == 200);
  CHECK(restarts > 0);
  CHECK(w.zone_resets == uint64_t(restarts));

  out = fio_test::run_on_file(path, {"--name=r", "--zonemode=zbd", "--zonesize=1m", "--rw=read", "--bs=64k",
                                     "--direct=1", "--ioengine=io_uring"});
  const JobResults& r = out.results.jobs[0];
  REQUIRE(r.error == 0);
  CHECK(r.read.total_ios == 0);  // fio 3.33 on its zbd-seq-read example: 0 I/Os too
}
