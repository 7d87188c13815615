// Block device discovery and the safety matrix on fixture /sys, /proc and
// /dev trees laid out as the kernel lays them out: an NVMe disk (io_opt 0),
// a SATA HDD (rotational), a partitioned disk with a mounted partition, a
// loop device over a file, a disk held by device-mapper, md members (held
// by a running array, and not), a filesystem signature, a process holding
// a member. Expected values are the ones written into the fixtures.
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "discovery/block_devices.hpp"
#include "discovery/open_by.hpp"
#include "discovery/safety.hpp"
#include "discovery/sysfs_attr.hpp"
#include "discovery_test_util.hpp"
#include "ondisk/superblock.hpp"

using namespace rs;
using namespace rs::discovery;
using rs::discovery::test::FixtureSystem;
using rs::discovery::test::make_file;
using rs::discovery::test::TempDir;
using rs::discovery::test::write_text;

namespace {

const BlockDevice& find(const std::vector<BlockDevice>& list, const std::string& name) {
  for (const auto& d : list)
    if (d.name == name) return d;
  FAIL("no device " << name << " in the scan");
  throw;  // not reached
}

std::vector<std::string> names(const std::vector<BlockDevice>& list) {
  std::vector<std::string> out;
  for (const auto& d : list) out.push_back(d.name);
  return out;
}

// An md v1.2 superblock of a 2-member RAID1 at byte 4096 of `node`, this
// member being role 1, written with the engine's encoder.
ondisk::Uuid write_md_member(const std::string& node, uint64_t bytes) {
  ondisk::Superblock sb;
  sb.set_uuid = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  sb.set_name = "host:data";
  sb.level = 1;
  sb.raid_disks = 2;
  sb.data_offset = 2048;
  sb.data_size = bytes / 512 - 2048;
  sb.size = sb.data_size;
  sb.dev_number = 1;
  sb.dev_roles = {0, 1};
  sb.events = 42;
  REQUIRE(ondisk::validate(sb, bytes).ok());
  const auto block = ondisk::encode(sb);
  FILE* f = std::fopen(node.c_str(), "r+b");
  REQUIRE(f);
  REQUIRE(std::fseek(f, 4096, SEEK_SET) == 0);
  REQUIRE(std::fwrite(block.data(), 1, block.size(), f) == block.size());
  std::fclose(f);
  return sb.set_uuid;
}

}  // namespace

TEST_CASE("fixture: an NVMe disk and a SATA HDD report what their queues say") {
  TempDir dir;
  FixtureSystem sys(dir);
  sys.add_disk({.name = "nvme0n1",
                .dev = "259:0",
                .sectors = 2000409264,
                .rotational = 0,
                .io_opt = 0,
                .model = "Samsung SSD 980 PRO 1TB",
                .serial = "S5GXNF0R123456"});
  sys.add_disk({.name = "sda",
                .dev = "8:0",
                .sectors = 7814037168,
                .rotational = 1,
                .io_opt = 0,
                .logical_block_size = 512,
                .physical_block_size = 4096,
                .model = "ST4000DM004-2CV1",
                .serial = "ZFN0ABCD"});
  sys.add_node("nvme0n1", 1 << 20);
  sys.add_node("sda", 1 << 20);

  const auto list = scan_block_devices(sys.roots);
  CHECK(names(list) == std::vector<std::string>{"sda", "nvme0n1"});

  const auto& nvme = find(list, "nvme0n1");
  CHECK(nvme.kind == DeviceKind::disk);
  CHECK(nvme.rdev == makedev(259, 0));
  CHECK(nvme.node == sys.roots.dev + "/nvme0n1");
  CHECK(nvme.size_bytes == 2000409264ull * 512);
  CHECK_FALSE(nvme.queue.rotational);
  CHECK(nvme.queue.io_opt == 0);
  CHECK_FALSE(nvme.effective.rotational);
  CHECK(nvme.effective.io_opt == 0);
  CHECK(nvme.model == "Samsung SSD 980 PRO 1TB");  // the padding trimmed
  CHECK(nvme.serial == "S5GXNF0R123456");
  CHECK(nvme.probe_error.empty());
  CHECK(assess(nvme).safe());

  const auto& hdd = find(list, "sda");
  CHECK(hdd.queue.rotational);
  CHECK(hdd.effective.rotational);
  CHECK(hdd.queue.logical_block_size == 512);
  CHECK(hdd.queue.physical_block_size == 4096);
  CHECK(hdd.size_bytes == 7814037168ull * 512);
  CHECK(assess(hdd).safe());
}

