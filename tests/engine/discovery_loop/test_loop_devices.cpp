// Member identity and locking with real loop devices (losetup, mount): a
// loop device over a file is that file, engines on the file and on the loop
// device exclude each other in either order, and a mounted loop device's
// backing file is in use. Needs root and loop devices: where either is
// missing a case exits 77, which CTest reports as skipped. Every loop device
// and mount a case makes is undone when it ends, also when it fails.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "../../common/result_helpers.hpp"
#include "../discovery/discovery_test_util.hpp"
#include "discovery/distinct.hpp"
#include "discovery/in_use.hpp"
#include "discovery/loop_devices.hpp"
#include "discovery/signature.hpp"
#include "io/member_device.hpp"
#include "loop_test_util.hpp"

using namespace rs;
using namespace rs::discovery;
using rs::discovery::test::make_file;
using rs::discovery::test::TempDir;

using namespace rs::discovery::test;

namespace {

Identity must_identify(const std::string& path) {
  auto id = identify(path);
  INFO(path << ": " << (id.ok() ? "" : id.error().message));
  REQUIRE(id.ok());
  return *id;
}

std::unique_ptr<io::MemberDevice> open_rw(const std::string& path, std::string* error) {
  return rs::test::or_empty(io::MemberDevice::open(path, io::OpenMode::ReadWrite), error);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("a loop device over a file identifies as that file") {
  require_root_and_losetup();
  TempDir dir;
  const auto p = make_file(dir, "p.img");
  const auto q = make_file(dir, "q.img");
  auto loop = first_loop(p);
  auto loop2 = another_loop(p);

  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  const Identity l = must_identify(loop->path());
  CHECK(l.kind == Identity::Kind::block_device);
  REQUIRE(l.is_loop());
  CHECK(l.loop->dev == uint64_t(st.st_dev));  // LOOP_GET_STATUS64's lo_device is st_dev's encoding
  CHECK(l.loop->ino == uint64_t(st.st_ino));
  CHECK(l.loop->rdev == 0);
  CHECK(l.loop->path == p);

  const Identity file_p = must_identify(p), file_q = must_identify(q), l2 = must_identify(loop2->path());
  CHECK(same_storage(l, file_p));
  CHECK(same_storage(l, l2));
  CHECK_FALSE(same_storage(l, file_q));

  Status dup = check_distinct({q, loop->path(), p});
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.error().code == Errc::invalid_argument);
  CHECK(dup.error().message ==
        loop->path() + " is a loop device over " + p + ": the same member given twice");
  dup = check_distinct({loop->path(), loop2->path()});
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.error().message == loop->path() + " and " + loop2->path() + " are loop devices over " + p +
                                   ": the same member given twice");
  CHECK(check_distinct({loop->path(), q}).ok());

  // The system scan finds both devices over p, and only those.
  const auto over = loops_over(file_p);
  REQUIRE(over.size() == 2);
  // In the system's order, which is not the order they were attached in
  // when other loop devices come and go meanwhile.
  std::set<std::string> found{over[0].loop.device_path, over[1].loop.device_path};
  CHECK(found == std::set<std::string>{loop->path(), loop2->path()});
  CHECK(loops_over(file_q).empty());

  // An open member knows what it is.
  std::string err;
  auto dev = rs::test::or_empty(io::MemberDevice::open(loop->path(), io::OpenMode::ReadOnly), &err);
  REQUIRE(dev);
  CHECK(same_storage(dev->identity(), file_p));
}

TEST_CASE("engines on a file and on a loop device over it exclude each other, in either order") {
  require_root_and_losetup();
  TempDir dir;
  const auto p = make_file(dir, "p.img");
  auto loop = first_loop(p);
  auto loop2 = another_loop(p);
  std::string err;

  SECTION("the file first") {
    auto file = open_rw(p, &err);
    REQUIRE(file);
    REQUIRE_FALSE(open_rw(loop->path(), &err));
    CHECK(err == loop->path() + ": in use by another process: " + loop->path() + " is a loop device over " +
                     p + ", which another process holds");
  }
  SECTION("the loop device first") {
    auto dev = open_rw(loop->path(), &err);
    REQUIRE(dev);
    CHECK(dev->info().lock_note.empty());
    REQUIRE_FALSE(open_rw(p, &err));
    CHECK(contains(err, p + ": in use by another process"));
    CHECK(contains(err, loop->path() + " is a loop device over it"));
  }
  SECTION("two loop devices over one file") {
    auto dev = open_rw(loop->path(), &err);
    REQUIRE(dev);
    REQUIRE_FALSE(open_rw(loop2->path(), &err));
    CHECK(contains(err, loop2->path() + ": in use by another process"));
  }
  SECTION("the lock goes with the member") {
    { REQUIRE(open_rw(loop->path(), &err)); }
    auto file = open_rw(p, &err);
    CHECK(file);
  }
  SECTION("reading does not lock") {
    auto reader = rs::test::or_empty(io::MemberDevice::open(loop->path(), io::OpenMode::ReadOnly), &err);
    REQUIRE(reader);
    CHECK(open_rw(p, &err));
  }
}

TEST_CASE("the backing file of a mounted loop device is in use, never writable") {
  require_root_and_losetup();
  if (!run("command -v mkfs.ext4") || !run("command -v mount")) skip("mkfs.ext4 or mount is not installed");
  TempDir dir;
  const auto fs_img = make_file(dir, "fs.img", 16 << 20);
  REQUIRE(run("mkfs.ext4 -q -F '" + fs_img + "'"));
  const std::string mnt = dir.file("mnt");
  REQUIRE(::mkdir(mnt.c_str(), 0755) == 0);
  auto loop = first_loop(fs_img);
  auto idle = another_loop(fs_img);  // a second, unmounted loop device over the same file
  auto mount = std::make_unique<Mount>(loop->path(), mnt);
  if (!mount->ok()) {
    idle.reset();
    loop.reset();
    skip("cannot mount ext4 here");
  }

  const std::string expected = "it backs " + loop->path() + ", which is mounted at " + mnt;
  CHECK(member_in_use(fs_img) == expected);
  CHECK(block_device_in_use(fs_img) == expected);
  CHECK(member_in_use(loop->path()) == "it is mounted at " + mnt);
  CHECK(member_in_use(idle->path()) ==
        "its backing file " + fs_img + " also backs " + loop->path() + ", which is mounted at " + mnt);

  std::string err;
  CHECK_FALSE(open_rw(fs_img, &err));
  CHECK(err == fs_img + ": in use: " + expected);
  CHECK_FALSE(open_rw(idle->path(), &err));
  CHECK(contains(err, "mounted at " + mnt));
  CHECK(rs::test::or_empty(io::MemberDevice::open(fs_img, io::OpenMode::ReadOnly),
                           &err));  // examine still reads it

  const auto e_img = make_file(dir, "e.img");
  CHECK(member_in_use(e_img).empty());
}
