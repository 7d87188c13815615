// Member properties from discovery feed the engine: an array of image files
// reports, per member, the rotational flag of the disk the files live on
// (read here straight from sysfs), and the per-member overrides stay
// tunables (rdN/rotational, rdN/io_opt).
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "discovery/sysfs_attr.hpp"
#include "discovery_test_util.hpp"
#include "levels/levels.hpp"
#include "raid/array.hpp"

using namespace rs;
using rs::discovery::test::TempDir;

namespace {

// "yes"/"no" from /sys/dev/block/M:m[/..]/queue/rotational of the disk under
// `file`, or "" when sysfs does not know its device (tmpfs, overlayfs).
std::string disk_rotational(const std::string& file) {
  struct stat st {};
  REQUIRE(::stat(file.c_str(), &st) == 0);
  const std::string base = "/sys/dev/block/" + discovery::major_minor(st.st_dev);
  for (const char* q : {"/queue/rotational", "/../queue/rotational"})
    if (auto v = discovery::read_uint_attr(base + q)) return *v ? "yes" : "no";
  return "";
}

}  // namespace

TEST_CASE("image-file members report their disk's rotational flag; rdN/rotational overrides it") {
  TempDir dir;
  raid::CreateOptions o;
  o.level = 1;
  o.raid_disks = 2;
  o.create_files_bytes = 16 << 20;
  auto arr = raid::Array::create(levels::builtin(), o, {dir.file("m0.img"), dir.file("m1.img")});
  INFO((arr ? "" : arr.error().message));
  REQUIRE(arr);
  auto& t = (*arr)->tunables();

  const std::string disk = disk_rotational(dir.file("m0.img"));
  if (!disk.empty()) CHECK(*t.get("rd0/rotational") == disk);

  REQUIRE(t.set("rd0/rotational", "yes"));
  REQUIRE(t.set("rd1/rotational", "no"));
  CHECK(*t.get("rd0/rotational") == "yes");
  CHECK(*t.get("rd1/rotational") == "no");
  REQUIRE(t.set("rd0/rotational", "auto"));
  if (!disk.empty()) CHECK(*t.get("rd0/rotational") == disk);
  CHECK_FALSE(t.set("rd0/rotational", "maybe"));

  REQUIRE(t.set("rd1/io_opt", "1048576"));
  CHECK(*t.get("rd1/io_opt") == "1048576");
  REQUIRE((*arr)->close());
}
