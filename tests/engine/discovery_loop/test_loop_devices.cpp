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
#include <string>
#include <vector>

#include "../discovery/discovery_test_util.hpp"
#include "discovery/distinct.hpp"
#include "discovery/in_use.hpp"
#include "discovery/loop_devices.hpp"
#include "discovery/signature.hpp"
#include "io/member_device.hpp"

using namespace rs;
using namespace rs::discovery;
using rs::discovery::test::make_file;
using rs::discovery::test::TempDir;

namespace {

// Runs a shell command; its stdout (trimmed) and whether it exited 0.
bool run(const std::string& cmd, std::string* out = nullptr) {
  FILE* p = ::popen((cmd + " 2>/dev/null").c_str(), "r");
  if (!p) return false;
  std::string text;
  char buf[256];
  while (size_t n = std::fread(buf, 1, sizeof buf, p)) text.append(buf, n);
  const int status = ::pclose(p);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (out) *out = text;
  return status == 0;
}

// Ends the whole program with 77 (skipped). Only called before a case has
// made anything that would need undoing.
[[noreturn]] void skip(const std::string& why) {
  std::fprintf(stderr, "SKIPPED: %s\n", why.c_str());
  std::fflush(nullptr);
  std::_Exit(77);
}

void require_root_and_losetup() {
  if (::geteuid() != 0) skip("needs root to set up loop devices");
  if (!run("command -v losetup")) skip("losetup is not installed");
}

// A loop device over `file`, detached when this goes out of scope.
class Loop {
 public:
  explicit Loop(const std::string& file) {
    // Other engineers' tests take loop devices too: losetup -f can lose a
    // race for the free device it found, so try a few times.
    for (int attempt = 0; attempt < 5 && path_.empty(); ++attempt) {
      std::string out;
      if (run("losetup -f --show '" + file + "'", &out) && out.rfind("/dev/loop", 0) == 0) path_ = out;
    }
  }
  ~Loop() {
    if (!path_.empty()) run("losetup -d " + path_);
  }
  Loop(const Loop&) = delete;
  Loop& operator=(const Loop&) = delete;
  const std::string& path() const { return path_; }
  bool ok() const { return !path_.empty(); }

 private:
  std::string path_;
};

// The first loop device of a case: when none can be made, the case is
// skipped (nothing else exists yet).
std::unique_ptr<Loop> first_loop(const std::string& file) {
  auto loop = std::make_unique<Loop>(file);
  if (!loop->ok()) skip("losetup could not attach a loop device (no loop support here?)");
  return loop;
}

std::unique_ptr<Loop> another_loop(const std::string& file) {
  auto loop = std::make_unique<Loop>(file);
  REQUIRE(loop->ok());
  return loop;
}

// `device` mounted at `dir`, unmounted when this goes out of scope.
class Mount {
 public:
  Mount(const std::string& device, const std::string& dir) : dir_(dir) {
    mounted_ = run("mount '" + device + "' '" + dir + "'");
  }
  ~Mount() {
    if (mounted_ && !run("umount '" + dir_ + "'")) run("umount -l '" + dir_ + "'");
  }
  Mount(const Mount&) = delete;
  Mount& operator=(const Mount&) = delete;
  bool ok() const { return mounted_; }

 private:
  std::string dir_;
  bool mounted_ = false;
};

Identity must_identify(const std::string& path) {
  auto id = identify(path);
  INFO(path << ": " << (id.ok() ? "" : id.error().message));
  REQUIRE(id.ok());
  return *id;
}

std::unique_ptr<io::MemberDevice> open_rw(const std::string& path, std::string* error) {
  return io::MemberDevice::open(path, io::OpenMode::ReadWrite, error);
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
  CHECK(over[0].loop.device_path == loop->path());
  CHECK(over[1].loop.device_path == loop2->path());
  CHECK(loops_over(file_q).empty());

  // An open member knows what it is.
  std::string err;
  auto dev = io::MemberDevice::open(loop->path(), io::OpenMode::ReadOnly, &err);
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
    auto reader = io::MemberDevice::open(loop->path(), io::OpenMode::ReadOnly, &err);
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
  CHECK(io::MemberDevice::open(fs_img, io::OpenMode::ReadOnly, &err));  // examine still reads it

  const auto e_img = make_file(dir, "e.img");
  CHECK(member_in_use(e_img).empty());
}
