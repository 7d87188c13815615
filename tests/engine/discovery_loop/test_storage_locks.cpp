// Two engines never drive the same storage (issue 25, item 3), with real
// loop devices: two loop devices over one file once the file is deleted, a
// loop device over another loop device, a whole disk and its partitions
// (partitions added with addpart, which needs no partition-table support),
// a loop device over a partition; in this process and across processes,
// and a killed holder leaves no lock behind. Needs root and losetup: where
// either is missing the program exits 77 (skipped). Every loop device a
// case makes is detached when it ends, also when it fails.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "../../common/result_helpers.hpp"
#include "../discovery/discovery_test_util.hpp"
#include "io/member_device.hpp"
#include "loop_test_util.hpp"

using namespace rs;
using namespace rs::discovery::test;

namespace {

std::unique_ptr<io::MemberDevice> open_for_write(const std::string& path, std::string* error) {
  return rs::test::or_empty(io::MemberDevice::open(path, io::OpenMode::ReadWrite), error);
}

// Partitions 1 and 2 of a loop device, made with addpart (BLKPG): removed
// with delpart when this goes, before the loop device is detached.
class Partitions {
 public:
  explicit Partitions(const std::string& disk) : disk_(disk) {
    ok_ = run("addpart " + disk + " 1 2048 20480") && run("addpart " + disk + " 2 22528 20480");
    for (int i = 0; i < 50 && ok_ && !(exists(part(1)) && exists(part(2))); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ok_ = ok_ && exists(part(1)) && exists(part(2));
  }
  ~Partitions() {
    run("delpart " + disk_ + " 1");
    run("delpart " + disk_ + " 2");
  }
  bool ok() const { return ok_; }
  std::string part(int n) const { return disk_ + "p" + std::to_string(n); }

 private:
  static bool exists(const std::string& p) {
    struct stat st {};
    return ::stat(p.c_str(), &st) == 0 && S_ISBLK(st.st_mode);
  }
  std::string disk_;
  bool ok_ = false;
};

}  // namespace

TEST_CASE("two loop devices over one deleted file exclude each other") {
  require_root_and_losetup();
  TempDir dir;
  const auto p = make_file(dir, "u.img");
  auto loop = first_loop(p);
  auto loop2 = another_loop(p);
  REQUIRE(::unlink(p.c_str()) == 0);  // now reachable through the loop devices only
  std::string err;
  {
    auto first = open_for_write(loop->path(), &err);
    INFO(err);
    REQUIRE(first);
    CHECK(first->info().lock_note.empty());
    CHECK_FALSE(open_for_write(loop2->path(), &err));
    CHECK(mentions(err, loop2->path() + ": in use by another process"));
    CHECK(mentions(err, "(deleted)"));  // names the file they share
  }
  auto second = open_for_write(loop2->path(), &err);  // the lock went with the first
  INFO(err);
  CHECK(second);
  CHECK_FALSE(open_for_write(loop->path(), &err));
}

TEST_CASE("a loop device over a loop device excludes the lower one and its file") {
  require_root_and_losetup();
  TempDir dir;
  const auto p = make_file(dir, "p.img");
  auto lower = first_loop(p);
  auto upper = another_loop(lower->path());
  std::string err;
  SECTION("the upper one first") {
    auto held = open_for_write(upper->path(), &err);
    INFO(err);
    REQUIRE(held);
    CHECK_FALSE(open_for_write(lower->path(), &err));
    CHECK(mentions(err, lower->path() + ": in use by another process"));
    CHECK_FALSE(open_for_write(p, &err));
    CHECK(mentions(err, p + ": in use by another process"));
  }
  SECTION("the lower one first") {
    auto held = open_for_write(lower->path(), &err);
    INFO(err);
    REQUIRE(held);
    CHECK_FALSE(open_for_write(upper->path(), &err));
    CHECK(mentions(err, upper->path() + ": in use by another process"));
    CHECK(mentions(err, upper->path() + " -> " + lower->path()));  // the layers down to what is held
  }
  SECTION("the file first") {
    auto held = open_for_write(p, &err);
    REQUIRE(held);
    CHECK_FALSE(open_for_write(upper->path(), &err));
  }
}

TEST_CASE("a whole disk and its partitions exclude each other, but not two of its partitions") {
  require_root_and_losetup();
  if (!run("command -v addpart") || !run("command -v delpart")) skip("addpart/delpart are not installed");
  TempDir dir;
  const auto d = make_file(dir, "d.img", 24 << 20);
  auto disk = first_loop(d);
  auto parts = std::make_unique<Partitions>(disk->path());
  if (!parts->ok()) {
    parts.reset();
    disk.reset();
    skip("the kernel adds no partitions to a loop device here");
  }
  std::string err;
  SECTION("partitions side by side, the disk refused") {
    auto p1 = open_for_write(parts->part(1), &err);
    INFO(err);
    REQUIRE(p1);
    auto p2 = open_for_write(parts->part(2), &err);
    INFO(err);
    CHECK(p2);
    CHECK_FALSE(open_for_write(disk->path(), &err));
    CHECK_FALSE(open_for_write(d, &err));  // the image file under the disk
    CHECK(mentions(err, d + ": in use by another process"));
  }
  SECTION("a loop device over a partition excludes the whole disk") {
    // The kernel's O_EXCL sees nothing here: the loop driver opens the
    // partition without claiming it.
    auto over = another_loop(parts->part(1));
    {
      auto held = open_for_write(over->path(), &err);
      INFO(err);
      REQUIRE(held);
      CHECK_FALSE(open_for_write(disk->path(), &err));
      CHECK(mentions(err, disk->path() + ": in use by another process"));
      CHECK(mentions(err, "partly held"));
      CHECK(open_for_write(parts->part(2), &err));  // another partition is other bytes
    }
    {
      auto whole = open_for_write(disk->path(), &err);
      INFO(err);
      REQUIRE(whole);
      CHECK_FALSE(open_for_write(over->path(), &err));
      CHECK(mentions(err, "held whole"));
    }
    over.reset();
  }
}

TEST_CASE("another process is refused while a member is held, and a killed holder leaves no lock") {
  require_root_and_losetup();
  TempDir dir;
  const auto p = make_file(dir, "u.img");
  auto loop = first_loop(p);
  auto loop2 = another_loop(p);
  REQUIRE(::unlink(p.c_str()) == 0);
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {  // the first engine: holds loop 1 until killed
    std::string e;
    auto held = open_for_write(loop->path(), &e);
    const char ok = held ? '1' : '0';
    (void)!::write(ready[1], &ok, 1);
    for (;;) ::pause();
  }
  char ok = 0;
  REQUIRE(::read(ready[0], &ok, 1) == 1);
  REQUIRE(ok == '1');
  std::string err;
  CHECK_FALSE(open_for_write(loop2->path(), &err));
  CHECK(mentions(err, "pid " + std::to_string(child)));  // names the holder
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ::close(ready[0]);
  ::close(ready[1]);
  auto after = open_for_write(loop2->path(), &err);
  INFO(err);
  CHECK(after);
}
