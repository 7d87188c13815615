// What a uevent means: the monitor compares the device before and after
// (classify_change), so the kernel's "change" on loop0 is an attach or a
// detach, and change uevents that alter nothing are not reported.
#include "discovery/hotplug.hpp"
#include "discovery_test_util.hpp"

using namespace rs::discovery;

namespace {

BlockDevice disk(uint64_t bytes) {
  BlockDevice d;
  d.name = "sdb";
  d.kind = DeviceKind::disk;
  d.size_bytes = bytes;
  return d;
}

BlockDevice loop(bool bound, uint64_t ino = 11) {
  BlockDevice d;
  d.name = "loop0";
  d.kind = DeviceKind::loop;
  if (bound) {
    d.loop = LoopBacking{};
    d.loop->dev = 0xfe00;
    d.loop->ino = ino;
    d.loop->path = "/tmp/x.img";
    d.size_bytes = 1 << 20;
  }
  return d;
}

}  // namespace

TEST_CASE("hot-plug: a disk appearing and going is added and removed") {
  CHECK(classify_change(std::nullopt, disk(1 << 30)) == HotplugKind::added);
  CHECK(classify_change(disk(1 << 30), std::nullopt) == HotplugKind::removed);
  CHECK(classify_change(std::nullopt, std::nullopt) == std::nullopt);
}

TEST_CASE("hot-plug: binding an existing loop device is an attach, unbinding a detach") {
  CHECK(classify_change(loop(false), loop(true)) == HotplugKind::attached);
  CHECK(classify_change(loop(true), loop(false)) == HotplugKind::detached);
  // A loop device made by loop-control appears unbound: nothing to report
  // until it is bound; then it is attached.
  CHECK(classify_change(std::nullopt, loop(false)) == std::nullopt);
  CHECK(classify_change(std::nullopt, loop(true)) == HotplugKind::added);
  CHECK(classify_change(loop(false), std::nullopt) == std::nullopt);
}

TEST_CASE("hot-plug: a loop device bound but not yet sized is not attached until its size is set") {
  BlockDevice half = loop(true);
  half.size_bytes = 0;  // LOOP_CONFIGURE between the backing-file attributes and set_capacity
  CHECK(classify_change(loop(false), half) == std::nullopt);
  CHECK(classify_change(half, loop(true)) == HotplugKind::attached);
  CHECK(classify_change(std::nullopt, half) == std::nullopt);
}

TEST_CASE("hot-plug: a change uevent is reported only when something changed") {
  CHECK(classify_change(disk(1 << 30), disk(1 << 30)) == std::nullopt);
  CHECK(classify_change(disk(1 << 30), disk(2 << 30)) == HotplugKind::changed);
  CHECK(classify_change(loop(true), loop(true)) == std::nullopt);
  CHECK(classify_change(loop(true, 11), loop(true, 12)) == HotplugKind::changed);  // rebound to another file
  BlockDevice parted = disk(1 << 30);
  parted.partitions = {"sdb1"};
  CHECK(classify_change(disk(1 << 30), parted) == HotplugKind::changed);
  BlockDevice ro = disk(1 << 30);
  ro.read_only = true;
  CHECK(classify_change(disk(1 << 30), ro) == HotplugKind::changed);
}

TEST_CASE("hot-plug: the udev source where udevd runs, the kernel source where it does not") {
  rs::discovery::test::TempDir dir;
  CHECK(preferred_uevent_source(dir.path) == UeventSource::kernel);
  rs::discovery::test::write_text(dir.file("udev/control"), "");
  CHECK(preferred_uevent_source(dir.path) == UeventSource::udev);
  CHECK(std::string(uevent_source_name(UeventSource::kernel)) == "kernel");
}