TEST_CASE("fixture: a partitioned disk with a mounted partition") {
  TempDir dir;
  FixtureSystem sys(dir);
  sys.add_disk({.name = "sdb", .dev = "8:16", .sectors = 1 << 22, .rotational = 1});
  sys.add_disk_partition("sdb", "sdb1", "8:17", 1 << 21);
  sys.add_disk_partition("sdb", "sdb2", "8:18", (1 << 21) - 4096);
  for (const char* n : {"sdb", "sdb1", "sdb2"}) sys.add_node(n, 1 << 20);
  sys.add_mount("8:17", "/home", "ext4", sys.roots.dev + "/sdb1");

  const auto list = scan_block_devices(sys.roots);
  CHECK(names(list) == std::vector<std::string>{"sdb", "sdb1", "sdb2"});

  const auto& disk = find(list, "sdb");
  CHECK(disk.partitions == std::vector<std::string>{"sdb1", "sdb2"});
  CHECK(disk.usage.mountpoints == std::vector<std::string>{"/home (partition sdb1)"});
  const Assessment a = assess(disk);
  CHECK(a.refused());
  CHECK(a.summary() == "mounted at /home (partition sdb1); partitioned (sdb1, sdb2)");

  const auto& p1 = find(list, "sdb1");
  CHECK(p1.kind == DeviceKind::partition);
  CHECK(p1.parent == "sdb");
  CHECK(p1.size_bytes == (1ull << 21) * 512);
  CHECK(p1.queue.rotational);  // a partition has the disk's queue
  CHECK(assess(p1).summary() == "mounted at /home");
  CHECK(assess(p1).refused());

  const auto& p2 = find(list, "sdb2");
  CHECK(p2.usage.mountpoints.empty());
  CHECK(assess(p2).safe());

  auto one = describe_block_device("sdb2", sys.roots);
  REQUIRE(one);
  CHECK(one->parent == "sdb");
  CHECK(one->rdev == makedev(8, 18));
  CHECK_FALSE(describe_block_device("sdz", sys.roots));
  CHECK_FALSE(describe_block_device("../sdb", sys.roots));
}

TEST_CASE("fixture: a loop device reports the queue of the disk its backing file lives on") {
  TempDir dir;
  FixtureSystem sys(dir);
  const auto img = make_file(dir, "member.img");
  struct stat st {};
  REQUIRE(::stat(img.c_str(), &st) == 0);
  // The disk the image file lives on: non-rotational, io_opt 1 MiB.
  sys.add_disk({.name = "nvme1n1", .dev = major_minor(st.st_dev), .rotational = 0, .io_opt = 1 << 20});
  sys.add_loop(3, img, 2048);
  // The loop driver's own queue says rotational with no io_opt.
  write_text(sys.roots.sysfs + "/block/loop3/queue/rotational", "1\n");
  write_text(sys.roots.sysfs + "/block/loop3/queue/optimal_io_size", "0\n");
  write_text(sys.roots.sysfs + "/block/loop3/queue/logical_block_size", "4096\n");
  sys.add_node("loop3", 2048 * 512);
  // An unbound loop device: size 0, no loop/ directory.
  write_text(sys.roots.sysfs + "/block/loop10/dev", "7:10\n");
  write_text(sys.roots.sysfs + "/block/loop10/size", "0\n");

  const auto list = scan_block_devices(sys.roots);
  CHECK(names(list) == std::vector<std::string>{"loop3", "nvme1n1"});
  const auto& loop = find(list, "loop3");
  CHECK(loop.kind == DeviceKind::loop);
  REQUIRE(loop.loop);
  CHECK(loop.loop->path == img);
  CHECK(loop.loop->ino == uint64_t(st.st_ino));
  CHECK(loop.size_bytes == 2048 * 512);
  CHECK(loop.queue.rotational);
  CHECK_FALSE(loop.effective.rotational);
  CHECK(loop.effective.io_opt == 1u << 20);
  CHECK(loop.effective.logical_block_size == 4096);  // the member's own: it sets the I/O alignment

  ScanOptions all;
  all.include_empty = true;
  CHECK(names(scan_block_devices(sys.roots, all)) == std::vector<std::string>{"loop3", "loop10", "nvme1n1"});

  // The image file itself, as a member: the disk's figures.
  auto id = identify(img, sys.roots);
  REQUIRE(id.ok());
  auto q = member_queue_properties(*id, sys.roots);
  REQUIRE(q);
  CHECK_FALSE(q->rotational);
  CHECK(q->io_opt == 1u << 20);
}

