// A member that cannot be written is refused when it is opened for
// writing, before anything is written, naming it and the real cause
// (issue 25, items 4 and 8): a read-only loop device (losetup -r), a
// device set read-only (blockdev --setro), an immutable file (chattr +i:
// not its mode), a file on a read-only bind mount. Reading still works.
// Needs root and losetup (77 where missing); each case undoes what it made.
#include <sys/stat.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "../../common/result_helpers.hpp"
#include "../discovery/discovery_test_util.hpp"
#include "io/member_device.hpp"
#include "loop_test_util.hpp"

using namespace rs;
using namespace rs::discovery::test;

namespace {

std::unique_ptr<io::MemberDevice> open_mode(const std::string& path, io::OpenMode mode, std::string* error) {
  return rs::test::or_empty(io::MemberDevice::open(path, mode), error);
}

// A loop device set up read-only (losetup -r), detached when this goes.
class ReadOnlyLoop {
 public:
  explicit ReadOnlyLoop(const std::string& file) {
    std::string out;
    for (int attempt = 0; attempt < 5 && path_.empty(); ++attempt)
      if (run("losetup -r -f --show '" + file + "'", &out) && out.rfind("/dev/loop", 0) == 0) path_ = out;
  }
  ~ReadOnlyLoop() {
    if (!path_.empty()) run("losetup -d " + path_);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// `flag` (+i) set on `file` with chattr, cleared when this goes.
class Chattr {
 public:
  Chattr(const std::string& file, const std::string& flag) : file_(file), flag_(flag) {
    ok_ = run("chattr +" + flag + " '" + file + "'");
  }
  ~Chattr() {
    if (ok_) run("chattr -" + flag_ + " '" + file_ + "'");
  }
  bool ok() const { return ok_; }

 private:
  std::string file_, flag_;
  bool ok_ = false;
};

}  // namespace

TEST_CASE("a read-only loop device is refused for writing, named as such") {
  require_root_and_losetup();
  TempDir dir;
  const auto p = make_file(dir, "p.img");
  ReadOnlyLoop ro(p);
  REQUIRE_FALSE(ro.path().empty());
  std::string err;
  CHECK_FALSE(open_mode(ro.path(), io::OpenMode::ReadWrite, &err));
  CHECK(mentions(err, ro.path() + ": read-only block device"));
  CHECK(mentions(err, "losetup -r"));
  CHECK(open_mode(ro.path(), io::OpenMode::ReadOnly, &err));  // examine and read still work
}

TEST_CASE("a loop device set read-only with blockdev is refused for writing") {
  require_root_and_losetup();
  if (!run("command -v blockdev")) skip("blockdev is not installed");
  TempDir dir;
  const auto p = make_file(dir, "p.img");
  auto loop = first_loop(p);
  REQUIRE(run("blockdev --setro " + loop->path()));
  std::string err;
  CHECK_FALSE(open_mode(loop->path(), io::OpenMode::ReadWrite, &err));
  CHECK(mentions(err, loop->path() + ": read-only block device"));
  REQUIRE(run("blockdev --setrw " + loop->path()));
  CHECK(open_mode(loop->path(), io::OpenMode::ReadWrite, &err));
}

TEST_CASE("an immutable image file is refused as immutable, not for its mode") {
  require_root_and_losetup();
  TempDir dir;
  const auto p = make_file(dir, "p.img");
  Chattr immutable(p, "i");
  if (!immutable.ok()) skip("chattr +i is not supported on this filesystem");
  std::string err;
  CHECK_FALSE(open_mode(p, io::OpenMode::ReadWrite, &err));
  CHECK(mentions(err, p + ": immutable (chattr +i)"));
  CHECK_FALSE(mentions(err, "mode"));
  CHECK(open_mode(p, io::OpenMode::ReadOnly, &err));
}

TEST_CASE("an image file on a read-only bind mount is refused, naming the mount") {
  require_root_and_losetup();
  if (!run("command -v mount")) skip("mount is not installed");
  TempDir dir;
  const auto p = make_file(dir, "p.img");
  const std::string ro = dir.file("ro");
  REQUIRE(::mkdir(ro.c_str(), 0755) == 0);
  if (!run("mount --bind '" + dir.path + "' '" + ro + "'")) skip("bind mounts are not possible here");
  const bool remounted = run("mount -o remount,bind,ro '" + ro + "'");
  std::string err;
  const bool opened = remounted && open_mode(ro + "/p.img", io::OpenMode::ReadWrite, &err) != nullptr;
  const bool readable = remounted && open_mode(ro + "/p.img", io::OpenMode::ReadOnly, &err) != nullptr;
  std::string refusal;
  if (remounted) open_mode(ro + "/p.img", io::OpenMode::ReadWrite, &refusal);
  if (!run("umount '" + ro + "'")) run("umount -l '" + ro + "'");
  REQUIRE(remounted);
  CHECK_FALSE(opened);
  CHECK(readable);
  CHECK(mentions(refusal, ro + "/p.img: on a read-only filesystem (" + ro + " is mounted read-only)"));
}
