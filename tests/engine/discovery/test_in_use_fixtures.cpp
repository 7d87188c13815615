// member_in_use and the loop-device scan on fixture /sys and /proc trees:
// every kind of use (mount, swap, holder, a partition's mount, btrfs's
// anonymous device number) without needing root or real loop devices.
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "discovery/in_use.hpp"
#include "discovery/loop_devices.hpp"
#include "discovery_test_util.hpp"

using namespace rs;
using namespace rs::discovery;
using rs::discovery::test::FixtureSystem;
using rs::discovery::test::make_file;
using rs::discovery::test::TempDir;

TEST_CASE("fixture: bound loop devices are listed with their backing file's identity") {
  TempDir dir;
  FixtureSystem sys(dir);
  const auto fs_img = make_file(dir, "fs.img");
  const auto other = make_file(dir, "other.img");
  sys.add_loop(3, fs_img);
  sys.add_loop(12, other);
  sys.add_loop(4, fs_img);
  // An unbound loop device has no loop/ directory and is not listed.
  rs::discovery::test::write_text(sys.roots.sysfs + "/block/loop5/dev", "7:5\n");

  const auto loops = bound_loop_devices(sys.roots);
  REQUIRE(loops.size() == 3);
  CHECK(loops[0].name == "loop3");
  CHECK(loops[1].name == "loop4");
  CHECK(loops[2].name == "loop12");
  struct stat st {};
  REQUIRE(::stat(fs_img.c_str(), &st) == 0);
  CHECK(loops[0].rdev == makedev(7, 3));
  CHECK(loops[0].device_path == sys.loop_node(3));
  CHECK(loops[0].backing.dev == uint64_t(st.st_dev));
  CHECK(loops[0].backing.ino == uint64_t(st.st_ino));
  CHECK(loops[0].backing.rdev == 0);
  CHECK(loops[0].backing.path == fs_img);

  auto id = identify(fs_img, sys.roots);
  REQUIRE(id.ok());
  const auto over = loops_over(*id, sys.roots);
  REQUIRE(over.size() == 2);
  CHECK(over[0].loop.name == "loop3");
  CHECK(over[1].loop.name == "loop4");
  CHECK_FALSE(over[0].usage.in_use());
}

TEST_CASE("fixture: a file behind a loop device that nothing uses is free") {
  TempDir dir;
  FixtureSystem sys(dir);
  const auto fs_img = make_file(dir, "fs.img");
  sys.add_loop(3, fs_img);
  CHECK(member_in_use(fs_img, sys.roots).empty());
  CHECK(member_in_use(make_file(dir, "other.img"), sys.roots).empty());
  CHECK(member_in_use(dir.file("missing.img"), sys.roots).empty());
}

TEST_CASE("fixture: a file behind a mounted loop device is in use") {
  TempDir dir;
  FixtureSystem sys(dir);
  const auto fs_img = make_file(dir, "fs.img");
  const auto other = make_file(dir, "other.img");
  sys.add_loop(3, fs_img);
  sys.add_loop(4, other);

  SECTION("by major:minor") {
    sys.add_mount("7:3", "/mnt/x", "ext4", sys.loop_node(3));
    CHECK(member_in_use(fs_img, sys.roots) ==
          "it backs " + sys.loop_node(3) + ", which is mounted at /mnt/x");
    CHECK(member_in_use(other, sys.roots).empty());
  }
  SECTION("by source, as btrfs shows it (anonymous major:minor)") {
    sys.add_mount("0:45", "/mnt/b", "btrfs", sys.loop_node(3));
    CHECK(member_in_use(fs_img, sys.roots) ==
          "it backs " + sys.loop_node(3) + ", which is mounted at /mnt/b");
  }
  SECTION("mount points with spaces are unescaped") {
    sys.add_mount("7:3", "/mnt/my\\040disk", "ext4", sys.loop_node(3));
    CHECK(member_in_use(fs_img, sys.roots) ==
          "it backs " + sys.loop_node(3) + ", which is mounted at /mnt/my disk");
  }
  SECTION("through a partition of the loop device") {
    sys.add_partition(3, 1, "259:0");
    sys.add_mount("259:0", "/mnt/p", "vfat", sys.loop_node(3) + "p1");
    CHECK(member_in_use(fs_img, sys.roots) ==
          "it backs " + sys.loop_node(3) + ", which is mounted at /mnt/p (partition loop3p1)");
  }
  SECTION("through a second loop device over the same file") {
    sys.add_loop(6, fs_img);
    sys.add_mount("7:6", "/mnt/six", "ext4", sys.loop_node(6));
    CHECK(member_in_use(fs_img, sys.roots) ==
          "it backs " + sys.loop_node(6) + ", which is mounted at /mnt/six");
  }
}

TEST_CASE("fixture: swap and holders make the backing file in use too") {
  TempDir dir;
  FixtureSystem sys(dir);
  const auto fs_img = make_file(dir, "fs.img");
  sys.add_loop(3, fs_img);

  SECTION("the loop device is active swap") {
    sys.add_swap(sys.loop_node(3));
    CHECK(member_in_use(fs_img, sys.roots) ==
          "it backs " + sys.loop_node(3) + ", which is an active swap device");
  }
  SECTION("the loop device is held by device-mapper") {
    sys.add_holder("loop3", "dm-0");
    CHECK(member_in_use(fs_img, sys.roots) ==
          "it backs " + sys.loop_node(3) + ", which is held by dm-0 (device-mapper, md or another driver)");
  }
  SECTION("a partition of it is held by md") {
    sys.add_partition(3, 2, "259:1");
    sys.add_holder("loop3/loop3p2", "md127");
    CHECK(member_in_use(fs_img, sys.roots) ==
          "it backs " + sys.loop_node(3) +
              ", which is held by md127 on partition loop3p2 (device-mapper, md "
              "or another driver)");
  }
}

TEST_CASE("fixture: a regular file used as swap is in use") {
  TempDir dir;
  FixtureSystem sys(dir);
  const auto swapfile = make_file(dir, "swapfile");
  sys.add_swap(swapfile);
  CHECK(member_in_use(swapfile, sys.roots) == "it is an active swap file");
  CHECK(member_in_use(make_file(dir, "other"), sys.roots).empty());
}

TEST_CASE("fixture: device usage of a block device itself") {
  TempDir dir;
  FixtureSystem sys(dir);
  sys.add_loop(3, make_file(dir, "fs.img"));
  CHECK_FALSE(device_usage(makedev(7, 3), sys.loop_node(3), sys.roots).in_use());
  sys.add_mount("7:3", "/mnt/x", "ext4", sys.loop_node(3));
  sys.add_swap(sys.loop_node(3));
  const DeviceUsage u = device_usage(makedev(7, 3), sys.loop_node(3), sys.roots);
  CHECK(u.in_use());
  CHECK(u.mountpoints == std::vector<std::string>{"/mnt/x"});
  CHECK(u.swaps == std::vector<std::string>{""});
  CHECK(u.reason() == "mounted at /mnt/x");
}