TEST_CASE("fixture: a disk held by device-mapper, and the dm device") {
  TempDir dir;
  FixtureSystem sys(dir);
  sys.add_disk({.name = "sdd", .dev = "8:48", .rotational = 1});
  sys.add_holder("sdd", "dm-0");
  sys.add_disk({.name = "dm-0", .dev = "253:0", .rotational = 1});
  write_text(sys.roots.sysfs + "/block/dm-0/dm/name", "vg0-data\n");
  write_text(sys.roots.sysfs + "/block/dm-0/slaves/sdd/.keep", "");
  sys.add_node("sdd", 1 << 20);
  sys.add_node("dm-0", 1 << 20);

  const auto list = scan_block_devices(sys.roots);
  const auto& sdd = find(list, "sdd");
  CHECK(sdd.holders == std::vector<std::string>{"dm-0"});
  const Assessment a = assess(sdd);
  CHECK(a.refused());
  CHECK(a.summary() == "held by dm-0");
  const auto& dm = find(list, "dm-0");
  CHECK(dm.kind == DeviceKind::device_mapper);
  CHECK(dm.dm_name == "vg0-data");
  CHECK(assess(dm).safe());
}

TEST_CASE("fixture: md members: which array and role; held while the array runs") {
  TempDir dir;
  FixtureSystem sys(dir);
  sys.add_disk({.name = "sdc", .dev = "8:32", .sectors = 1 << 16, .rotational = 1});
  sys.add_disk({.name = "sde", .dev = "8:64", .sectors = 1 << 16, .rotational = 1});
  sys.add_holder("sdc", "md127");
  write_md_member(sys.add_node("sdc", (1 << 16) * 512), (1 << 16) * 512);
  write_md_member(sys.add_node("sde", (1 << 16) * 512), (1 << 16) * 512);
  const std::string uuid = "01020304:05060708:090a0b0c:0d0e0f10";

  const auto list = scan_block_devices(sys.roots);
  const auto& running = find(list, "sdc");
  REQUIRE(running.md);
  CHECK_FALSE(running.md->damaged);
  CHECK(running.md->array_uuid == uuid);
  CHECK(running.md->array_name == "host:data");
  CHECK(running.md->level == "raid1");
  CHECK(running.md->role == "active 1 of 2");
  CHECK(running.md->events == 42);
  CHECK(running.signature.empty());  // libblkid's linux_raid_member is the md line already
  const Assessment held = assess(running);
  CHECK(held.refused());
  CHECK(held.summary() == "held by md127; member of md array " + uuid + " (host:data, raid1, active 1 of 2)");

  const auto& stopped = find(list, "sde");
  const Assessment a = assess(stopped);
  CHECK(a.needs_force());
  CHECK_FALSE(a.refused());
  CHECK(a.summary() == "member of md array " + uuid + " (host:data, raid1, active 1 of 2)");

  SECTION("a damaged superblock is reported as such") {
    FILE* f = std::fopen((sys.roots.dev + "/sde").c_str(), "r+b");
    REQUIRE(f);
    std::fseek(f, 4096 + 200, SEEK_SET);  // inside the checksummed range
    std::fputc(0x5a, f);
    std::fclose(f);
    auto d = describe_block_device("sde", sys.roots);
    REQUIRE(d);
    REQUIRE(d->md);
    CHECK(d->md->damaged);
    CHECK(d->md->role.rfind("damaged superblock: ", 0) == 0);
    CHECK(assess(*d).needs_force());
  }
}

TEST_CASE("fixture: contents that cannot be read are never written blind") {
  TempDir dir;
  FixtureSystem sys(dir);
  sys.add_disk({.name = "sdf", .dev = "8:80"});  // no node under <dev>
  auto d = describe_block_device("sdf", sys.roots);
  REQUIRE(d);
  CHECK_FALSE(d->probe_error.empty());
  CHECK(assess(*d).refused());
  CHECK(assess(*d).summary().rfind("contents unknown: " + sys.roots.dev + "/sdf: ", 0) == 0);

  ScanOptions no_probe;
  no_probe.probe_contents = false;
  auto quick = describe_block_device("sdf", sys.roots, no_probe);
  REQUIRE(quick);
  CHECK(quick->probe_error.empty());
}

