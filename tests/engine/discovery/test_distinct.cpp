// check_distinct: one array must not list the same storage twice.
#include <unistd.h>

#include "discovery/distinct.hpp"
#include "discovery_test_util.hpp"

using namespace rs;
using namespace rs::discovery;
using rs::discovery::test::make_file;
using rs::discovery::test::TempDir;

namespace {

std::string duplicate_error(const std::vector<std::string>& paths) {
  Status s = check_distinct(paths);
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().code == Errc::invalid_argument);
  return s.error().message;
}

}  // namespace

TEST_CASE("distinct members pass") {
  TempDir dir;
  CHECK(check_distinct({}).ok());
  CHECK(check_distinct({make_file(dir, "a.img")}).ok());
  CHECK(check_distinct({dir.file("a.img"), make_file(dir, "b.img"), make_file(dir, "c.img")}).ok());
  // Not yet created (create --create-files): different names are different members.
  CHECK(check_distinct({dir.file("new1.img"), dir.file("new2.img"), dir.file("a.img")}).ok());
}

TEST_CASE("the same file under two names is refused, naming both") {
  TempDir dir;
  const auto a = make_file(dir, "a.img");
  const auto b = make_file(dir, "b.img");
  REQUIRE(::link(a.c_str(), dir.file("a-link.img").c_str()) == 0);
  REQUIRE(::symlink("a.img", dir.file("a-sym.img").c_str()) == 0);

  CHECK(duplicate_error({a, b, dir.file("a-link.img")}) ==
        a + " and " + dir.file("a-link.img") +
            " are the same file (hard links or symlinks): the same member given twice");
  CHECK(duplicate_error({b, dir.file("a-sym.img"), a}) ==
        dir.file("a-sym.img") + " and " + a +
            " are the same file (hard links or symlinks): the same member given twice");
  CHECK(duplicate_error({a, b, a}) == a + " is named twice: the same member given twice");
}

TEST_CASE("a name to be created, given twice in different spellings, is refused") {
  TempDir dir;
  const std::string x = dir.file("x.img"), x2 = dir.path + "/./sub/../x.img";
  CHECK(duplicate_error({x, x}) == x + " is named twice: the same member given twice");
  CHECK(duplicate_error({x, x2}) == x + " and " + x2 + " are the same path: the same member given twice");
}

TEST_CASE("paths that cannot be identified are left for the open to report") {
  TempDir dir;
  const auto a = make_file(dir, "a.img");
  CHECK(check_distinct({a, dir.path, dir.path}).ok());
}
