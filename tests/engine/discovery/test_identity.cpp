// Member identity on real temp files: what a path is, not what it is
// called. Loop-device identities are built by hand here (the kernel's
// answer is tested with real loop devices in discovery_loop/).
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "discovery/identity.hpp"
#include "discovery_test_util.hpp"

using namespace rs;
using namespace rs::discovery;
using rs::discovery::test::make_file;
using rs::discovery::test::TempDir;

namespace {

Identity must_identify(const std::string& path) {
  auto id = identify(path);
  INFO(path << ": " << (id.ok() ? "" : id.error().message));
  REQUIRE(id.ok());
  return *id;
}

struct stat must_stat(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st;
}

Identity loop_over_file(const std::string& node, uint64_t rdev, const struct stat& file,
                        const std::string& name) {
  Identity id;
  id.path = node;
  id.kind = Identity::Kind::block_device;
  id.rdev = rdev;
  id.loop = LoopBacking{uint64_t(file.st_dev), uint64_t(file.st_ino), 0, name};
  return id;
}

Identity block_device(const std::string& node, uint64_t rdev) {
  Identity id;
  id.path = node;
  id.kind = Identity::Kind::block_device;
  id.rdev = rdev;
  return id;
}

}  // namespace

TEST_CASE("a regular file is its device and inode") {
  TempDir dir;
  const auto p = make_file(dir, "p.img");
  const auto st = must_stat(p);
  const Identity id = must_identify(p);
  CHECK(id.kind == Identity::Kind::file);
  CHECK(id.dev == uint64_t(st.st_dev));
  CHECK(id.ino == uint64_t(st.st_ino));
  CHECK_FALSE(id.is_loop());
  CHECK(id.path == p);
  CHECK(id.major_minor().empty());

  int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  auto by_fd = identify_fd(fd, p);
  ::close(fd);
  REQUIRE(by_fd.ok());
  CHECK(by_fd->dev == id.dev);
  CHECK(by_fd->ino == id.ino);
}

TEST_CASE("hard links and symlinks are the same file; copies are not") {
  TempDir dir;
  const auto p = make_file(dir, "p.img");
  const auto q = make_file(dir, "q.img");
  REQUIRE(::link(p.c_str(), dir.file("hard.img").c_str()) == 0);
  REQUIRE(::symlink(p.c_str(), dir.file("soft.img").c_str()) == 0);
  const Identity ip = must_identify(p), iq = must_identify(q);
  const Identity hard = must_identify(dir.file("hard.img")), soft = must_identify(dir.file("soft.img"));

  CHECK(same_storage(ip, hard));
  CHECK(same_storage(hard, ip));
  CHECK(same_storage(ip, soft));
  CHECK(same_storage(ip, ip));
  CHECK_FALSE(same_storage(ip, iq));
  CHECK(same_storage_reason(ip, hard) ==
        p + " and " + dir.file("hard.img") + " are the same file (hard links or symlinks)");
  CHECK(same_storage_reason(ip, ip) == p + " is named twice");
  CHECK(same_storage_reason(ip, iq).empty());
}

TEST_CASE("identify refuses what cannot be a member, naming it") {
  TempDir dir;
  auto missing = identify(dir.file("nope.img"));
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == Errc::not_found);
  CHECK(missing.error().message.find("nope.img") != std::string::npos);

  auto directory = identify(dir.path);
  REQUIRE_FALSE(directory.ok());
  CHECK(directory.error().code == Errc::unsupported);
  CHECK(directory.error().message == dir.path + ": a directory");

  auto under_file = identify(make_file(dir, "f") + "/x");
  REQUIRE_FALSE(under_file.ok());
  CHECK(under_file.error().code == Errc::not_found);
}

TEST_CASE("a loop device reaches its backing file and every other loop device over it") {
  TempDir dir;
  const auto p = make_file(dir, "p.img");
  const auto q = make_file(dir, "q.img");
  const Identity file_p = must_identify(p), file_q = must_identify(q);
  const auto st_p = must_stat(p);
  const Identity loop0 = loop_over_file("/dev/loop0", makedev(7, 0), st_p, p);
  const Identity loop1 = loop_over_file("/dev/loop1", makedev(7, 1), st_p, p);
  const Identity loop2 = loop_over_file("/dev/loop2", makedev(7, 2), must_stat(q), q);

  CHECK(same_storage(loop0, file_p));
  CHECK(same_storage(file_p, loop0));
  CHECK(same_storage(loop0, loop1));
  CHECK_FALSE(same_storage(loop0, file_q));
  CHECK_FALSE(same_storage(loop0, loop2));
  CHECK(same_storage(loop2, file_q));
  CHECK(loop0.major_minor() == "7:0");

  CHECK(same_storage_reason(loop0, file_p) == "/dev/loop0 is a loop device over " + p);
  CHECK(same_storage_reason(file_p, loop0) == "/dev/loop0 is a loop device over " + p);
  CHECK(same_storage_reason(loop0, loop1) == "/dev/loop0 and /dev/loop1 are loop devices over " + p);
}

TEST_CASE("block devices: the same number is the same device; a loop over a device reaches it") {
  const Identity sdb = block_device("/dev/sdb", makedev(8, 16));
  const Identity by_id = block_device("/dev/disk/by-id/x", makedev(8, 16));
  const Identity sdc = block_device("/dev/sdc", makedev(8, 32));
  Identity loop_over_sdb = block_device("/dev/loop4", makedev(7, 4));
  loop_over_sdb.loop = LoopBacking{makedev(0, 6), 123, makedev(8, 16), "/dev/sdb"};

  CHECK(same_storage(sdb, by_id));
  CHECK_FALSE(same_storage(sdb, sdc));
  CHECK(same_storage(loop_over_sdb, sdb));
  CHECK_FALSE(same_storage(loop_over_sdb, sdc));
  CHECK(same_storage_reason(sdb, by_id) == "/dev/sdb and /dev/disk/by-id/x are the same block device (8:16)");
  CHECK(same_storage_reason(sdb, loop_over_sdb) == "/dev/loop4 is a loop device over /dev/sdb");

  // A file whose (st_dev, st_ino) happens to equal a device node's is not
  // that device: files and devices are compared in separate spaces.
  Identity file;
  file.path = "f.img";
  file.dev = makedev(8, 16);
  file.ino = 0;
  CHECK_FALSE(same_storage(file, sdb));
}