TEST_CASE("fixture: a read-only device and an active swap partition are refused") {
  TempDir dir;
  FixtureSystem sys(dir);
  sys.add_disk({.name = "sr0", .dev = "11:0", .removable = true});
  write_text(sys.roots.sysfs + "/block/sr0/ro", "1\n");
  sys.add_node("sr0", 1 << 20);
  sys.add_disk({.name = "vdb", .dev = "254:16"});
  sys.add_disk_partition("vdb", "vdb1", "254:17", 1 << 20);
  sys.add_node("vdb", 1 << 20);
  sys.add_node("vdb1", 1 << 20);
  sys.add_swap(sys.roots.dev + "/vdb1");

  auto sr = describe_block_device("sr0", sys.roots);
  REQUIRE(sr);
  CHECK(sr->removable);
  CHECK(assess(*sr).summary() == "read-only");
  CHECK(assess(*sr).refused());
  auto vdb1 = describe_block_device("vdb1", sys.roots);
  REQUIRE(vdb1);
  CHECK(assess(*vdb1).summary() == "an active swap device");
  auto vdb = describe_block_device("vdb", sys.roots);
  REQUIRE(vdb);
  CHECK(assess(*vdb).summary() == "an active swap device (partition vdb1); partitioned (vdb1)");
}

TEST_CASE("fixture: the processes that hold a member are named") {
  TempDir dir;
  FixtureSystem sys(dir);
  const auto img = make_file(dir, "member.img");
  const auto other = make_file(dir, "other.img");
  write_text(sys.roots.proc + "/4242/comm", "raidscope-cli\n");
  std::filesystem::create_directories(sys.roots.proc + "/4242/fd");
  std::filesystem::create_symlink(other, sys.roots.proc + "/4242/fd/3");
  std::filesystem::create_symlink(img, sys.roots.proc + "/4242/fd/7");
  write_text(sys.roots.proc + "/99/comm", "dd\n");
  std::filesystem::create_directories(sys.roots.proc + "/99/fd");
  std::filesystem::create_symlink(img, sys.roots.proc + "/99/fd/0");
  write_text(sys.roots.proc + "/100/comm", "bash\n");
  std::filesystem::create_directories(sys.roots.proc + "/100/fd");
  std::filesystem::create_symlink(other, sys.roots.proc + "/100/fd/0");

  auto id = identify(img, sys.roots);
  REQUIRE(id.ok());
  const auto procs = processes_with_open(*id, sys.roots);
  REQUIRE(procs.size() == 2);
  CHECK(procs[0].pid == 99);
  CHECK(procs[1].pid == 4242);
  CHECK(describe_processes(procs) == "pids 99 (dd), 4242 (raidscope-cli)");
  CHECK(describe_processes({procs[1]}) == "pid 4242 (raidscope-cli)");

  BlockDevice d;
  CHECK(assess(d, {procs[1]}).summary() == "open by pid 4242 (raidscope-cli)");
  CHECK(assess(d, {procs[1]}).refused());
}

TEST_CASE("fixture: an md superblock claiming max_dev 60000 is damaged, read within its 4 KiB") {
  // The fuzz seed whose role table would reach 120 KiB past the block
  // (mdadm 4.2 reads past its buffer there); under ASan an over-read fails here.
  TempDir dir;
  FixtureSystem sys(dir);
  sys.add_disk({.name = "sdg", .dev = "8:96", .sectors = 1 << 16});
  const std::string node = sys.add_node("sdg", (1 << 16) * 512);
  std::ifstream seed(std::string(RAIDSCOPE_SOURCE_DIR) + "/fuzz/corpus/fuzz_superblock/max-dev-60000.bin",
                     std::ios::binary);
  std::string block((std::istreambuf_iterator<char>(seed)), std::istreambuf_iterator<char>());
  REQUIRE(block.size() == 4096);
  {
    std::fstream out(node, std::ios::in | std::ios::out | std::ios::binary);
    out.seekp(4096);
    out.write(block.data(), std::streamsize(block.size()));
    REQUIRE(out.good());
  }
  auto d = describe_block_device("sdg", sys.roots);
  REQUIRE(d);
  REQUIRE(d->md);
  CHECK(d->md->damaged);
  CHECK(d->md->role == "damaged superblock: max_dev 60000 exceeds 1920");
  CHECK(assess(*d).needs_force());
  CHECK(assess(*d).summary() == "holds a damaged superblock: max_dev 60000 exceeds 1920");
}
