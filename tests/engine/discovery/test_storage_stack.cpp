// What a member is built on (storage_stack.hpp) on fixture sysfs trees laid
// out as the kernel lays them out, and the storage locks
// (storage_locks.hpp) on plain files: a second engine on the same storage
// is refused, in this process too; a lock that cannot be taken safely is
// refused unless forced, saying why and what forcing risks. The same on
// real loop devices, partitions and stacked loops: discovery_loop/.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "../../common/result_helpers.hpp"
#include "discovery/storage_locks.hpp"
#include "discovery/storage_stack.hpp"
#include "discovery_test_util.hpp"
#include "io/member_device.hpp"

using namespace rs;
using namespace rs::discovery;
using rs::discovery::test::FixtureSystem;
using rs::discovery::test::make_file;
using rs::discovery::test::TempDir;

namespace {

Identity block(const std::string& node, unsigned maj, unsigned min) {
  Identity id;
  id.path = node;
  id.kind = Identity::Kind::block_device;
  id.rdev = makedev(maj, min);
  return id;
}

std::vector<StorageClaim> must_claim(const Identity& id, const SystemRoots& roots) {
  auto c = storage_claims(id, roots);
  INFO((c ? std::string() : c.error().message));
  REQUIRE(c.ok());
  return *c;
}

// "block-8.0 shared" per claim, in order.
std::vector<std::string> keys(const std::vector<StorageClaim>& claims) {
  std::vector<std::string> out;
  for (const auto& c : claims) out.push_back(c.key() + (c.shared ? " shared" : " exclusive"));
  return out;
}

// A device-mapper (or md) device <name> built on `slaves`.
void add_mapped(FixtureSystem& sys, const std::string& name, const std::string& dev,
                const std::vector<std::string>& slaves) {
  sys.add_disk({name, dev});
  for (const auto& s : slaves) {
    // slaves/<s> links to the slave's directory, wherever it is.
    std::string target;
    for (const auto& e : std::filesystem::recursive_directory_iterator(sys.roots.sysfs + "/block"))
      if (e.is_directory() && e.path().filename() == s) target = e.path().string();
    REQUIRE_FALSE(target.empty());
    std::filesystem::create_directories(sys.roots.sysfs + "/block/" + name + "/slaves");
    std::filesystem::create_directory_symlink(target, sys.roots.sysfs + "/block/" + name + "/slaves/" + s);
  }
}

// Sets RAIDSCOPE_LOCK_DIR for one test and puts it back after.
struct LockDir {
  explicit LockDir(const std::string& dir) { ::setenv("RAIDSCOPE_LOCK_DIR", dir.c_str(), 1); }
  ~LockDir() { ::unsetenv("RAIDSCOPE_LOCK_DIR"); }
};

std::unique_ptr<io::MemberDevice> open_rw(const std::string& path, std::string* err) {
  return rs::test::or_empty(io::MemberDevice::open(path, io::OpenMode::ReadWrite), err);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("storage claims: a file is its inode, claimed whole") {
  TempDir dir;
  const auto p = make_file(dir, "p.img");
  struct stat st {};
  REQUIRE(::stat(p.c_str(), &st) == 0);
  Identity id;
  id.path = p;
  id.dev = st.st_dev;
  id.ino = st.st_ino;
  const auto claims = must_claim(id, {});
  REQUIRE(claims.size() == 1);
  CHECK(claims[0].key() == "file-" + std::to_string(major(st.st_dev)) + "." +
                               std::to_string(minor(st.st_dev)) + "-" + std::to_string(st.st_ino));
  CHECK_FALSE(claims[0].shared);
  CHECK(claims[0].chain == p);
}

TEST_CASE("storage claims: a partition claims its disk shared, the disk claims itself whole") {
  TempDir dir;
  FixtureSystem sys(dir);
  sys.add_disk({"sda", "8:0"});
  sys.add_disk_partition("sda", "sda1", "8:1", 1000);
  sys.add_disk_partition("sda", "sda2", "8:2", 1000);
  CHECK(keys(must_claim(block("/dev/sda1", 8, 1), sys.roots)) ==
        std::vector<std::string>{"block-8.1 exclusive", "block-8.0 shared"});
  CHECK(keys(must_claim(block("/dev/sda", 8, 0), sys.roots)) ==
        std::vector<std::string>{"block-8.0 exclusive"});
  const auto claims = must_claim(block("/dev/sda2", 8, 2), sys.roots);
  CHECK(claims[1].chain == "/dev/sda2 -> " + sys.roots.dev + "/sda");
}

TEST_CASE("storage claims: a device-mapper device claims its slaves shared, once each") {
  TempDir dir;
  FixtureSystem sys(dir);
  sys.add_disk({"sda", "8:0"});
  sys.add_disk_partition("sda", "sda1", "8:1", 1000);
  sys.add_disk_partition("sda", "sda2", "8:2", 1000);
  sys.add_disk({"sdb", "8:16"});
  add_mapped(sys, "dm-0", "253:0", {"sda1", "sda2", "sdb"});
  CHECK(keys(must_claim(block("/dev/dm-0", 253, 0), sys.roots)) ==
        std::vector<std::string>{"block-253.0 exclusive", "block-8.1 shared", "block-8.0 shared",
                                 "block-8.2 shared", "block-8.16 shared"});
}

TEST_CASE("storage claims: a block device sysfs does not know cannot be established") {
  TempDir dir;
  FixtureSystem sys(dir);
  auto c = storage_claims(block("/dev/sdz", 8, 240), sys.roots);
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().code == Errc::unsupported);
  CHECK(contains(c.error().message, "cannot tell what storage /dev/sdz"));
}

TEST_CASE("storage locks: a second engine on the same file is refused, also in this process") {
  TempDir dir;
  const LockDir lock_dir(dir.file("locks"));
  const auto p = make_file(dir, "p.img");
  REQUIRE(::link(p.c_str(), dir.file("hard.img").c_str()) == 0);
  REQUIRE(::symlink(p.c_str(), dir.file("sym.img").c_str()) == 0);
  std::string err;
  auto first = open_rw(p, &err);
  INFO(err);
  REQUIRE(first);
  CHECK(first->info().lock_note.empty());
  CHECK_FALSE(open_rw(dir.file("hard.img"), &err));
  CHECK(contains(err, dir.file("hard.img") + ": in use by another process"));
  CHECK_FALSE(open_rw(dir.file("sym.img"), &err));
  // The lock directory was made for every user, sticky, and holds the lock.
  struct stat st {};
  REQUIRE(::stat(dir.file("locks").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 01777);
  CHECK(std::distance(std::filesystem::directory_iterator(dir.file("locks")), {}) == 1);
  first.reset();
  CHECK(open_rw(dir.file("hard.img"), &err));  // the lock went with the member
}

TEST_CASE("storage locks: a lock that cannot be taken safely is refused unless forced") {
  TempDir dir;
  const auto p = make_file(dir, "p.img");
  std::string err;
  SECTION("the lock directory cannot be made") {
    const auto blocker = make_file(dir, "not-a-dir");
    const LockDir lock_dir(blocker + "/locks");
    CHECK_FALSE(open_rw(p, &err));
    CHECK(contains(err, p + ": refusing to write: cannot lock"));
    CHECK(contains(err, blocker + "/locks"));
    CHECK(contains(err, "--force uses it anyway"));
    CHECK(contains(err, "corrupt"));  // says what forcing risks
    io::MemberDevice::allow_unprotected_storage(true);
    auto forced = open_rw(p, &err);
    io::MemberDevice::allow_unprotected_storage(false);
    REQUIRE(forced);
    CHECK(contains(forced->info().lock_note, "used anyway (--force)"));
  }
  SECTION("a lock directory others may write that is not sticky") {
    const std::string locks = dir.file("open-locks");
    REQUIRE(::mkdir(locks.c_str(), 0777) == 0);
    REQUIRE(::chmod(locks.c_str(), 0777) == 0);
    const LockDir lock_dir(locks);
    CHECK_FALSE(open_rw(p, &err));
    CHECK(contains(err, "not a safe lock directory"));
  }
  SECTION("a symbolic link planted where the lock file goes") {
    const std::string locks = dir.file("locks");
    REQUIRE(::mkdir(locks.c_str(), 0700) == 0);
    const LockDir lock_dir(locks);
    struct stat st {};
    REQUIRE(::stat(p.c_str(), &st) == 0);
    const std::string key = "file-" + std::to_string(major(st.st_dev)) + "." +
                            std::to_string(minor(st.st_dev)) + "-" + std::to_string(st.st_ino);
    const auto victim = make_file(dir, "victim");
    REQUIRE(::symlink(victim.c_str(), (locks + "/" + key).c_str()) == 0);
    CHECK_FALSE(open_rw(p, &err));
    CHECK(contains(err, "cannot lock"));
    CHECK(contains(err, key));
  }
}
