// The array's unit: array I/O off it, or past the end, fails with EINVAL
// and changes nothing; it is never rounded down to the unit (which wrote
// bytes the submitter never asked for). The units are md's: a 512-byte
// sector for RAID1/RAID10, RAID5's 4 KiB stripe-cache page.
#include <catch2/catch.hpp>

#include "raid/array_port.hpp"
#include "raid_test_util.hpp"

using namespace rs;
using namespace rs::raid;
using namespace rs::raid::test;

namespace {

struct Outcome {
  int result = 1;
};

// One array I/O through a port on this thread; its result.
int submit_one(Array& arr, bool write, uint64_t offset, uint32_t length, void* buf) {
  io::IoContext ctx(arr.make_backend(4), "unit-test");
  ArrayPort port(arr, ctx);
  ArrayIo io;
  port.prepare(io, 64 * 1024);
  Outcome out;
  io.write = write;
  io.offset = offset;
  io.length = length;
  io.buffer = buf;
  io.owner = &out;
  io.done = [](ArrayIo& done, int result) { static_cast<Outcome*>(done.owner)->result = result; };
  port.submit(io);
  while (out.result == 1) ctx.run_once(1);
  return out.result;
}

}  // namespace

TEST_CASE("array I/O off the level's unit or past the end fails with EINVAL, nothing written",
          "[raid][unit]") {
  struct Case {
    Config cfg;
    uint32_t unit;  // md's: raid1/raid10 sectors, raid5 stripe-cache pages
  };
  const Case c =
      GENERATE(Case{Config{"raid1 x2", 1, 2, ""}, 512}, Case{Config{"raid10 n2 x4", 10, 4, "n2"}, 512},
               Case{Config{"raid5 x3", 5, 3, ""}, 4096});
  INFO(c.cfg.name);
  TempDir dir;
  auto arr = create_array(c.cfg, member_paths(dir, c.cfg.disks));
  CHECK(arr->io_unit_bytes() == c.unit);
  std::mt19937_64 rng(11);
  const auto before = random_bytes(rng, 64 * 1024);
  REQUIRE(array_write(*arr, 0, before.data(), before.size()).ok());

  auto junk = rs::test::must(io::AlignedBuffer::allocate(8192));
  std::memset(junk.data(), 0xEE, 8192);
  const uint64_t size = arr->size_bytes();
  struct Bad {
    uint64_t offset;
    uint32_t length;
  };
  for (Bad b : {Bad{c.unit / 2, c.unit}, Bad{c.unit, c.unit / 2}, Bad{c.unit + 256, 1000}, Bad{0, 0},
                Bad{size, c.unit}, Bad{size - c.unit, 2 * c.unit}}) {
    INFO("offset " << b.offset << " length " << b.length);
    CHECK(submit_one(*arr, true, b.offset, b.length, junk.data()) == -EINVAL);
    CHECK(submit_one(*arr, false, b.offset, b.length, junk.data()) == -EINVAL);
  }
  std::vector<uint8_t> back(before.size());
  REQUIRE(array_read(*arr, 0, back.data(), back.size()).ok());
  CHECK(first_diff(back, before) == -1);
  // On the unit, the same submission goes through.
  CHECK(submit_one(*arr, true, c.unit, c.unit, junk.data()) == int(c.unit));
}
